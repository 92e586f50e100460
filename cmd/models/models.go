// Package models implements `gw models`.
package models

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/internal/tokens"
	"github.com/modelgateway/gw/tui"
)

// ModelsOptions holds the flags and dependencies of `gw models`.
type ModelsOptions struct {
	IO *tui.IOStreams
	// Models lists the account's models joined with the catalogue, for the --base-url given.
	Models func(ctx context.Context, baseURL string) ([]api.JoinedModel, error)

	BaseURL string
	JSON    bool
	Pick    bool
	Multi   bool
}

// NewCmdModels binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdModels(f *cmdutil.Factory, runF func(context.Context, *ModelsOptions) error) *cobra.Command {
	opts := &ModelsOptions{IO: f.IOStreams, Models: f.ListModels}
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the models your account can use",
		Long: `List the models your account can use, ids exactly as the service lists them.

Models of the built-in catalogue that your subscription does not include are listed after them,
marked as such. With --pick, an interactive picker prints the chosen id(s) to standard output.`,
		Example: `  gw models
  gw models --json
  id=$(gw models --pick)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Pick && opts.JSON {
				return cmdutil.FlagErrorf("--pick and --json cannot be used together")
			}
			if opts.Multi && !opts.Pick {
				return cmdutil.FlagErrorf("--multi goes with --pick")
			}
			return cmdutil.Run(cmd.Context(), runF, modelsRun, opts)
		},
	}
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL (overrides GW_BASE_URL and the config)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the models as JSON")
	cmd.Flags().BoolVar(&opts.Pick, "pick", false, "choose a model interactively and print its id")
	cmd.Flags().BoolVar(&opts.Multi, "multi", false, "with --pick: choose several models (tab toggles; space too while the filter is empty)")
	return cmd
}

func modelsRun(ctx context.Context, opts *ModelsOptions) error {
	ios := opts.IO
	// The picker draws on stderr and prints on stdout, so id=$(gw models --pick) works: stdout may be a pipe.
	if opts.Pick && !ios.CanPromptOnStderr() {
		return cmdutil.FlagErrorf("--pick needs a terminal; run gw models (or gw models --json) to list the ids instead")
	}
	entries, err := opts.Models(ctx, opts.BaseURL)
	if err != nil {
		return err
	}
	switch {
	case opts.JSON:
		return cmdutil.WriteJSON(ios.Out, struct {
			Models []api.JoinedModel `json:"models"`
		}{entries})
	case opts.Pick:
		return pick(ios, shown(entries), opts.Multi)
	}

	entries = shown(entries)
	if !ios.IsStdoutTTY() {
		// Piped: one model per line, tab-separated, no header, so `gw models | cut -f1` gives the ids.
		for _, e := range entries {
			fmt.Fprintf(ios.Out, "%s\t%s\t%d\t%s\n", e.ID, e.Name, e.Context, availability(e))
		}
		return nil
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCONTEXT\t")
	var missing []api.JoinedModel
	for _, e := range entries {
		if !e.InSubscription {
			missing = append(missing, e)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", e.ID, e.Name, tokens.Format(e.Context))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(missing) > 0 {
		ids := make([]string, 0, len(missing))
		for _, e := range missing {
			ids = append(ids, e.ID)
		}
		// Catalogue order, as in the piped and --json output.
		fmt.Fprintf(ios.Out, "\nNot in your subscription: %s\n", strings.Join(ids, ", "))
	}
	return nil
}

// shown is entries with the service's ids and names as a terminal shows them: any control character
// escaped.
func shown(entries []api.JoinedModel) []api.JoinedModel {
	for i := range entries {
		entries[i].ID, entries[i].Name = safetext.Line(entries[i].ID), safetext.Line(entries[i].Name)
	}
	return entries
}

func availability(e api.JoinedModel) string {
	if e.InSubscription {
		return "available"
	}
	return "not-in-subscription"
}

func pick(ios *tui.IOStreams, entries []api.JoinedModel, multi bool) error {
	items := make([]tui.PickItem, 0, len(entries))
	for _, e := range entries {
		it := tui.PickItem{ID: e.ID, Name: e.Name, Context: e.Context}
		if !e.InSubscription {
			it.Disabled, it.Reason = true, "not in your subscription"
		}
		items = append(items, it)
	}
	title := "Choose a model"
	if multi {
		title = "Choose models"
	}
	ids, err := tui.Pick(ios, tui.PickOptions{Title: title, Items: items, Multi: multi})
	if err != nil {
		return err // esc and ctrl-c are the TUI's errors, which exit 3 and 130
	}
	for _, id := range ids {
		fmt.Fprintln(ios.Out, id)
	}
	return nil
}
