// Package agent implements `gw init agent`: the gw provider in OpenCode's config.
package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/models"
	"github.com/modelgateway/gw/config"
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
	entries, err := models.List(ctx, f, baseURL)
	if err != nil {
		return err
	}
	var available []string
	for _, e := range entries {
		if e.InSubscription {
			available = append(available, e.ID)
		}
	}
	if len(available) == 0 {
		return errors.New("the service lists no models for this account; check the subscription on the dashboard")
	}

	wd, err := f.WorkDir()
	if err != nil {
		return err
	}
	scope := opencode.Global
	if opts.Project {
		scope = opencode.Project
	}
	loc, err := opencode.Find(scope, f.Getenv, wd)
	if err != nil {
		return err
	}
	// Another gw init agent writing the same file at the same time must not
	// merge into the content this one read: the lock makes the second merge
	// into the first one's result. A run that asks nothing holds it from the
	// read to the write (and the saving of gw serve's token and port); one
	// that shows the picker or asks to confirm takes it only to write, and
	// Write refuses if the file changed meanwhile (the user approved a diff
	// of what they saw).
	var release func()
	defer func() {
		if release != nil {
			release()
		}
	}()
	lock := func() (err error) {
		if release == nil {
			release, err = opencode.Lock(loc.Path)
		}
		return err
	}
	if !opts.DryRun && len(opts.Models) > 0 && (opts.Yes || !ios.CanPrompt()) {
		if err := lock(); err != nil {
			return fmt.Errorf("%w\n(nothing was changed)", err)
		}
	}
	src, exists, err := opencode.Read(loc.Path)
	if err != nil {
		return err
	}
	otherNote, err := checkOtherConfig(loc.Path)
	if err != nil {
		return err
	}
	configured := configuredIDs(src)

	chosen, def, small, err := choose(opts, entries, available, configured)
	if err != nil {
		return err
	}

	p := opencode.Provider{ID: opencode.ProviderID, Name: ProviderName}
	var tokenNote string
	var saveToken func() error // set when the token is new: saved only once OpenCode's config holds it
	var savePort func() error  // set when --port differs from gw's config: saved only once OpenCode's config holds it
	var port int
	switch opts.Mode {
	case ModeProxy:
		var token, note string
		var save func() error
		port, token, save, note, err = proxySettings(f, opts)
		if err != nil {
			return err
		}
		p.BaseURL = "http://127.0.0.1:" + strconv.Itoa(port) + "/v1"
		p.APIKey, tokenNote, saveToken = token, note, save
		savePort = portSaver(f, opts, port)
	case ModeDirect:
		p.BaseURL = baseURL
		p.APIKey = KeyEnvRef
	}
	var guessed []string
	for _, id := range chosen {
		m, known := modelSpec(id, entries)
		if !known {
			guessed = append(guessed, id)
		}
		p.Models = append(p.Models, m)
	}

	res, err := opencode.Merge(src, p, opencode.MergeOptions{Model: def, SmallModel: small})
	if err != nil {
		var pe *opencode.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s:%d:%d: %s\nOpenCode's config does not parse; fix it by hand and run again (nothing was changed)", loc.Path, pe.Line, pe.Column, pe.Msg)
		}
		return fmt.Errorf("%s: %w\n(nothing was changed)", loc.Path, err)
	}

	out, errOut := ios.Out, ios.ErrOut
	for _, w := range res.Warnings {
		fmt.Fprintf(errOut, "warning: %s\n", w)
	}
	for _, id := range guessed {
		fmt.Fprintf(errOut, "warning: %s is not in gw's catalogue; its limits are set to %d context / %d output tokens, edit them if you know better\n", id, fallbackContext, fallbackOutput)
	}
	if tokenNote != "" {
		fmt.Fprintln(errOut, tokenNote)
	}
	if otherNote != "" {
		fmt.Fprintln(errOut, otherNote)
	}

	if !res.Changed {
		fmt.Fprintf(out, "%s is already up to date: provider %q with %s; nothing changed\n", loc.Path, p.ID, countModels(len(p.Models)))
		// OpenCode's config already points at this port (an earlier run that
		// did not save it, or a hand edit): gw's config should agree with it.
		if savePort != nil && opts.DryRun {
			fmt.Fprintf(errOut, "note: a real run saves port %d in gw's config, so that gw serve listens there\n", port)
		} else if savePort != nil {
			if err := savePort(); err != nil {
				return fmt.Errorf("gw serve's port was not saved: %w", err)
			}
			fmt.Fprintf(out, "gw serve will listen on port %d (saved in gw's config)\n", port)
			fmt.Fprintln(out, "Next: run gw serve, or restart it if it runs on another port")
		}
		return nil
	}
	var old []byte // nil: there was no file, which Write checks is still so
	if exists {
		old = src
		if old == nil {
			old = []byte{}
		}
	}
	if opts.DryRun {
		fmt.Fprint(out, opencode.Diff(loc.Path, old, res.Data))
		printSummary(errOut, res)
		if savePort != nil {
			fmt.Fprintf(errOut, "note: a real run also saves port %d in gw's config, so that gw serve listens there\n", port)
		}
		fmt.Fprintln(errOut, "dry run: nothing was written")
		return nil
	}
	if ios.CanPrompt() && !opts.Yes {
		fmt.Fprint(out, opencode.Diff(loc.Path, old, res.Data))
		ok, err := confirm(ios.In, out, fmt.Sprintf("Write these changes to %s? [Y/n] ", loc.Path))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(errOut, "nothing was written")
			return cmdutil.ErrCancel
		}
	}
	if err := lock(); err != nil {
		return fmt.Errorf("%w\n(nothing was changed)", err)
	}
	w, err := opencode.Write(loc.Path, old, res.Data)
	if err != nil {
		return fmt.Errorf("%w\n(nothing was changed)", err)
	}
	if saveToken != nil {
		if err := saveToken(); err != nil {
			return fmt.Errorf("%s was written, but gw serve's local token was not saved: %w\nrun gw init agent again", w.Path, err)
		}
	}
	if savePort != nil {
		if err := savePort(); err != nil {
			return fmt.Errorf("%s was written, but gw serve's port was not saved: %w\nrun gw init agent --port %d again", w.Path, err, port)
		}
	}

	verb := "Updated"
	if !exists {
		verb = "Created"
	}
	fmt.Fprintf(out, "%s %s: provider %q with %s\n", verb, w.Path, p.ID, countModels(len(p.Models)))
	printSummary(out, res)
	if w.Backup != "" {
		fmt.Fprintf(out, "Previous version kept in %s\n", w.Backup)
		if ids := literalKeysRemoved(old, res.Data); len(ids) > 0 {
			fmt.Fprintf(errOut, "warning: %s holds the previous config, with the API key of provider %s in plain text (readable only by you); once OpenCode works with the new config, delete it: rm %s\n",
				w.Backup, quoteList(ids), opencode.ShellQuote(w.Backup))
		}
	}
	if def != "" {
		fmt.Fprintf(out, "OpenCode's model: %s/%s (small model: %s/%s)\n", p.ID, def, p.ID, small)
	}
	switch opts.Mode {
	case ModeProxy:
		if savePort != nil {
			fmt.Fprintf(out, "gw serve will listen on port %d (saved in gw's config)\n", port)
		}
		fmt.Fprintf(out, "Next: run gw serve (OpenCode reaches the service through %s)\n", p.BaseURL)
		if opts.Project {
			fmt.Fprintln(errOut, "note: the project config holds gw serve's local token; it opens only your local proxy, but keep it out of version control (or use --mode direct)")
		}
	case ModeDirect:
		fmt.Fprintln(out, "Next: start OpenCode with the key in its environment: GW_API_KEY=$(gw auth token) opencode")
	}
	return nil
}

