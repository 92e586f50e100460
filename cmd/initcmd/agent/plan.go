package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/tui"
)

// plan is what a run of gw init agent changes, worked out before anything is written. Its parts do not
// depend on each other's format: what gw declares to the agent (decl: where it sends requests, with which
// key, which models), what gw's own config must gain for that to work (gw), and the agent's config files
// merged with the declaration (files). Rendering and applying both work from it.
type plan struct {
	agent writer
	decl  agents.Declaration
	// before and after are the agent's config read back before and after the merge.
	before, after agents.Inspection
	notes         []string // warnings and notes for stderr, said before anything else
	// chosen are the model ids chosen, available the subscription's: what the summary says a model that
	// left the file left for.
	chosen, available []string
	gw                gwChange
	files             []fileChange
}

// fileChange is one agent config file: what was read and what it becomes.
type fileChange struct {
	path   string
	exists bool
	old    []byte        // the content read; nil: there was no file (which Write checks is still so)
	result agents.Result // the merged content (Data) and what changed
}

func (c fileChange) diff() string { return agentfile.Diff(c.path, c.old, c.result.Data) }

// changed are the files the merge changed, in order.
func (p *plan) changed() []fileChange {
	var out []fileChange
	for _, f := range p.files {
		if f.result.Changed {
			out = append(out, f)
		}
	}
	return out
}

// diff is the unified diff of every changed file.
func (p *plan) diff() string {
	var b strings.Builder
	for _, f := range p.changed() {
		b.WriteString(safetext.Text(f.diff())) // a project's file may hold control characters: shown escaped
	}
	return b.String()
}

// summary is what the merge did to the models, over every file (Cline keeps them in a second one).
func (p *plan) summary() (added, removed, updated []string) {
	add := func(to *[]string, ids []string) {
		for _, id := range ids {
			if !slices.Contains(*to, id) {
				*to = append(*to, id)
			}
		}
	}
	for _, f := range p.files {
		add(&added, f.result.Added)
		add(&removed, f.result.Removed)
		add(&updated, f.result.Updated)
	}
	return added, removed, updated
}

// gwChange is what gw's own config gains from a run: the local token made for it, gw serve's port. It is
// saved once the agent's config holds them, in one update, so that a dry run, a refusal or an agent
// config that does not parse leaves gw's config as it was.
type gwChange struct {
	file  string // gw's config file
	token string // the local token made for this run; "": gw's config has one (or a dry run shows an example)
	port  int    // --port, where it differs from the configured port; 0: nothing to save
}

func (c gwChange) save() error {
	if c.token == "" && c.port == 0 {
		return nil
	}
	return config.Update(c.file, func(f *config.File) error {
		if c.token != "" {
			switch f.LocalToken {
			case "":
				f.LocalToken = c.token
			case c.token:
			default:
				// Another run saved a token meanwhile; the agent's config now holds one gw serve would refuse.
				return errors.New("another gw run set a different token meanwhile")
			}
		}
		if c.port != 0 {
			f.Port = c.port
		}
		return nil
	})
}

// written is what apply wrote: each file (a symlink's target) and its backup.
type written []agentfile.Written

// apply writes the agent's changed config files, in order, then saves what gw's config gains.
func (p *plan) apply() (written, error) {
	var w written
	for _, f := range p.changed() {
		fw, err := agentfile.Write(f.path, f.old, f.result.Data)
		if err != nil {
			if len(w) == 0 {
				return w, cmdutil.NothingChanged(err)
			}
			// The first file is written: what to do is the error's own remedy, else gw init agent again.
			fix, ok := remedy.Of(err)
			if !ok {
				fix = remedy.Remedy{Do: remedy.InitAgentFor, Agent: p.agent.RemedyAgent()}
			}
			return w, remedy.With(fmt.Errorf("%w\n%s was written but %s was not", err, w[len(w)-1].Path, f.path), fix)
		}
		w = append(w, fw)
	}
	if err := p.gw.save(); err != nil {
		var what, again string
		cmd := "gw init agent --agent " + p.agent.Name
		switch {
		case p.gw.token != "" && p.gw.port != 0:
			what, again = "gw serve's local token and port were", fmt.Sprintf("%s --port %d", cmd, p.gw.port)
		case p.gw.token != "":
			what, again = "gw serve's local token was", cmd
		default:
			what, again = "gw serve's port was", fmt.Sprintf("%s --port %d", cmd, p.gw.port)
		}
		return w, fmt.Errorf("%s was written, but %s not saved: %w\nrun %s again", paths(w), what, err, again)
	}
	return w, nil
}

