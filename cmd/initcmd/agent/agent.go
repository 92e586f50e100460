// Package agent implements `gw init agent`: the gw provider in OpenCode's config.
package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config/opencode"
	"github.com/modelgateway/gw/tui"
)

const (
	ModeProxy  = "proxy"
	ModeDirect = "direct"

	// ProviderName is the display name OpenCode shows for our provider.
	ProviderName = "Model Gateway"
	// KeyEnvRef is what direct mode writes as the API key: OpenCode reads
	// the key from the environment, so it never lands in the file.
	KeyEnvRef = "{env:GW_API_KEY}"

	// Limits for a model the service lists but the built-in catalogue does
	// not know: small enough that OpenCode compacts early rather than late.
	fallbackContext = 128_000
	fallbackOutput  = 16_384
)

// AgentOptions holds the flags and dependencies of `gw init agent`.
type AgentOptions struct {
	Factory *cmdutil.Factory

	Project    bool
	Mode       string
	Models     []string
	Default    string
	SmallModel string
	DryRun     bool
	Yes        bool
	BaseURL    string
	Port       int

	// Pick shows the model picker; tests replace it.
	Pick func(*tui.IOStreams, tui.PickOptions) ([]string, error)
}

// NewCmdAgent binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdAgent(f *cmdutil.Factory, runF func(context.Context, *AgentOptions) error) *cobra.Command {
	opts := &AgentOptions{Factory: f, Pick: tui.Pick}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Add the gateway's models to OpenCode's config",
		Long: `Add the gateway as a provider to OpenCode's config, with the models of your subscription.

The global config is used ($XDG_CONFIG_HOME/opencode/opencode.jsonc, or opencode.json if that is
the one you have); with --project, the one in the current directory. The file is merged, never
rewritten: comments, order, spacing and other providers stay as they are, and the previous
content is kept beside it as <file>.bak, readable only by you (delete it once the new config
works if the old one held your key). A file that does not parse is left untouched. Where
opencode.json and opencode.jsonc are both present, OpenCode reads both and lets opencode.jsonc win
key by key: gw writes opencode.jsonc and warns when opencode.json also configures provider "gw".

Modes:
  proxy   (default) OpenCode talks to gw serve on 127.0.0.1, which adds your key to each
          request; the file holds only gw serve's local token.
  direct  OpenCode talks to the service itself and reads the key from GW_API_KEY; the key
          is never written to the file.

Running it again refreshes the models to your current subscription and reports the ids added
and removed. "model" and "small_model" change only when you pass --default (or choose one in
the picker).`,
		Example: `  gw init agent
  gw init agent --models vendor-a/model-a-sonnet-4.6,vendor-a/model-a-haiku-4.5 --default vendor-a/model-a-sonnet-4.6
  gw init agent --models all --mode direct --dry-run
  gw init agent --project --models all --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Mode != ModeProxy && opts.Mode != ModeDirect {
				return cmdutil.FlagErrorf("--mode must be %q or %q, not %q", ModeProxy, ModeDirect, opts.Mode)
			}
			ids, err := parseIDs(opts.Models)
			if err != nil {
				return err
			}
			opts.Models = ids
			if cmd.Flags().Changed("port") && opts.Mode == ModeDirect {
				return cmdutil.FlagErrorf("--port is for --mode proxy (gw serve's port); direct mode uses the hosted base URL")
			}
			if cmd.Flags().Changed("port") && (opts.Port < 1 || opts.Port > 65535) {
				return cmdutil.FlagErrorf("--port must be between 1 and 65535, not %d", opts.Port)
			}
			if opts.SmallModel != "" && opts.Default == "" {
				return cmdutil.FlagErrorf("--small-model goes with --default")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return agentRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Project, "project", false, "write ./opencode.json(c) instead of the global config")
	cmd.Flags().StringVar(&opts.Mode, "mode", ModeProxy, "proxy (through gw serve) or direct (to the service, key from GW_API_KEY)")
	cmd.Flags().StringSliceVar(&opts.Models, "models", nil, "model ids to add, comma-separated, or \"all\" (default: choose in a picker)")
	cmd.Flags().StringVar(&opts.Default, "default", "", "set OpenCode's \"model\" (and \"small_model\") to this id")
	cmd.Flags().StringVar(&opts.SmallModel, "small-model", "", "with --default: set \"small_model\" to this id instead")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the change as a unified diff and write nothing")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "write without asking for confirmation")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL (overrides GW_BASE_URL and the config)")
	cmd.Flags().IntVar(&opts.Port, "port", 0, "gw serve's port for --mode proxy, saved in gw's config (default: the configured port, else 8787)")
	_ = cmd.RegisterFlagCompletionFunc("mode", cmdutil.CompleteWords(
		[2]string{ModeProxy, "through gw serve on localhost; the key stays in the keychain"},
		[2]string{ModeDirect, "straight to the service; the key comes from GW_API_KEY"},
	))
	_ = cmd.RegisterFlagCompletionFunc("models", cmdutil.CompleteModelList)
	_ = cmd.RegisterFlagCompletionFunc("default", cmdutil.CompleteModelID)
	_ = cmd.RegisterFlagCompletionFunc("small-model", cmdutil.CompleteModelID)
	return cmd
}

func parseIDs(raw []string) ([]string, error) {
	var ids []string
	for _, r := range raw {
		id := strings.TrimSpace(r)
		if id == "" {
			return nil, cmdutil.FlagErrorf("--models has an empty entry; give ids separated by commas, e.g. --models vendor-a/model-a-sonnet-4.6,vendor-a/model-a-haiku-4.5")
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if slices.Contains(ids, "all") && len(ids) > 1 {
		return nil, cmdutil.FlagErrorf("--models all cannot be combined with other ids")
	}
	return ids, nil
}

// agentRun works in three steps: plan (choose the models, build the provider, merge it into OpenCode's
// config, collect what gw's own config must gain), render (the diff or the summary, and the question),
// apply (write OpenCode's config, then update gw's in one go).
func agentRun(ctx context.Context, opts *AgentOptions) error {
	f := opts.Factory
	ios := f.IOStreams
	if len(opts.Models) == 0 && !ios.CanPromptOnStderr() {
		return cmdutil.FlagErrorf("--models required when not running interactively (e.g. --models all, or ids from gw models)")
	}

	baseURL, _, err := f.BaseURL(opts.BaseURL)
	if err != nil {
		return err
	}
	entries, err := f.ListModels(ctx, baseURL)
	if err != nil {
		return err
	}
	if len(api.SubscribedIDs(entries)) == 0 {
		return errors.New("the service lists no models for this account; check the subscription on the dashboard")
	}
	path, err := configPath(f, opts.Project)
	if err != nil {
		return err
	}

	// Another gw init agent writing the same file at the same time must not merge into the content this one
	// read: the lock makes the second merge into the first one's result. A run that asks nothing holds it
	// from the read to the write (and the saving of gw serve's token and port); one that shows the picker or
	// asks to confirm takes it only to write, and Write refuses if the file changed meanwhile (the user
	// approved a diff of what they saw).
	lock := &configLock{path: path}
	defer lock.release()
	asks := len(opts.Models) == 0 || (ios.CanPrompt() && !opts.Yes)
	if !opts.DryRun && !asks {
		if err := lock.take(); err != nil {
			return err
		}
	}

	p, err := makePlan(opts, path, baseURL, entries)
	if err != nil {
		return err
	}

	out, errOut := ios.Out, ios.ErrOut
	for _, n := range p.notes {
		fmt.Fprintln(errOut, n)
	}
	switch {
	case !p.file.result.Changed:
		return upToDate(ios, opts, p)
	case opts.DryRun:
		fmt.Fprint(out, p.file.diff())
		printSummary(errOut, p.file.result)
		if p.gw.port != 0 {
			fmt.Fprintf(errOut, "note: a real run also saves port %d in gw's config, so that gw serve listens there\n", p.gw.port)
		}
		fmt.Fprintln(errOut, "dry run: nothing was written")
		return nil
	case ios.CanPrompt() && !opts.Yes:
		fmt.Fprint(out, p.file.diff())
		ok, err := confirm(ios.In, out, fmt.Sprintf("Write these changes to %s? [Y/n] ", p.file.path))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(errOut, "nothing was written")
			return cmdutil.ErrCancel
		}
	}

	if err := lock.take(); err != nil {
		return err
	}
	w, err := p.apply()
	if err != nil {
		return err
	}
	report(ios, opts, p, w)
	return nil
}

// configPath is OpenCode's config that gw init agent writes: the global one, or with --project the one in
// the working directory.
func configPath(f *cmdutil.Factory, project bool) (string, error) {
	wd, err := f.WorkDir()
	if err != nil {
		return "", err
	}
	scope := opencode.Global
	if project {
		scope = opencode.Project
	}
	loc, err := opencode.Find(scope, f.Getenv, wd)
	if err != nil {
		return "", err
	}
	return loc.Path, nil
}

// configLock is opencode.Lock on OpenCode's config, held from the first take to release.
type configLock struct {
	path string
	held func()
}

func (l *configLock) take() error {
	if l.held != nil {
		return nil
	}
	release, err := opencode.Lock(l.path)
	if err != nil {
		return fmt.Errorf("%w\n(nothing was changed)", err)
	}
	l.held = release
	return nil
}

func (l *configLock) release() {
	if l.held != nil {
		l.held()
		l.held = nil
	}
}

// upToDate is the end of a run that leaves OpenCode's config as it is. OpenCode's config may already point
// at --port (an earlier run that did not save it, or a hand edit): gw's config should agree with it.
func upToDate(ios *tui.IOStreams, opts *AgentOptions, p *plan) error {
	fmt.Fprintf(ios.Out, "%s is already up to date: provider %q with %s; nothing changed\n", p.file.path, p.provider.ID, countModels(len(p.provider.Models)))
	switch {
	case p.gw.port == 0:
	case opts.DryRun:
		fmt.Fprintf(ios.ErrOut, "note: a real run saves port %d in gw's config, so that gw serve listens there\n", p.gw.port)
	default:
		// Only the port: a new token would have changed OpenCode's config.
		if err := (gwChange{file: p.gw.file, port: p.gw.port}).save(); err != nil {
			return fmt.Errorf("gw serve's port was not saved: %w", err)
		}
		fmt.Fprintf(ios.Out, "gw serve will listen on port %d (saved in gw's config)\n", p.gw.port)
		fmt.Fprintln(ios.Out, "Next: run gw serve, or restart it if it runs on another port")
	}
	return nil
}

// report says what was written, and what to do next.
func report(ios *tui.IOStreams, opts *AgentOptions, p *plan, w opencode.Written) {
	out, errOut := ios.Out, ios.ErrOut
	verb := "Updated"
	if !p.file.exists {
		verb = "Created"
	}
	fmt.Fprintf(out, "%s %s: provider %q with %s\n", verb, w.Path, p.provider.ID, countModels(len(p.provider.Models)))
	printSummary(out, p.file.result)
	if w.Backup != "" {
		fmt.Fprintf(out, "Previous version kept in %s\n", w.Backup)
		if ids := literalKeysRemoved(p.file.old, p.file.result.Data); len(ids) > 0 {
			fmt.Fprintf(errOut, "warning: %s holds the previous config, with the API key of provider %s in plain text (readable only by you); once OpenCode works with the new config, delete it: rm %s\n",
				w.Backup, quoteList(ids), opencode.ShellQuote(w.Backup))
		}
	}
	if p.def != "" {
		fmt.Fprintf(out, "OpenCode's model: %s/%s (small model: %s/%s)\n", p.provider.ID, p.def, p.provider.ID, p.small)
	}
	switch opts.Mode {
	case ModeProxy:
		if p.gw.port != 0 {
			fmt.Fprintf(out, "gw serve will listen on port %d (saved in gw's config)\n", p.gw.port)
		}
		fmt.Fprintf(out, "Next: run gw serve (OpenCode reaches the service through %s)\n", p.provider.BaseURL)
		if opts.Project {
			fmt.Fprintln(errOut, "note: the project config holds gw serve's local token; it opens only your local proxy, but keep it out of version control (or use --mode direct)")
		}
	case ModeDirect:
		fmt.Fprintln(out, "Next: start OpenCode with the key in its environment: GW_API_KEY=$(gw auth token) opencode")
	}
}

func printSummary(w io.Writer, res opencode.Result) {
	if len(res.Added) > 0 {
		fmt.Fprintf(w, "  added:   %s\n", strings.Join(res.Added, ", "))
	}
	if len(res.Removed) > 0 {
		fmt.Fprintf(w, "  removed: %s (no longer in your subscription or not chosen)\n", strings.Join(res.Removed, ", "))
	}
	if len(res.Updated) > 0 {
		fmt.Fprintf(w, "  updated: %s\n", strings.Join(res.Updated, ", "))
	}
}

func confirm(in io.Reader, out io.Writer, prompt string) (bool, error) {
	fmt.Fprint(out, prompt)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes":
		return true, nil
	}
	return false, nil
}

// literalKeysRemoved names the providers whose API key was written into the
// old config and no longer is in the new one: the key then lives on only in
// the backup, which the user should delete.
func literalKeysRemoved(old, new []byte) []string {
	before, err := opencode.ReadModels(old)
	if err != nil {
		return nil
	}
	after, _ := opencode.ReadModels(new)
	var ids []string
	for _, p := range before.Providers {
		if p.KeyKind != opencode.KeyLiteral {
			continue
		}
		still := slices.ContainsFunc(after.Providers, func(q opencode.ProviderInfo) bool {
			return q.ID == p.ID && q.KeyKind == opencode.KeyLiteral
		})
		if !still {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
}

func countModels(n int) string {
	if n == 1 {
		return "1 model"
	}
	return fmt.Sprintf("%d models", n)
}
