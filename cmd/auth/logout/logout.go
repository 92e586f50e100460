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
)

// LogoutOptions holds the dependencies of `gw auth logout`.
type LogoutOptions struct {
	Factory *cmdutil.Factory
}

// NewCmdLogout binds the command; runF replaces the run in flag-parsing tests.
func NewCmdLogout(f *cmdutil.Factory, runF func(context.Context, *LogoutOptions) error) *cobra.Command {
	opts := &LogoutOptions{Factory: f}
	return &cobra.Command{
		Use:     "logout",
		Short:   "Remove the API key from the OS keychain (and the insecure file)",
		Example: `  gw auth logout`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return logoutRun(cmd.Context(), opts)
		},
	}
}

func logoutRun(ctx context.Context, opts *LogoutOptions) error {
	f := opts.Factory
	out, errOut := f.IOStreams.Out, f.IOStreams.ErrOut
	fileStore, err := f.FileStore()
	if err != nil {
		return err
	}
	c, paths, cfgErr := f.Config()
	insecure := cfgErr == nil && c.InsecureStorage
	removed := 0
	var failures []error
	// One deadline for every keychain call, naming the keychain in a message included.
	kr := f.Keychain(ctx)
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
	if f.Getenv("GW_API_KEY") != "" {
		fmt.Fprintln(errOut, "! GW_API_KEY is still set in this environment; gw uses it until you unset it.")
	}
	return errors.Join(failures...)
}
