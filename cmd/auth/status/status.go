// Package status implements `gw auth status`.
package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/tui"
)

// CheckTimeout bounds the check of the key against the service.
const CheckTimeout = 15 * time.Second

// StatusOptions holds the flags and dependencies of `gw auth status`.
type StatusOptions struct {
	IO             *tui.IOStreams
	Config         func() (config.File, config.Paths, error)
	ResolveBaseURL func(flag string) (string, config.Source, error)
	Key            func(context.Context, cmdutil.KeyOptions) (keychain.Resolved, error)
	API            func(baseURL, key string, timeout time.Duration) *api.Client
	KeychainRemedy func(error) remedy.Remedy

	BaseURL string
	JSON    bool
}

// Report is what `gw auth status --json` prints.
type Report struct {
	BaseURL       string     `json:"base_url"`
	BaseURLSource string     `json:"base_url_source,omitempty"`
	KeySource     string     `json:"key_source,omitempty"`
	KeyBackend    string     `json:"key_backend,omitempty"`
	Key           string     `json:"key,omitempty"` // masked
	Accepted      bool       `json:"accepted"`
	Models        int        `json:"models,omitempty"`
	LocalToken    string     `json:"local_token,omitempty"`
	Error         *ErrorInfo `json:"error,omitempty"`
}

// ErrorInfo explains why the status is not good.
type ErrorInfo struct {
	Condition string `json:"condition,omitempty"`
	Message   string `json:"message"`
	Cause     string `json:"cause,omitempty"`
	Fix       string `json:"fix,omitempty"`
}

// NewCmdStatus binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdStatus(f *cmdutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IOStreams, Config: f.Config, ResolveBaseURL: f.BaseURL, Key: f.Key,
		API: f.APIClient, KeychainRemedy: f.KeychainRemedy}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the base URL, where the key comes from, and whether the service accepts it",
		Example: `  gw auth status
  gw auth status --json
  gw auth status --base-url https://gateway.example.com/v1`,
		Args: cobra.NoArgs,
		RunE: cmdutil.RunE(runF, statusRun, opts),
	}
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL, ending in /v1 (default: GW_BASE_URL, then the config file)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	return cmd
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	// A malformed --base-url is a usage error (exit 2), as in every command, not a status to report.
	if _, _, err := opts.ResolveBaseURL(opts.BaseURL); cmdutil.ExitCodeFor(err) == cmdutil.ExitUsage {
		return err
	}
	rep := collect(ctx, opts)
	if opts.JSON {
		if err := cmdutil.WriteJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		show(opts.IO.Out, rep)
	}
	if rep.Error != nil {
		return cmdutil.ErrSilent
	}
	return nil
}

func collect(ctx context.Context, opts *StatusOptions) Report {
	var rep Report
	// Fixes are said for where the base URL and the key came from.
	say := render.Context{Where: render.Command}
	fail := func(msg, cause, fix string) {
		if rep.Error == nil {
			rep.Error = &ErrorInfo{Message: msg, Cause: cause, Fix: fix}
		}
	}

	if c, _, err := opts.Config(); err != nil {
		fix, ok := remedy.Of(err)
		if !ok {
			fix = remedy.Remedy{Do: remedy.Say, Value: "fix or remove the file named above"}
		}
		fail("the config file could not be read", err.Error(), render.Text(fix, say))
	} else {
		// Read only: the token is created where it is first needed (gw serve, gw init agent, gw auth login).
		rep.LocalToken = c.LocalToken
	}

	base, src, baseErr := opts.ResolveBaseURL(opts.BaseURL)
	rep.BaseURL, rep.BaseURLSource = base, string(src)
	say.BaseURL = src.Fix()
	if baseErr != nil {
		fix := remedy.Remedy{Do: remedy.SetBaseURL}
		var bp *config.BaseURLProblem
		if errors.As(baseErr, &bp) {
			fix.Value = bp.Fixed
		}
		fail("the base URL is not usable", baseErr.Error(), render.Text(fix, say))
	}

	key, keyErr := opts.Key(ctx, cmdutil.KeyOptions{})
	if keyErr != nil {
		// The key's error says its fix for where the key is kept (cmdutil.FixFor).
		var nk *cmdutil.NoKeyError
		fix := cmdutil.FixFor(keyErr)
		switch {
		case errors.As(keyErr, &nk) && fix != "":
			fail("no API key", nk.Msg, fix)
		case errors.As(keyErr, &nk):
			fail("no API key", "no key in GW_API_KEY, the OS keychain or the insecure file", render.Text(remedy.Remedy{Do: remedy.StoreKey}, say))
		case fix != "":
			fail("the API key could not be read", keyErr.Error(), fix)
		default:
			fail("the API key could not be read", keyErr.Error(), render.Text(opts.KeychainRemedy(keyErr), say))
		}
	} else {
		rep.KeySource, rep.KeyBackend, rep.Key = string(key.Source), key.Backend, keychain.Mask(key.Key)
		say.Key = key.Source.Fix()
	}

	if baseErr == nil && keyErr == nil {
		cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
		defer cancel()
		stop := opts.IO.StartSpinner("Checking the key with " + base)
		models, err := opts.API(base, key.Key, 0).Models(cctx)
		stop()
		var ae *api.Error
		switch {
		case err == nil:
			rep.Accepted, rep.Models = true, len(models)
		case errors.As(err, &ae):
			rep.Error = &ErrorInfo{Condition: string(ae.Condition), Message: messageOf(ae), Cause: ae.Cause, Fix: render.Text(ae.Fix, say)}
		default:
			fail("the service could not be asked", err.Error(), render.Text(remedy.Remedy{Do: remedy.RunDoctor}, say))
		}
	}
	return rep
}

func messageOf(ae *api.Error) string {
	if ae.Condition != "" {
		return ae.Condition.Message()
	}
	return "the service answered with an error"
}

func show(w io.Writer, rep Report) {
	// The service's words and the base URL as given are shown with their control characters escaped.
	out := safetext.NewWriter(w)
	defer out.Flush()
	val := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	src := ""
	if rep.BaseURLSource != "" {
		src = " (from " + rep.BaseURLSource + ")"
	}
	fmt.Fprintf(out, "Base URL:    %s%s\n", val(rep.BaseURL, "none"), src)
	if rep.Key != "" {
		fmt.Fprintf(out, "API key:     %s from %s\n", rep.Key, keySourceText(rep))
	} else {
		fmt.Fprintf(out, "API key:     none\n")
	}
	switch {
	case rep.Accepted:
		fmt.Fprintf(out, "Service:     ✓ key accepted (%d models available)\n", rep.Models)
	case rep.Error != nil:
		fmt.Fprintf(out, "Service:     ✗ %s\n", rep.Error.Message)
		if rep.Error.Cause != "" {
			fmt.Fprintf(out, "  cause: %s\n", rep.Error.Cause)
		}
		if rep.Error.Fix != "" {
			fmt.Fprintf(out, "  fix:   %s\n", rep.Error.Fix)
		}
	}
	if rep.LocalToken == "" {
		fmt.Fprintf(out, "Local token: none yet (gw serve or gw init agent creates one)\n")
	} else {
		fmt.Fprintf(out, "Local token: %s (for gw serve clients)\n", rep.LocalToken)
	}
}

func keySourceText(rep Report) string {
	switch keychain.Source(rep.KeySource) {
	case keychain.SourceEnv:
		return "GW_API_KEY"
	default:
		return rep.KeyBackend
	}
}
