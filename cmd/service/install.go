package service

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/internal/safetext"
)

// InstallOptions holds the flags of `gw service install`.
type InstallOptions struct {
	*Options
	DryRun bool
}

// NewCmdInstall binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdInstall(f *cmdutil.Factory, runF func(context.Context, *InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{Options: defaults(f)}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Start gw serve at login and now, restarted when it fails",
		Long: `Write the platform's file that starts gw serve at login (a systemd user unit, a LaunchAgent, a
logon task), then enable and start it with the platform's tool. The file holds no secret (mode
0644): gw serve reads the key from the OS keychain when it starts.

Run again, it changes nothing and starts gw serve if it stopped; after gw moved or the config's port
changed, it rewrites its own file. It never replaces a file of that name gw did not write, nor one
changed since gw wrote it. It refuses where the platform's mechanism is missing (no systemd user
instance, no GUI login session), saying what to do. --dry-run prints the file and the commands and
changes nothing.`,
		Example: `  gw service install
  gw service install --dry-run`,
		Args: cobra.NoArgs,
		RunE: cmdutil.RunE(runF, installRun, opts),
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the file and the commands, change nothing")
	return cmd
}

func installRun(ctx context.Context, opts *InstallOptions) error {
	s, err := opts.setup()
	if err != nil {
		return err
	}
	// Paths and commands hold the user's home and gw's path: their control characters are shown escaped.
	out := safetext.NewWriter(opts.IO.Out)
	defer out.Flush()
	u := s.mgr.Unit
	if opts.DryRun {
		c, err := s.mgr.PlanInstall()
		if err != nil {
			return err
		}
		if c.File == "keep" {
			fmt.Fprintf(out, "%s is already what gw service install writes:\n", u.Path)
		} else {
			fmt.Fprintf(out, "Would write %s (mode 0644):\n", u.Path)
		}
		fmt.Fprintf(out, "%s\n", indent(u.Text))
		fmt.Fprintln(out, "Would run:")
		for _, c := range c.Commands {
			fmt.Fprintf(out, "  %s\n", c)
		}
		fmt.Fprintf(out, "To read the key, gw serve needs %s.\n", u.Needs)
		s.printNotes(opts.Options)
		if err := s.mgr.Ready(ctx); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "! %s\n", safetext.Text(cmdutil.ErrorWithFix(err)))
		}
		return nil
	}
	c, err := s.mgr.Install(ctx)
	if err != nil {
		return err
	}
	switch c.File {
	case "keep":
		fmt.Fprintf(out, "Kept %s: it is already what gw service install writes\n", u.Path)
	case "replace":
		fmt.Fprintf(out, "Rewrote %s (no secret in it)\n", u.Path)
	default:
		fmt.Fprintf(out, "Wrote %s (no secret in it)\n", u.Path)
	}
	for _, c := range c.Commands {
		fmt.Fprintf(out, "Ran: %s\n", c)
	}
	fmt.Fprintf(out, "gw serve now starts at login and runs: %s\n", commandLine(u))
	if u.Platform == autostart.Windows {
		fmt.Fprintln(out, "At logon its console window shows for a moment, then gw serve lets go of it (closing it does not stop gw serve); what gw serve says goes to its request log: gw logs")
	}
	fmt.Fprintf(out, "To read the key, gw serve needs %s. See it answer: gw service status\n", u.Needs)
	s.printNotes(opts.Options)
	return nil
}

// indent sets the file off from the sentences around it.
func indent(text string) string {
	var b []byte
	for i, line := range splitLines(text) {
		if i > 0 {
			b = append(b, '\n')
		}
		if line != "" {
			b = append(b, "    "...)
			b = append(b, line...)
		}
	}
	return string(b)
}
