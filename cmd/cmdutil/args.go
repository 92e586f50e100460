package cmdutil

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// gw's command tree (cmd/root) turns a refused argument or a bad flag value into a usage error that never
// echoes what was typed: people paste their API key where it does not belong. A command adds its own advice
// to those errors with NoArgs and SetFlagWant, next to its flags.

// ArgsHint is what a command's Args check returns (inside a FlagError) to add advice to the usage error gw
// makes of arguments it refused. It carries no argument.
type ArgsHint struct{ Hint string }

func (e *ArgsHint) Error() string { return "takes no arguments\n" + e.Hint }

// NoArgs is an Args check that refuses every argument; hint (given the command, so it can look at its
// flags) is the advice printed after "gw x takes no arguments".
func NoArgs(hint func(cmd *cobra.Command) string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return &FlagError{Err: &ArgsHint{Hint: hint(cmd)}}
	}
}

const flagWantAnnotation = "gw_flag_want"

// SetFlagWant says what the flag name accepts, for the usage error of a value it refused ("invalid value
// (not shown…) for --with-key: <want>"), instead of what its type accepts.
func SetFlagWant(flags *pflag.FlagSet, name, want string) {
	_ = flags.SetAnnotation(name, flagWantAnnotation, []string{want}) // fails only for a flag flags lacks
}

// FlagWant is what SetFlagWant set for fl ("" when nothing).
func FlagWant(fl *pflag.Flag) string {
	if w := fl.Annotations[flagWantAnnotation]; len(w) > 0 {
		return w[0]
	}
	return ""
}

// RunE is a command's RunE: run, or runF in its place when a flag-parsing test gives one.
func RunE[O any](runF, run func(context.Context, O) error, opts O) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error { return Run(cmd.Context(), runF, run, opts) }
}

// Run is run(ctx, opts), or runF's in its place when a flag-parsing test gives one.
func Run[O any](ctx context.Context, runF, run func(context.Context, O) error, opts O) error {
	if runF != nil {
		return runF(ctx, opts)
	}
	return run(ctx, opts)
}