func paths(w written) string {
	var ps []string
	for _, f := range w {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, " and ")
}

// makePlan reads the agent's config files, settles the models (from the flags or the pickers) and merges
// gw's declaration into them. entries is the account's models joined with the catalogue.
func makePlan(opts *AgentOptions, a writer, files []string, baseURL string, entries []api.JoinedModel) (*plan, error) {
	srcs := make([][]byte, len(files))
	exists := make([]bool, len(files))
	for i, path := range files {
		var err error
		if srcs[i], exists[i], err = agentfile.Read(path); err != nil {
			return nil, err
		}
	}
	otherNote, err := checkCompanion(a, files[0])
	if err != nil {
		return nil, err
	}
	// A file that does not parse is reported by the merge, with its line and column.
	before, _ := a.Inspect(srcs)
	chosen, def, small, err := choose(opts, a, entries, api.SubscribedIDs(entries), before.Models, before.Default, len(files))
	if err != nil {
		return nil, err
	}
	// Without --default the agent keeps the default and small models it has, when they are still chosen
	// (OpenCode's and Kilo's "model" name "gw/<id>" and are left alone by an empty Default anyway).
	if def == "" && slices.Contains(chosen, before.Default) {
		def = before.Default
		if slices.Contains(chosen, before.Small) {
			small = before.Small
		}
	}

	p := &plan{agent: a, before: before, chosen: chosen, available: api.SubscribedIDs(entries)}
	ep := endpoint{baseURL: baseURL}
	if opts.Mode == ModeProxy {
		if ep, p.gw, err = proxyEndpoint(opts); err != nil {
			return nil, err
		}
	}
	p.decl = agents.Declaration{BaseURL: ep.baseURL, Token: ep.token, Default: def, Small: small, Mode: agents.Proxy}
	if !opts.Project {
		// In the user's own settings, where their status line would be: a
		// project's settings would override one they have there.
		p.decl.StatusLine = "gw statusline"
	}
	if opts.Mode == ModeDirect {
		p.decl.Mode = agents.Direct
	} else if p.decl.Credential, err = credential(a, opts); err != nil {
		return nil, err
	}
	var guessed []string
	for _, id := range chosen {
		m, known := agents.ModelFor(id, entries)
		if !known {
			guessed = append(guessed, id)
		}
		p.decl.Models = append(p.decl.Models, m)
	}

	results, err := a.Merge(srcs, p.decl)
	if err != nil {
		return nil, mergeError(a, files, srcs, p.decl, err)
	}
	for i, path := range files {
		fc := fileChange{path: path, exists: exists[i], result: results[i]}
		if exists[i] {
			fc.old = srcs[i]
			if fc.old == nil {
				fc.old = []byte{}
			}
		}
		p.files = append(p.files, fc)
	}
	out := make([][]byte, len(results))
	for i, r := range results {
		out[i] = r.Data
	}
	if p.after, err = a.Inspect(out); err != nil {
		return nil, fmt.Errorf("internal error: %s's merged config does not read back (%v); nothing was written", a.Display, err)
	}

	for _, r := range results {
		for _, w := range r.Warnings {
			p.notes = append(p.notes, "warning: "+w)
		}
	}
	for _, id := range guessed {
		p.notes = append(p.notes, fmt.Sprintf("warning: %s is not in gw's catalogue; its limits are set to %d context / %d output tokens, edit them if you know better", id, agents.FallbackContext, agents.FallbackOutput))
	}
	for _, n := range []string{ep.note, otherNote} {
		if n != "" {
			p.notes = append(p.notes, n)
		}
	}
	return p, nil
}

// mergeError words a refused merge: a file that does not parse with its path, line and column (Cline has
// two files: the one at fault is found by merging each alone), a conflict with what to fix.
func mergeError(a writer, files []string, srcs [][]byte, d agents.Declaration, err error) error {
	var pe *agents.ParseError
	if errors.As(err, &pe) {
		path := files[0]
		if len(files) > 1 {
			for i := range files {
				only := make([][]byte, len(files))
				only[i] = srcs[i]
				if _, e := a.Merge(only, d); errors.As(e, new(*agents.ParseError)) {
					path = files[i]
					break
				}
			}
		}
		return cmdutil.NothingChanged(fmt.Errorf("%s:%d:%d: %s\n%s's config does not parse; fix it by hand and run again", path, pe.Line, pe.Column, pe.Msg, a.Display))
	}
	if errors.Is(err, agents.ErrDirectRefused) {
		return directRefused(a)
	}
	return cmdutil.NothingChanged(fmt.Errorf("%s: %w", files[0], err))
}

