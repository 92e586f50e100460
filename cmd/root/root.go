// Package root builds the gw command tree and is the one place where errors become exit codes and are
// printed (cmdutil.ErrorWithFix). Refused arguments and flag values are never echoed (one may be a key); a
// command adds its own advice through cmdutil (NoArgs, SetFlagWant).
//
// Its testscripts (testdata/script, one file per command or behaviour) run the real binary's code and
// compare what a person reads with golden files in the script: scrub first turns the run's work dir,
// addresses and local token into $WORK, $FAKEGW_HOSTPORT and gw-local-$TOKEN; json PATH WANT checks JSON
// output (checks[id=key].fix). go test ./cmd/root -run TestScripts -update rewrites the goldens. Tests here
// also hold the tree's rules: a command imports no other command's package
// (TestCommandsImportNoOtherCommand).
package root

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/auth"
	"github.com/modelgateway/gw/cmd/build"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/doctor"
	"github.com/modelgateway/gw/cmd/initcmd"
	"github.com/modelgateway/gw/cmd/logs"
	"github.com/modelgateway/gw/cmd/models"
	"github.com/modelgateway/gw/cmd/run"
	"github.com/modelgateway/gw/cmd/serve"
	"github.com/modelgateway/gw/cmd/service"
	"github.com/modelgateway/gw/cmd/statusline"
	"github.com/modelgateway/gw/cmd/usage"
	"github.com/modelgateway/gw/cmd/version"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/internal/safetext"
)

// Main runs gw with the process's arguments and environment.
func Main() cmdutil.ExitCode {
	info := build.Info()
	f := cmdutil.NewFactory(info.Version, info.DefaultBaseURL)
	return Run(context.Background(), f, os.Args[1:])
}

// Run executes one invocation with the given factory; tests call it with test streams and fakes.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) cmdutil.ExitCode {
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	c, err := cmd.ExecuteContextC(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	code := cmdutil.ExitCodeFor(err)
	errOut := f.IOStreams.ErrOut
	switch {
	case errors.Is(err, cmdutil.ErrSilent), code == cmdutil.ExitCancel, code == cmdutil.ExitInterrupted, errors.As(err, new(*cmdutil.ExitStatusError)):
		// Already said (a report, the agent gw run ran), or the user's own doing (esc, ctrl-c, no): nothing
		// to add.
	case code == cmdutil.ExitUsage:
		fmt.Fprintf(errOut, "gw: %s\n", safetext.Text(cmdutil.ErrorWithFix(err)))
		if fe := (*cmdutil.FlagError)(nil); errors.As(err, &fe) && fe.Help && c != nil {
			fmt.Fprintf(errOut, "Run '%s --help' for usage.\n", c.CommandPath())
		}
	default:
		// The one thing to do about it, when the error carries a remedy, on a line of its own (and "(nothing
		// was changed)" when the error says so): cmdutil.ErrorWithFix is the one place these lines are made
		// (on one line for a reader that shows one: cmdutil.OneLine).
		fmt.Fprintf(errOut, "gw: %s\n", safetext.Text(cmdutil.ErrorLine(err)))
	}
	return code
}

// toolsLine is the help's first sentence: every agent gw configures or runs (config/agents/all), and Cursor
// (gw init editor).
func toolsLine() string {
	words := append([]string{"gw", "connects", "coding", "tools"}, cmdutil.ListWords(append(all.Displays(all.All()), "Cursor"))...)
	return cmdutil.Wrap(append(words, strings.Fields("to the Model Gateway Service.")...), 100, "")
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gw <command>",
		Short: "Use the Model Gateway Service with your coding tools",
		Long: toolsLine() + `

Your API key stays in the OS keychain: gw serve runs a localhost /v1 proxy that adds it to each
request, so no agent config ever holds it. When something fails, gw doctor says which of the
service's failures it is and the one thing to do about it.`,
		Version:       f.BuildInfo().String(), // the same line as gw version's first
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetIn(f.IOStreams.In)
	cmd.SetVersionTemplate("gw version {{.Version}}\n")
	cmd.SetFlagErrorFunc(flagError)
	cmd.SetHelpCommand(newHelpCmd())
	// On a terminal narrower than the help is written for, the help is fitted to it.
	help := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		w := f.IOStreams.TerminalWidth()
		if w <= 0 {
			help(c, args)
			return
		}
		var buf strings.Builder
		c.SetOut(&buf)
		help(c, args)
		c.SetOut(f.IOStreams.Out)
		fmt.Fprint(f.IOStreams.Out, cmdutil.Reflow(buf.String(), w))
	})
	cmd.CompletionOptions.HiddenDefaultCmd = false

	cmd.AddCommand(auth.NewCmdAuth(f))
	cmd.AddCommand(models.NewCmdModels(f, nil))
	cmd.AddCommand(doctor.NewCmdDoctor(f, nil))
	cmd.AddCommand(serve.NewCmdServe(f, nil))
	cmd.AddCommand(service.NewCmdService(f))
	cmd.AddCommand(initcmd.NewCmdInit(f))
	cmd.AddCommand(run.NewCmdRun(f, nil))
	cmd.AddCommand(version.NewCmdVersion(f, nil))
	cmd.AddCommand(logs.NewCmdLogs(f, nil))
	cmd.AddCommand(usage.NewCmdUsage(f, nil))
	cmd.AddCommand(statusline.NewCmdStatusline(f, nil))
	cmd.AddCommand(&cobra.Command{
		Use:   "exit-codes",
		Short: "What gw's exit codes mean",
		Long:  cmdutil.ExitCodesHelp,
	})
	cmd.InitDefaultCompletionCmd()
	strictGroups(cmd)
	guardArgs(cmd)
	return cmd
}

// strictGroups makes a command that only groups others (gw auth, gw init, gw completion) refuse an unknown
// subcommand as a usage error (exit 2) instead of printing its help and exiting 0; bare, it prints its help.
func strictGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if sub.HasSubCommands() && sub.Run == nil && sub.RunE == nil {
			sub.Args = cobra.NoArgs
			sub.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
		}
		strictGroups(sub)
	}
}
