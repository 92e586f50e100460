// Package version implements `gw version`.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/build"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/tui"
)

type VersionOptions struct {
	IO   *tui.IOStreams
	Info func() build.Details

	JSON bool
}

func NewCmdVersion(f *cmdutil.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{
		IO:   f.IOStreams,
		Info: f.BuildInfo,
	}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Show gw's version and the service it talks to by default",
		Long: `Show gw's version, the commit and date it was built from, and the base URL
of the hosted service that this build uses when none is configured.

The default base URL is set when gw is released; --base-url, GW_BASE_URL and the
config file (written by gw auth login) take precedence over it.`,
		Example: `  $ gw version
  $ gw version --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "Print the version details as JSON")
	return cmd
}

func versionRun(opts *VersionOptions) error {
	d := opts.Info()
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, d)
	}
	base := d.DefaultBaseURL
	if base == "" {
		base = "none (set one with gw auth login --base-url URL)"
	}
	_, err := fmt.Fprintf(opts.IO.Out, "gw version %s\ndefault base URL: %s\n", d, base)
	return err
}
