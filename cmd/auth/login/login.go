// Package login implements `gw auth login`.
package login

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/tui"
)

// ValidateTimeout bounds the check of the key against the service.
const ValidateTimeout = 15 * time.Second

// LoginOptions holds the flags and dependencies of `gw auth login`.
type LoginOptions struct {
	IO             *tui.IOStreams
	Config         func() (config.File, config.Paths, error)
	ResolveBaseURL func(flag string) (string, config.Source, error)
	API            func(baseURL, key string, timeout time.Duration) *api.Client
	Keychain       func(context.Context) keychain.Store
	FileStore      func() (keychain.Store, error)
	KeychainRemedy func(error) remedy.Remedy
	Getenv         func(string) string

	BaseURL         string
	WithKey         bool
	InsecureStorage bool
}

// NewCmdLogin binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdLogin(f *cmdutil.Factory, runF func(context.Context, *LoginOptions) error) *cobra.Command {
	opts := &LoginOptions{IO: f.IOStreams, Config: f.Config, ResolveBaseURL: f.BaseURL, API: f.APIClient,
		Keychain: f.Keychain, FileStore: f.FileStore, KeychainRemedy: f.KeychainRemedy, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Store your API key in the OS keychain",
		Long: `Store your API key in the OS keychain after checking it with the service.

The key is read from a hidden prompt, or from standard input with --with-key. Surrounding
whitespace, quotes and a pasted "Bearer " prefix are removed. The key is checked with
GET {base}/models before anything is stored; the base URL is saved in the config file.

On a machine with no keychain (headless Linux, WSL, containers), --insecure-storage keeps the
key in a file readable only by you. gw never falls back to that on its own.`,
		Example: `  gw auth login --base-url https://gateway.example.com/v1
  gw auth login --with-key < key.txt`,
		Args: cmdutil.NoArgs(argsHint),
		RunE: cmdutil.RunE(runF, loginRun, opts),
	}
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL, ending in /v1")
	cmd.Flags().BoolVar(&opts.WithKey, "with-key", false, "read the key from standard input")
	cmd.Flags().BoolVar(&opts.InsecureStorage, "insecure-storage", false, "store the key in a plain file (0600) instead of the OS keychain")
	cmdutil.SetFlagWant(cmd.Flags(), "with-key", "it takes no value: it reads the key from standard input, e.g. gw auth login --with-key < key.txt")
	return cmd
}

// argsHint follows "gw auth login takes no arguments": the argument was most likely the key.
func argsHint(cmd *cobra.Command) string {
	var hint strings.Builder
	if f := cmd.Flags().Lookup("with-key"); f != nil && f.Changed {
		hint.WriteString("--with-key takes no value: it reads the key from standard input.\n")
	}
	hint.WriteString("To give the key without the prompt, pipe it: gw auth login --with-key < key.txt\n")
	hint.WriteString("If that argument was your key, it is now in your shell history: remove it from there, and consider rotating the key on the dashboard.")
	return hint.String()
}

