// Package editor implements `gw init editor`: how to set up Cursor.
package editor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/tui"
)

// EditorOptions holds the flags and dependencies of `gw init editor`.
type EditorOptions struct {
	IO             *tui.IOStreams
	ResolveBaseURL func(flag string) (string, config.Source, error)
	// Models lists the account's models joined with the catalogue, for the --base-url given.
	Models func(ctx context.Context, baseURL string) ([]api.JoinedModel, error)

	JSON    bool
	BaseURL string
}

// Setup is what `gw init editor --json` prints.
type Setup struct {
	Editor     string   `json:"editor"`
	BaseURL    string   `json:"base_url"`
	KeyCommand string   `json:"api_key_command"`
	Models     []string `json:"models"`
	// ModelsFrom is "account" (the service's list for your key) or
	// "catalogue" (every model the service offers, when the list could not
	// be fetched).
	ModelsFrom string   `json:"models_from"`
	Steps      []string `json:"steps"`
	Warnings   []string `json:"warnings,omitempty"`
}

const keyCommand = "gw auth token"

// NewCmdEditor binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdEditor(f *cmdutil.Factory, runF func(context.Context, *EditorOptions) error) *cobra.Command {
	opts := &EditorOptions{IO: f.IOStreams, ResolveBaseURL: f.BaseURL, Models: f.ListModels}
	cmd := &cobra.Command{
		Use:   "editor",
		Short: "Print the Cursor settings for the gateway",
		Long: `Print, step by step, what to enter in Cursor's settings: the API key, the hosted base URL
and the model ids to add as custom models.

Cursor sends its requests from its own servers, not from your machine, so it needs the hosted
base URL; gw serve's localhost proxy cannot work for it. The model ids are your account's
(GET /models); when they cannot be fetched, the whole catalogue is listed and gw says so.`,
		Example: `  gw init editor
  gw init editor --json | jq -r '.models[]'`,
		Args: cobra.NoArgs,
		RunE: cmdutil.RunE(runF, editorRun, opts),
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the settings as JSON")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL (overrides GW_BASE_URL and the config)")
	return cmd
}

func editorRun(ctx context.Context, opts *EditorOptions) error {
	ios := opts.IO
	base, _, err := opts.ResolveBaseURL(opts.BaseURL)
	if err != nil {
		return err
	}
	s := Setup{Editor: "cursor", BaseURL: base, KeyCommand: keyCommand}
	if isLocal(base) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the base URL %s is on this machine; Cursor's servers cannot reach it, so use the service's hosted address instead", base))
	}

	entries, err := opts.Models(ctx, opts.BaseURL)
	if err == nil {
		s.Models = api.SubscribedIDs(entries)
		s.ModelsFrom = "account"
	} else {
		s.Models = api.CatalogIDs()
		s.ModelsFrom = "catalogue"
		s.Warnings = append(s.Warnings, fmt.Sprintf("could not fetch your account's models (%s); listing every model the service offers, some may not be in your subscription", firstLine(err)))
	}

	steps := cursorSteps(base, s.ModelsFrom == "account", s.Models)
	for _, st := range steps {
		s.Steps = append(s.Steps, st.text)
	}

	if opts.JSON {
		return cmdutil.WriteJSON(ios.Out, s)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", safetext.Line(w))
	}
	out := ios.Out
	fmt.Fprintln(out, "Set up Cursor for the Model Gateway Service:")
	fmt.Fprintln(out)
	for i, st := range steps {
		head := st.head
		if head == "" {
			head = st.text
		}
		fmt.Fprintf(out, "%d. %s\n", i+1, head)
		for _, l := range st.detail {
			fmt.Fprintln(out, l)
		}
	}
	return nil
}

// step is one instruction of the Cursor setup, in both of its forms, so
// that the text output and --json cannot list different steps.
type step struct {
	text   string   // the step on one line: --json's "steps"
	head   string   // the text output's first line, when it is not text
	detail []string // the text output's further lines, indented
}

// cursorSteps lists the setup steps. fromAccount says the models are the
// account's own (not the whole catalogue), which the text output words
// differently.
func cursorSteps(base string, fromAccount bool, models []string) []step {
	modelsHead := "Add the models you use as custom models (Models → + Add model), spelled exactly:"
	if fromAccount {
		modelsHead = "Add each model of your subscription as a custom model (Models → + Add model), spelled exactly:"
	}
	var modelLines []string
	for _, id := range models {
		modelLines = append(modelLines, "     "+id)
	}
	return []step{
		{text: "Open Cursor Settings → Models → API Keys."},
		{
			text: "In \"OpenAI API Key\", paste your API key and turn it on. Copy the key with: " + keyCommand + " | pbcopy (Linux: | xclip -selection clipboard, Windows: | clip)",
			head: "In \"OpenAI API Key\", paste your API key and turn it on. Copy the key with:",
			detail: []string{
				"     " + keyCommand + " | pbcopy                      (macOS)",
				"     " + keyCommand + " | xclip -selection clipboard  (Linux)",
				"     " + keyCommand + " | clip                        (Windows)",
			},
		},
		{
			text: "Turn on \"Override OpenAI Base URL\" and enter: " + base,
			head: "Turn on \"Override OpenAI Base URL\" and enter:",
			detail: []string{
				"     " + base,
				"   Use this hosted address, not gw serve's http://127.0.0.1: Cursor sends requests from its",
				"   own servers, which cannot reach localhost on your machine.",
			},
		},
		{
			text:   "Add each model id below as a custom model (Models → + Add model), spelled exactly as listed.",
			head:   modelsHead,
			detail: modelLines,
		},
		{text: "If Cursor reports an error, run: gw doctor"},
	}
}

// isLocal: an address only this machine can reach.
func isLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if config.IsLoopbackHost(host) || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

func firstLine(err error) string {
	msg := err.Error()
	var nk *cmdutil.NoKeyError
	if errors.As(err, &nk) {
		return nk.Msg
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return msg[:i]
	}
	return msg
}