// checkOtherConfig looks at the other config file OpenCode reads from the
// same directory (opencode.json beside opencode.jsonc) and merges with the one
// we write. When it also configures provider "gw" and would win, writing ours
// changes nothing OpenCode uses: that is an error. When ours wins, the other's
// keys we do not set still apply: a warning. Otherwise a note, so the user
// knows the second file counts.
func checkOtherConfig(path string) (string, error) {
	other, otherWins, ok := opencode.Sibling(path)
	if !ok {
		return "", nil
	}
	data, exists, err := opencode.Read(other)
	if err != nil {
		return fmt.Sprintf("warning: OpenCode also reads %s, which gw cannot read: %v", other, err), nil
	}
	if !exists {
		return "", nil
	}
	refs, err := opencode.References(data, opencode.ProviderID)
	if err != nil {
		var pe *opencode.ParseError
		if errors.As(err, &pe) {
			return fmt.Sprintf("warning: OpenCode also reads %s, which does not parse (%d:%d: %s); fix it by hand", other, pe.Line, pe.Column, pe.Msg), nil
		}
		return fmt.Sprintf("warning: OpenCode also reads %s, which gw cannot read: %v", other, err), nil
	}
	winner := path
	if otherWins {
		winner = other
	}
	if len(refs) == 0 {
		return fmt.Sprintf("note: OpenCode also reads %s and merges it with %s (where both set a key, %s wins)", other, path, filepath.Base(winner)), nil
	}
	fix := fmt.Sprintf("remove the %q provider (and \"model\"/\"small_model\" naming it) from %s, or merge the two files into one", opencode.ProviderID, other)
	if otherWins {
		return "", fmt.Errorf("%s sets %s, and OpenCode reads it after %s, so its settings would override the ones gw writes\nfix: %s, then run again\n(nothing was changed)",
			other, strings.Join(refs, " and "), path, fix)
	}
	return fmt.Sprintf("warning: %s also sets %s; OpenCode reads it first and applies %s over it, so the settings gw writes win, but what only %s sets (more models, headers, \"model\") still applies\nfix: %s",
		other, strings.Join(refs, " and "), filepath.Base(path), filepath.Base(other), fix), nil
}