// endpoint is where the agent sends its requests, and the local token it sends ("" in direct mode).
type endpoint struct {
	baseURL, token string
	note           string // for stderr: what to know about the token shown (a dry run's example token)
}

// proxyEndpoint is gw serve's address and local token, which the agent sends in proxy mode, and what gw's
// config gains with them: a token made here when none exists yet (a dry run only shows an example), and
// --port where it differs from the configured port, so that a plain gw serve and gw doctor use the port
// the agent was pointed at.
func proxyEndpoint(opts *AgentOptions) (endpoint, gwChange, error) {
	c, paths, err := opts.Config()
	if err != nil {
		return endpoint{}, gwChange{}, err
	}
	change := gwChange{file: paths.File()}
	port := c.ServePort()
	if opts.Port != 0 && opts.Port != port {
		port, change.port = opts.Port, opts.Port
	}
	ep := endpoint{baseURL: "http://127.0.0.1:" + strconv.Itoa(port) + "/v1", token: c.LocalToken}
	if ep.token != "" {
		return ep, change, nil
	}
	if ep.token, err = config.NewLocalToken(); err != nil {
		return endpoint{}, gwChange{}, err
	}
	if opts.DryRun {
		ep.note = "note: gw serve has no local token yet; the one shown is an example, a real run creates and saves one"
	} else {
		change.token = ep.token
	}
	return ep, change, nil
}

// checkCompanion looks at the other config file the agent reads beside the one gw writes and merges with
// it (OpenCode's opencode.json beside opencode.jsonc). When it also configures gw's provider and would win,
// writing ours changes nothing the agent uses: that is an error. When ours wins, the other's keys we do not
// set still apply: a warning. Otherwise a note, so the user knows the second file counts.
func checkCompanion(a writer, path string) (string, error) {
	c, ok := a.agent.(agents.CompanionReader)
	if !ok {
		return "", nil
	}
	o, ok := c.Companion(path)
	switch {
	case !ok:
		return "", nil
	case o.Unreadable:
		return "warning: " + o.Note, nil
	case o.Problem == "":
		return "note: " + o.Note, nil
	case o.Wins:
		return "", cmdutil.NothingChanged(remedy.With(errors.New(o.Problem), remedy.Remedy{Do: remedy.Say, Value: o.Fix + ", then run again"}))
	}
	return "warning: " + cmdutil.ErrorWithFix(remedy.With(errors.New(o.Problem), remedy.Remedy{Do: remedy.Say, Value: o.Fix})), nil
}

// choose settles the models and the defaults, from the flags or the picker.
func choose(opts *AgentOptions, a writer, entries []api.JoinedModel, available, configured []string, current string, nFiles int) (chosen []string, def, small string, err error) {
	switch {
	case len(opts.Models) == 1 && opts.Models[0] == "all":
		chosen = available
	case len(opts.Models) == 0 && opts.Default != "" && !opts.IO.CanPromptOnStderr():
		// --default alone off a terminal: the models the config names (those still subscribed), else the
		// subscription's; the default among them.
		for _, id := range configured {
			if slices.Contains(available, id) {
				chosen = append(chosen, id)
			}
		}
		if len(chosen) == 0 {
			chosen = available
		}
		for _, id := range []string{opts.Default, opts.SmallModel} {
			if id != "" && !slices.Contains(chosen, id) && slices.Contains(available, id) {
				chosen = append(chosen, id)
			}
		}
	case len(opts.Models) > 0:
		for _, id := range opts.Models {
			if e := api.ModelError(id, available); e != nil {
				return nil, "", "", cmdutil.NothingChanged(cmdutil.FlagModelError("--models", e))
			}
		}
		chosen = opts.Models
	default:
		chosen, err = pickModels(opts, a, entries, configured, takes(a, nFiles, entries))
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
			return nil, "", "", cmdutil.NothingChanged(cmdutil.FlagModelError(kv.flag, e))
		}
		return nil, "", "", cmdutil.NothingChanged(fmt.Errorf("%s %s is not among the models being added; add it to --models", kv.flag, kv.id))
	}
	if def == "" && len(opts.Models) == 0 {
		if def, err = pickDefault(opts, a, entries, chosen, current); err != nil {
			return nil, "", "", err
		}
	}
	// An agent that chooses its small model itself (Claude Code: its Haiku tier) keeps it unless one is
	// chosen; for the others it is the cheapest, fastest model chosen (its small tasks need no more).
	if _, ownSmall := a.choosesOwn(); def != "" && small == "" && !ownSmall {
		small = api.Cheapest(chosen)
	}
	return chosen, def, small, nil
}

