// Package token implements `gw auth token`.
package token

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/tui"
)

// TokenOptions holds the flags and dependencies of `gw auth token`.
type TokenOptions struct {
	IO  *tui.IOStreams
	Key func(context.Context, cmdutil.KeyOptions) (keychain.Resolved, error)

	Show bool
}

// NewCmdToken binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdToken(f *cmdutil.Factory, runF func(context.Context, *TokenOptions) error) *cobra.Command {
	opts := &TokenOptions{IO: f.IOStreams, Key: f.Key}
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print the API key (for pasting into an editor's settings)",
		Long: `Print the API key to standard output, for pasting into an editor's settings.

It refuses to print to a terminal, where the key would stay in the scroll-back, unless --show
is given. Pipe it instead, e.g. gw auth token | pbcopy.`,
		Example: `  gw auth token | pbcopy
  gw auth token | xclip -selection clipboard
  gw auth token --show`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return tokenRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Show, "show", false, "print the key even when standard output is a terminal")
	return cmd
}

func tokenRun(ctx context.Context, opts *TokenOptions) error {
	if opts.IO.IsStdoutTTY() && !opts.Show {
		return errors.New("refusing to print the key to a terminal: pipe it (gw auth token | pbcopy) or pass --show")
	}
	k, err := opts.Key(ctx, cmdutil.KeyOptions{})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(opts.IO.Out, k.Key)
	return err
}