// choose settles the models and the defaults, from the flags or the picker.
func choose(opts *AgentOptions, entries []models.Entry, available, configured []string) (chosen []string, def, small string, err error) {
	switch {
	case len(opts.Models) == 1 && opts.Models[0] == "all":
		chosen = available
	case len(opts.Models) > 0:
		for _, id := range opts.Models {
			if e := api.ModelError(id, available); e != nil {
				return nil, "", "", fmt.Errorf("--models: %s\nfix: %s\n(nothing was changed)", e.Cause, cmdutil.FixFor(e))
			}
		}
		chosen = opts.Models
	default:
		chosen, err = pickModels(opts, entries, configured)
		if err != nil {
			return nil, "", "", err
		}
	}
	def, small = opts.Default, opts.SmallModel
	for _, kv := range []struct{ flag, id string }{{"--default", def}, {"--small-model", small}} {
		if kv.id == "" || slices.Contains(chosen, kv.id) {
			continue
		}
		if e := api.ModelError(kv.id, available); e != nil {
			return nil, "", "", fmt.Errorf("%s: %s\nfix: %s\n(nothing was changed)", kv.flag, e.Cause, cmdutil.FixFor(e))
		}
		return nil, "", "", fmt.Errorf("%s %s is not among the models being added; add it to --models\n(nothing was changed)", kv.flag, kv.id)
	}
	if def == "" && len(opts.Models) == 0 {
		if def, err = pickDefault(opts, entries, chosen); err != nil {
			return nil, "", "", err
		}
	}
	if def != "" && small == "" {
		small = def
	}
	return chosen, def, small, nil
}

func pickModels(opts *AgentOptions, entries []models.Entry, configured []string) ([]string, error) {
	items := make([]tui.PickItem, 0, len(entries))
	for _, e := range entries {
		it := tui.PickItem{ID: e.ID, Name: e.Name, Context: e.Context}
		if !e.InSubscription {
			it.Disabled, it.Reason = true, "not in your subscription"
		} else {
			it.Selected = len(configured) == 0 || slices.Contains(configured, e.ID)
		}
		items = append(items, it)
	}
	ids, err := opts.Pick(opts.Factory.IOStreams, tui.PickOptions{Title: "Models to add to OpenCode (tab toggles, enter confirms)", Items: items, Multi: true})
	if err := pickErr(err); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, errors.New("no model chosen; nothing was changed")
	}
	return ids, nil
}

