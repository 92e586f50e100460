package root

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/secret"
)

// guardArgs wraps the argument check of every command in the tree so that a rejected argument is never
// echoed: people paste their API key as an argument (gw auth login sk-…), and an error message is copied
// into chats and issues. The root, unknown to cobra's checks, gets the same treatment, keeping its typo
// suggestions for arguments that cannot be a key.
func guardArgs(root *cobra.Command) {
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return unknownCommandError(cmd, args[0])
	}
	// A root with a run of its own is what lets cobra call root.Args; bare, gw still prints its help.
	root.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	wrapArgs(root)
}

func wrapArgs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if check := sub.Args; check != nil {
			// Asked once here, of the command's own check: does it refuse any argument at all?
			noArgs := check(sub, nil) == nil && check(sub, []string{"x"}) != nil
			sub.Args = func(cmd *cobra.Command, args []string) error {
				err := check(cmd, args)
				if err == nil {
					return nil
				}
				var hint *cmdutil.ArgsHint
				if errors.As(err, &hint) {
					return argsError(cmd, args, noArgs, hint.Hint)
				}
				return argsError(cmd, args, noArgs, "")
			}
		}
		wrapArgs(sub)
	}
}

// argsError is the usage error for arguments a command refused, naming none of them, with the command's
// own advice (cmdutil.NoArgs) after it.
func argsError(cmd *cobra.Command, args []string, noArgs bool, hint string) error {
	path := cmd.CommandPath()
	if cmd.HasSubCommands() && len(args) > 0 {
		return unknownCommandError(cmd, args[0])
	}
	var msg strings.Builder
	if noArgs {
		fmt.Fprintf(&msg, "%s takes no arguments; see: %s --help", path, path)
	} else {
		fmt.Fprintf(&msg, "%s does not take %d argument(s) here; see: %s --help", path, len(args), path)
	}
	if hint != "" {
		msg.WriteString("\n" + hint)
	}
	return &cmdutil.FlagError{Err: fmt.Errorf("%s", msg.String())}
}

// unknownCommandError names the unknown command, with cobra's "did you mean", unless it may be a secret.
func unknownCommandError(cmd *cobra.Command, name string) error {
	if mayBeSecret(name) {
		return &cmdutil.FlagError{Err: fmt.Errorf("unknown command (not shown, in case it is a secret) for %q; see: %s --help", cmd.CommandPath(), cmd.CommandPath())}
	}
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which it sets only on its own path
	}
	s := cmd.SuggestionsFor(name)
	if len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return &cmdutil.FlagError{Err: fmt.Errorf("%s", msg), Help: len(s) == 0}
}

// mayBeSecret is a deliberately simple guess at an API key: the service's keys start with "sk-", and no
// command name is anywhere near 20 characters long.
func mayBeSecret(s string) bool {
	return strings.HasPrefix(s, "sk-") || len(s) >= 20
}

// newHelpCmd replaces cobra's help command, which prints the root's usage and exits 0 for an unknown topic:
// here that is a usage error (exit 2) that points at the list of commands.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command: gw help <command> [<subcommand>].",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				shown := fmt.Sprintf("%q", topic)
				if slices.ContainsFunc(args, mayBeSecret) {
					shown = "(not shown, in case it is a secret)"
				}
				return cmdutil.FlagErrorf("unknown help topic %s; the topics are the commands listed by: gw --help", shown)
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	}
}

// flagError turns pflag's parse errors into gw's words, e.g. `invalid value "abc" for --port: want a
// number` instead of strconv's, without echoing a value that may be a key (--with-key=sk-…).
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) {
		fl := ive.GetFlag()
		shown := fmt.Sprintf("%q", ive.GetValue())
		if mayBeSecret(ive.GetValue()) {
			shown = "(not shown, in case it is a secret)"
		}
		want := cmp.Or(cmdutil.FlagWant(fl), wantFor(fl))
		if want == "" {
			want = redactSecrets(errors.Unwrap(err).Error())
		}
		return &cmdutil.FlagError{Err: fmt.Errorf("invalid value %s for --%s: %s", shown, fl.Name, want)}
	}
	return &cmdutil.FlagError{Err: errors.New(redactSecrets(err.Error())), Help: true}
}

// wantFor says what a flag of a built-in type accepts ("" for other types, whose own error says it).
func wantFor(fl *pflag.Flag) string {
	switch t := fl.Value.Type(); {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "want a number"
	case t == "bool":
		return "want true or false, or no value at all (--" + fl.Name + ")"
	case t == "duration":
		return "want a duration such as 30s, 2m or 1h"
	}
	return ""
}

// redactSecrets hides what may be an API key inside an error message (secret.Looks: the service's "sk-"
// keys, long runs of letters and digits).
func redactSecrets(s string) string {
	return secret.Redact(s, "", "(not shown, in case it is a secret)")
}