// takes is what the agent writes of every subscribed model when it takes fewer (Claude Code: one a tier),
// found by merging them all into an empty config; nil when it takes them all.
func takes(a writer, nFiles int, entries []api.JoinedModel) []string {
	ids := api.SubscribedIDs(entries)
	d := agents.Declaration{BaseURL: "http://127.0.0.1:8787/v1", Token: "gw-local-00000000000000000000000000000000",
		Mode: agents.Proxy, Default: api.Balanced(ids)}
	for _, id := range ids {
		m, _ := agents.ModelFor(id, entries)
		d.Models = append(d.Models, m)
	}
	res, err := a.Merge(make([][]byte, nFiles), d)
	if err != nil {
		return nil
	}
	out := make([][]byte, len(res))
	for i, r := range res {
		out[i] = r.Data
	}
	in, err := a.Inspect(out)
	if err != nil || len(in.Models) == 0 || len(in.Models) >= len(ids) {
		return nil
	}
	return in.Models
}

// pickModels: the models already configured are selected, else all of the subscription's, or those the
// agent takes when it takes fewer (the title says so).
func pickModels(opts *AgentOptions, a writer, entries []api.JoinedModel, configured, taken []string) ([]string, error) {
	items := make([]tui.PickItem, 0, len(entries))
	subscribed := 0
	for _, e := range entries {
		it := tui.PickItem{ID: e.ID, Name: e.Name, Context: e.Context}
		if !e.InSubscription {
			it.Disabled, it.Reason = true, "not in your subscription"
		} else {
			subscribed++
			switch {
			case len(configured) > 0:
				it.Selected = slices.Contains(configured, e.ID)
			case taken != nil:
				it.Selected = slices.Contains(taken, e.ID)
			default:
				it.Selected = true
			}
		}
		items = append(items, it)
	}
	title := "Models to add to " + a.Display + " (tab toggles, enter confirms)"
	if taken != nil {
		title = fmt.Sprintf("Models to add to %s, which takes %d of your %d (those selected; tab toggles, enter confirms)", a.Display, len(taken), subscribed)
	}
	ids, err := opts.Pick(opts.IO, tui.PickOptions{Title: title, Items: items, Multi: true})
	if err := pickErr(err); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, cmdutil.NothingChanged(errors.New("no model chosen"))
	}
	return ids, nil
}

// pickDefault offers the chosen models as the agent's default; esc leaves it as it is.
func pickDefault(opts *AgentOptions, a writer, entries []api.JoinedModel, chosen []string, current string) (string, error) {
	// Enter takes the default the agent has, else what a careful user picks: a middle model, not the
	// largest (the service lists it first).
	offer := current
	if !slices.Contains(chosen, offer) {
		offer = api.Balanced(chosen)
	}
	var items []tui.PickItem
	for _, e := range entries {
		if slices.Contains(chosen, e.ID) {
			items = append(items, tui.PickItem{ID: e.ID, Name: e.Name, Context: e.Context, Selected: e.ID == offer})
		}
	}
	ids, err := opts.Pick(opts.IO, tui.PickOptions{Title: "Default model for " + a.Display + " (esc: leave it unchanged)", Items: items})
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

// credential is gw's credential command for an agent that runs one for its key (the gw binary by its
// absolute path), in the user's global config; nil for the others, which get the local token written.
func credential(a writer, opts *AgentOptions) (*agents.CredentialCommand, error) {
	// Not in a project's config: Claude Code runs a project's apiKeyHelper only once the user trusted the
	// workspace, and that file's token is the one gw has always written there.
	if _, ok := a.agent.(agents.CredentialCommander); !ok || opts.Executable == nil || opts.Project {
		return nil, nil
	}
	exe, err := opts.Executable()
	if err == nil {
		exe, err = filepath.Abs(exe)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot find the gw binary for %s's credential command: %w", a.Display, err)
	}
	return &agents.CredentialCommand{Path: exe, Args: agents.CredentialArgs}, nil
}