// pickDefault offers the chosen models as OpenCode's default; esc leaves
// "model" as it is.
func pickDefault(opts *AgentOptions, entries []models.Entry, chosen []string) (string, error) {
	var items []tui.PickItem
	for _, e := range entries {
		if slices.Contains(chosen, e.ID) {
			items = append(items, tui.PickItem{ID: e.ID, Name: e.Name, Context: e.Context})
		}
	}
	ids, err := opts.Pick(opts.Factory.IOStreams, tui.PickOptions{Title: "Default model for OpenCode (esc: leave it unchanged)", Items: items})
	if errors.Is(err, tui.ErrCancelled) {
		return "", nil
	}
	if err := pickErr(err); err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}

func pickErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tui.ErrNoTTY):
		return cmdutil.FlagErrorf("--models required when not running interactively")
	}
	return err
}

// proxySettings: gw serve's port and the local token. A token made here is
// not saved yet: save does that, and is called only after OpenCode's config
// was written, so a dry run, a refusal or a config that does not parse
// leaves gw's config as it was.
func proxySettings(f *cmdutil.Factory, opts *AgentOptions) (port int, token string, save func() error, note string, err error) {
	c, paths, err := f.Config()
	if err != nil {
		return 0, "", nil, "", err
	}
	port = config.DefaultPort
	if c.Port != 0 {
		port = c.Port
	}
	if opts.Port != 0 {
		port = opts.Port
	}
	if c.LocalToken != "" {
		return port, c.LocalToken, nil, "", nil
	}
	if token, err = config.NewLocalToken(); err != nil {
		return 0, "", nil, "", err
	}
	if opts.DryRun {
		return port, token, nil, "note: gw serve has no local token yet; the one shown is an example, a real run creates and saves one", nil
	}
	save = func() error {
		return config.Update(paths.File(), func(c *config.File) error {
			switch c.LocalToken {
			case "":
				c.LocalToken = token
			case token:
			default:
				// Another run saved a token meanwhile; OpenCode's config
				// now holds one gw serve would refuse.
				return errors.New("another gw run set a different token meanwhile")
			}
			return nil
		})
	}
	return port, token, save, "", nil
}

// portSaver returns what saves --port as gw's configured port, so that a
// plain gw serve and gw doctor use the port OpenCode was pointed at; nil when
// there is nothing to save (no --port, the port already configured, or the
// default 8787 with no port configured). Like the token, it is called only
// after OpenCode's config was written.
func portSaver(f *cmdutil.Factory, opts *AgentOptions, port int) func() error {
	if opts.Port == 0 {
		return nil
	}
	c, paths, err := f.Config()
	if err != nil {
		return nil // proxySettings already read it; an error there returned first
	}
	configured := c.Port
	if configured == 0 {
		configured = config.DefaultPort
	}
	if port == configured {
		return nil
	}
	return func() error {
		return config.Update(paths.File(), func(c *config.File) error {
			c.Port = port
			return nil
		})
	}
}

// modelSpec describes a listed model from the catalogue; an id the
// catalogue lacks gets the service's context length or a conservative guess.
func modelSpec(id string, entries []models.Entry) (opencode.Model, bool) {
	if c, ok := api.LookupModel(id); ok {
		return opencode.Model{ID: id, Name: c.Name, Context: c.Context, Output: c.Output, Reasoning: c.Reasoning, Attachment: c.Attachment}, true
	}
	m := opencode.Model{ID: id, Name: id, Context: fallbackContext, Output: fallbackOutput}
	for _, e := range entries {
		if e.ID == id {
			if e.Name != "" {
				m.Name = e.Name
			}
			if e.Context > 0 {
				m.Context = e.Context
				m.Output = min(fallbackOutput, e.Context/4)
			}
		}
	}
	return m, false
}

func configuredIDs(src []byte) []string {
	sum, err := opencode.ReadModels(src)
	if err != nil {
		return nil
	}
	for _, p := range sum.Providers {
		if p.ID == opencode.ProviderID {
			return p.Models
		}
	}
	return nil
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
