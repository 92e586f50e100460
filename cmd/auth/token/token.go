// Package token implements `gw auth token`.
package token

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/tui"
)

// TokenOptions holds the flags and dependencies of `gw auth token`.
type TokenOptions struct {
	IO  *tui.IOStreams
	Key func(context.Context, cmdutil.KeyOptions) (keychain.Resolved, error)

	// For --serve (serve.go).
	Config         func() (config.File, config.Paths, error)
	ResolveBaseURL func(flag string) (string, config.Source, error)
	// Probe is proxy.ProbeQuietly: an agent may run its credential command at every start.
	Probe func(ctx context.Context, addr, token string) error
	Start StartServe
	// StartWait and LockWait replace startWait and lockWait when set (tests).
	StartWait, LockWait time.Duration

	Show  bool
	Serve bool
}

// NewCmdToken binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdToken(f *cmdutil.Factory, runF func(context.Context, *TokenOptions) error) *cobra.Command {
	opts := &TokenOptions{IO: f.IOStreams, Key: f.Key, Config: f.Config, ResolveBaseURL: f.BaseURL, Probe: proxy.ProbeQuietly,
		Start: startDetached(os.Executable, os.Environ(), os.TempDir())}
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print the API key (for pasting into an editor's settings)",
		Long: `Print the API key to standard output, for pasting into an editor's settings.

It refuses to print to a terminal, where the key would stay in the scroll-back, unless --show
is given. Pipe it instead, e.g. gw auth token | pbcopy.

With --serve it prints gw serve's local token instead, never the key, once this install's
gw serve answers on the configured port: when none does, it starts one in the background (its
output goes to serve.log, which gw logs shows) and waits a few seconds for it. This is the
command gw init agent gives the agents that ask a command for their key (Claude Code's
apiKeyHelper, Codex's [model_providers.gw.auth]), so that gw serve starts when they do. When
gw serve cannot start (its port held by another program, no key stored, the keychain locked)
it says why and what to do on one line, and prints no token: a program other than this
install's gw serve on the port never gets it.`,
		Example: `  gw auth token | pbcopy
  gw auth token | xclip -selection clipboard
  gw auth token --show
  gw auth token --serve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Serve && opts.Show {
				return cmdutil.FlagErrorf("--show is for the key; --serve prints gw serve's local token, to a terminal too")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Serve {
				return serveTokenRun(cmd.Context(), opts)
			}
			return tokenRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Show, "show", false, "print the key even when standard output is a terminal")
	cmd.Flags().BoolVar(&opts.Serve, "serve", false, "print gw serve's local token instead, starting gw serve when it is not running (for agents' credential commands)")
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
