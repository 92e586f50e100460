// Package logout implements `gw auth logout`.
package logout

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/tui"
)

// LogoutOptions holds the dependencies of `gw auth logout`.
type LogoutOptions struct {
	IO        *tui.IOStreams
	Config    func() (config.File, config.Paths, error)
	Keychain  func(context.Context) keychain.Store
	FileStore func() (keychain.Store, error)
	Getenv    func(string) string
}

// NewCmdLogout binds the command; runF replaces the run in flag-parsing tests.
func NewCmdLogout(f *cmdutil.Factory, runF func(context.Context, *LogoutOptions) error) *cobra.Command {
	opts := &LogoutOptions{IO: f.IOStreams, Config: f.Config, Keychain: f.Keychain, FileStore: f.FileStore, Getenv: f.Getenv}
	return &cobra.Command{
		Use:     "logout",
		Short:   "Remove the API key from the OS keychain (and the insecure file)",
		Example: `  gw auth logout`,
		Args:    cobra.NoArgs,
		RunE:    cmdutil.RunE(runF, logoutRun, opts),
	}
}

func logoutRun(ctx context.Context, opts *LogoutOptions) error {
	out, errOut := opts.IO.Out, opts.IO.ErrOut
	fileStore, err := opts.FileStore()
	if err != nil {
		return err
	}
	c, paths, cfgErr := opts.Config()
	insecure := cfgErr == nil && c.InsecureStorage
	removed := 0
	var failures []error
	// One deadline for every keychain call, naming the keychain in a message included.
	kr := opts.Keychain(ctx)
	for _, s := range []keychain.Store{kr, fileStore} {
		err := s.Delete(cmdutil.Profile)
		switch {
		case err == nil:
			removed++
			fmt.Fprintf(out, "✓ Removed the key from %s\n", s.Backend())
		case errors.Is(err, keychain.ErrNotFound):
		case s == kr && insecure:
			// The user chose the file because this machine's keychain does not work: that it still does not
			// is no failure of logout, only a note.
			fmt.Fprintf(errOut, "! Could not check the OS keychain for a key: %v\n", err)
		default:
			failed := fmt.Errorf("could not remove the key from %s (a key stored there is still there): %w", s.Backend(), err)
			if s == kr {
				failed = remedy.With(failed, remedy.Remedy{Do: remedy.RetryKeychain})
			}
			failures = append(failures, failed)
		}
	}
	if insecure {
		if err := config.Update(paths.File(), func(c *config.File) error { c.InsecureStorage = false; return nil }); err != nil {
			failures = append(failures, err)
		}
	}
	if removed == 0 && len(failures) == 0 {
		fmt.Fprintln(out, "No key was stored.")
	}
	if opts.Getenv(keychain.EnvVar) != "" {
		fmt.Fprintln(errOut, "! GW_API_KEY is still set in this environment; gw uses it until you unset it.")
	}
	return errors.Join(failures...)
}
