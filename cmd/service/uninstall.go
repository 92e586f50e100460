package service

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/safetext"
)

// UninstallOptions holds the dependencies of `gw service uninstall`.
type UninstallOptions struct {
	*Options
}

// NewCmdUninstall binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdUninstall(f *cmdutil.Factory, runF func(context.Context, *UninstallOptions) error) *cobra.Command {
	opts := &UninstallOptions{Options: defaults(f)}
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Stop gw serve and no longer start it at login",
		Long: `Stop gw serve, disable it, and remove the file gw service install wrote. A file of that name gw did
not write, or one changed since, is left as it is. Nothing installed is not an error.`,
		Example: `  gw service uninstall`,
		Args:    cobra.NoArgs,
		RunE:    cmdutil.RunE(runF, uninstallRun, opts),
	}
}

func uninstallRun(ctx context.Context, opts *UninstallOptions) error {
	s, err := opts.setup()
	if err != nil {
		return err
	}
	// Paths and commands hold the user's home and gw's path: their control characters are shown escaped.
	out := safetext.NewWriter(opts.IO.Out)
	defer out.Flush()
	u := s.mgr.Unit
	c, err := s.mgr.Uninstall(ctx)
	if err != nil {
		return err
	}
	if c.File == "none" {
		fmt.Fprintf(out, "Nothing to remove: gw serve is not set to start at login (there is no %s)\n", u.Path)
		return nil
	}
	for _, cmd := range c.Commands {
		fmt.Fprintf(out, "Ran: %s\n", cmd)
	}
	fmt.Fprintf(out, "Removed %s\n", u.Path)
	for _, cmd := range c.After {
		fmt.Fprintf(out, "Ran: %s\n", cmd)
	}
	fmt.Fprintln(out, "gw serve no longer starts at login")
	return nil
}