func loginRun(ctx context.Context, opts *LoginOptions) error {
	ios := opts.IO

	base, src, err := opts.ResolveBaseURL(opts.BaseURL)
	if err != nil {
		return err
	}

	raw, err := readKey(opts)
	if err != nil {
		return err
	}
	key, err := keychain.Sanitize(raw)
	if err != nil {
		if errors.Is(err, keychain.ErrEmptyKey) {
			return &cmdutil.NoKeyError{Msg: "no key given: paste it at the prompt, or pipe it with --with-key"}
		}
		return err
	}

	stop := ios.StartSpinner("Checking the key with " + safetext.Line(base))
	vctx, cancel := context.WithTimeout(ctx, ValidateTimeout)
	models, err := opts.API(base, key, 0).Models(vctx)
	cancel()
	stop()
	if err != nil {
		return fmt.Errorf("nothing stored: %w", refused(err, key, src))
	}

	_, paths, err := opts.Config()
	if err != nil {
		return err
	}
	backend, err := store(ctx, opts, key)
	if err != nil {
		// The service accepted the key at this base URL: keep the address,
		// so that the command the fix names works as printed.
		if src == config.SourceFlag {
			if uerr := config.Update(paths.File(), func(c *config.File) error {
				c.BaseURL = base
				return nil
			}); uerr == nil {
				err = fmt.Errorf("%w\n(the key was accepted by %s, and that base URL is saved)", err, base)
			}
		}
		return err
	}
	if err := config.Update(paths.File(), func(c *config.File) error {
		c.BaseURL = base
		c.InsecureStorage = opts.InsecureStorage
		return nil
	}); err != nil {
		return fmt.Errorf("the key is stored, but the base URL could not be saved: %w", err)
	}
	if _, err := config.EnsureLocalToken(paths.File()); err != nil {
		return err
	}

	// The base URL and the store's name come from the user's flags, config and environment: their control
	// characters are shown escaped.
	out := safetext.NewWriter(ios.Out)
	defer out.Flush()
	fmt.Fprintf(out, "✓ Key %s accepted by %s (%d models available)\n", keychain.Mask(key), base, len(models))
	fmt.Fprintf(out, "✓ Key stored in %s\n", backend)
	if opts.InsecureStorage {
		fmt.Fprintf(ios.ErrOut, "! The key is in a plain file readable by your user. Prefer the OS keychain where there is one.\n")
	}
	if opts.Getenv(keychain.EnvVar) != "" {
		fmt.Fprintf(ios.ErrOut, "! GW_API_KEY is set in this environment and takes precedence over the stored key.\n")
	}
	return nil
}

// refused is the error for a key the service did not accept. When it may be the key itself that is wrong,
// it shows which key was tried (masked) and puts the likeliest cause first: a character lost or added in
// pasting, which a new key from the dashboard would not fix.
func refused(err error, key string, src config.Source) error {
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Condition != api.KeyRejected || ae.Kind == api.KindNoBalance || ae.Fix.IsZero() {
		return cmdutil.WithFixFrom(err, src, "")
	}
	tried := fmt.Errorf("%w\nkey tried: %s (%d characters)", err, keychain.Mask(key), utf8.RuneCountInString(key))
	return cmdutil.WithFixFrom(remedy.With(tried, remedy.Remedy{Do: remedy.CheckPaste, Then: []remedy.Remedy{ae.Fix}}), src, "")
}

func readKey(opts *LoginOptions) (string, error) {
	ios := opts.IO
	if opts.WithKey {
		b, err := io.ReadAll(io.LimitReader(ios.In, 64<<10))
		if err != nil {
			return "", fmt.Errorf("reading the key from standard input: %w", err)
		}
		return string(b), nil
	}
	if !ios.CanPrompt() {
		return "", &cmdutil.NoKeyError{Msg: "no key given: not running interactively, so pipe the key with --with-key (gw auth login --with-key < key.txt)"}
	}
	// ctrl-c at the prompt is tui.ErrInterrupted, exit 130 (the terminal is already restored).
	return ios.ReadSecret("Paste your API key (input is hidden): ")
}

// store writes the key to the chosen store and returns that store's name. A key stored in the keychain
// replaces one left in the insecure file, so no stale copy lingers on disk.
func store(ctx context.Context, opts *LoginOptions, key string) (string, error) {
	fileStore, err := opts.FileStore()
	if err != nil {
		return "", err
	}
	if opts.InsecureStorage {
		if err := fileStore.Set(cmdutil.Profile, key); err != nil {
			return "", fmt.Errorf("storing the key in %s: %w", fileStore.Backend(), err)
		}
		return fileStore.Backend(), nil
	}
	// One deadline for every keychain call, naming the keychain in a message included.
	kr := opts.Keychain(ctx)
	if err := kr.Set(cmdutil.Profile, key); err != nil {
		return "", remedy.With(fmt.Errorf("could not store the key in the OS keychain (%s): %w", kr.Backend(), err), opts.KeychainRemedy(err))
	}
	if err := fileStore.Delete(cmdutil.Profile); err != nil && !errors.Is(err, keychain.ErrNotFound) {
		fmt.Fprintf(opts.IO.ErrOut, "! %s\n", safetext.Line(fmt.Sprintf("could not remove the old key from %s: %v", fileStore.Backend(), err)))
	}
	return kr.Backend(), nil
}
