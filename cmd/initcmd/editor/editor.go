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
	"github.com/modelgateway/gw/cmd/models"
)

// EditorOptions holds the flags and dependencies of `gw init editor`.
type EditorOptions struct {
	Factory *cmdutil.Factory
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
	opts := &EditorOptions{Factory: f}
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return editorRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the settings as JSON")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL (overrides GW_BASE_URL and the config)")
	return cmd
}

func editorRun(ctx context.Context, opts *EditorOptions) error {
	f := opts.Factory
	ios := f.IOStreams
	base, _, err := f.BaseURL(opts.BaseURL)
	if err != nil {
		return err
	}
	s := Setup{Editor: "cursor", BaseURL: base, KeyCommand: keyCommand}
	if isLocal(base) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the base URL %s is on this machine; Cursor's servers cannot reach it, so use the service's hosted address instead", base))
	}

	entries, err := models.List(ctx, f, opts.BaseURL)
	if err == nil {
		for _, e := range entries {
			if e.InSubscription {
				s.Models = append(s.Models, e.ID)
			}
		}
		s.ModelsFrom = "account"
	} else {
		s.Models = api.CatalogIDs()
		s.ModelsFrom = "catalogue"
		s.Warnings = append(s.Warnings, fmt.Sprintf("could not fetch your account's models (%s); listing every model the service offers, some may not be in your subscription", firstLine(err)))
	}

	s.Steps = []string{
		"Open Cursor Settings → Models → API Keys.",
		"In \"OpenAI API Key\", paste your API key and turn it on. Copy the key with: " + keyCommand + " | pbcopy (Linux: | xclip -selection clipboard, Windows: | clip)",
		"Turn on \"Override OpenAI Base URL\" and enter: " + base,
		"Add each model id below as a custom model (Models → + Add model), spelled exactly as listed.",
		"If Cursor reports an error, run: gw doctor",
	}

	if opts.JSON {
		return cmdutil.WriteJSON(ios.Out, s)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
	}
	out := ios.Out
	fmt.Fprintln(out, "Set up Cursor for the Model Gateway Service:")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "1. Open Cursor Settings → Models → API Keys.")
	fmt.Fprintln(out, "2. In \"OpenAI API Key\", paste your API key and turn it on. Copy the key with:")
	fmt.Fprintln(out, "     "+keyCommand+" | pbcopy                      (macOS)")
	fmt.Fprintln(out, "     "+keyCommand+" | xclip -selection clipboard  (Linux)")
	fmt.Fprintln(out, "     "+keyCommand+" | clip                        (Windows)")
	fmt.Fprintln(out, "3. Turn on \"Override OpenAI Base URL\" and enter:")
	fmt.Fprintln(out, "     "+base)
	fmt.Fprintln(out, "   Use this hosted address, not gw serve's http://127.0.0.1: Cursor sends requests from its")
	fmt.Fprintln(out, "   own servers, which cannot reach localhost on your machine.")
	if s.ModelsFrom == "account" {
		fmt.Fprintln(out, "4. Add each model of your subscription as a custom model (Models → + Add model), spelled exactly:")
	} else {
		fmt.Fprintln(out, "4. Add the models you use as custom models (Models → + Add model), spelled exactly:")
	}
	for _, id := range s.Models {
		fmt.Fprintln(out, "     "+id)
	}
	fmt.Fprintln(out, "5. If Cursor reports an error, run: gw doctor")
	return nil
}

// isLocal: an address only this machine can reach.
func isLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
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
