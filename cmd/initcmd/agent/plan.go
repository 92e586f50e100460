package agent

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/opencode"
	"github.com/modelgateway/gw/tui"
)

// plan is what a run of gw init agent changes, worked out before anything is written. Its parts do not
// depend on each other's format: where the agent sends requests and with which key (the provider), what
// gw's own config must gain for that to work (gw), and the agent's config file merged with the provider
// (file). Rendering and applying both work from it.
type plan struct {
	provider   opencode.Provider
	def, small string   // OpenCode's "model" and "small_model" ("": left as they are)
	notes      []string // warnings and notes for stderr, said before anything else
	gw         gwChange
	file       fileChange
}

// fileChange is one agent config file: what was read and what it becomes.
type fileChange struct {
	path   string
	exists bool
	old    []byte          // the content read; nil: there was no file (which Write checks is still so)
	result opencode.Result // the merged content (Data) and what changed
}

func (c fileChange) diff() string { return opencode.Diff(c.path, c.old, c.result.Data) }

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

// apply writes the agent's config, then saves what gw's config gains.
func (p *plan) apply() (opencode.Written, error) {
	w, err := opencode.Write(p.file.path, p.file.old, p.file.result.Data)
	if err != nil {
		return w, fmt.Errorf("%w\n(nothing was changed)", err)
	}
	if err := p.gw.save(); err != nil {
		var what, again string
		switch {
		case p.gw.token != "" && p.gw.port != 0:
			what, again = "gw serve's local token and port were", fmt.Sprintf("gw init agent --port %d", p.gw.port)
		case p.gw.token != "":
			what, again = "gw serve's local token was", "gw init agent"
		default:
			what, again = "gw serve's port was", fmt.Sprintf("gw init agent --port %d", p.gw.port)
		}
		return w, fmt.Errorf("%s was written, but %s not saved: %w\nrun %s again", w.Path, what, err, again)
	}
	return w, nil
}

// makePlan reads OpenCode's config at path, settles the models (from the flags or the pickers) and merges
// the provider into it. entries is the account's models joined with the catalogue.
func makePlan(opts *AgentOptions, path, baseURL string, entries []api.JoinedModel) (*plan, error) {
	src, exists, err := opencode.Read(path)
	if err != nil {
		return nil, err
	}
	otherNote, err := checkOtherConfig(path)
	if err != nil {
		return nil, err
	}
	chosen, def, small, err := choose(opts, entries, api.SubscribedIDs(entries), configuredIDs(src))
	if err != nil {
		return nil, err
	}

	p := &plan{def: def, small: small}
	p.provider = opencode.Provider{ID: opencode.ProviderID, Name: ProviderName}
	ep := endpoint{baseURL: baseURL, apiKey: KeyEnvRef}
	if opts.Mode == ModeProxy {
		if ep, p.gw, err = proxyEndpoint(opts); err != nil {
			return nil, err
		}
	}
	p.provider.BaseURL, p.provider.APIKey = ep.baseURL, ep.apiKey
	var guessed []string
	for _, id := range chosen {
		m, known := modelSpec(id, entries)
		if !known {
			guessed = append(guessed, id)
		}
		p.provider.Models = append(p.provider.Models, m)
	}

	res, err := opencode.Merge(src, p.provider, opencode.MergeOptions{Model: def, SmallModel: small})
	if err != nil {
		var pe *opencode.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %s\nOpenCode's config does not parse; fix it by hand and run again (nothing was changed)", path, pe.Line, pe.Column, pe.Msg)
		}
		return nil, fmt.Errorf("%s: %w\n(nothing was changed)", path, err)
	}
	p.file = fileChange{path: path, exists: exists, result: res}
	if exists {
		p.file.old = src
		if p.file.old == nil {
			p.file.old = []byte{}
		}
	}

	for _, w := range res.Warnings {
		p.notes = append(p.notes, "warning: "+w)
	}
	for _, id := range guessed {
		p.notes = append(p.notes, fmt.Sprintf("warning: %s is not in gw's catalogue; its limits are set to %d context / %d output tokens, edit them if you know better", id, fallbackContext, fallbackOutput))
	}
	for _, n := range []string{ep.note, otherNote} {
		if n != "" {
			p.notes = append(p.notes, n)
		}
	}
	return p, nil
}

// endpoint is where the agent sends its requests, and the key it sends.
type endpoint struct {
	baseURL, apiKey string
	note            string // for stderr: what to know about the key shown (a dry run's example token)
}

// proxyEndpoint is gw serve's address and local token, which OpenCode sends in proxy mode, and what gw's
// config gains with them: a token made here when none exists yet (a dry run only shows an example), and
// --port where it differs from the configured port, so that a plain gw serve and gw doctor use the port
// OpenCode was pointed at.
func proxyEndpoint(opts *AgentOptions) (endpoint, gwChange, error) {
	c, paths, err := opts.Factory.Config()
	if err != nil {
		return endpoint{}, gwChange{}, err
	}
	change := gwChange{file: paths.File()}
	port := c.ServePort()
	if opts.Port != 0 && opts.Port != port {
		port, change.port = opts.Port, opts.Port
	}
	ep := endpoint{baseURL: "http://127.0.0.1:" + strconv.Itoa(port) + "/v1", apiKey: c.LocalToken}
	if ep.apiKey != "" {
		return ep, change, nil
	}
	if ep.apiKey, err = config.NewLocalToken(); err != nil {
		return endpoint{}, gwChange{}, err
	}
	if opts.DryRun {
		ep.note = "note: gw serve has no local token yet; the one shown is an example, a real run creates and saves one"
	} else {
		change.token = ep.apiKey
	}
	return ep, change, nil
}

// checkOtherConfig looks at the other config file OpenCode reads from the same directory (opencode.json
// beside opencode.jsonc) and merges with the one we write. When it also configures provider "gw" and would
// win, writing ours changes nothing OpenCode uses: that is an error. When ours wins, the other's keys we do
// not set still apply: a warning. Otherwise a note, so the user knows the second file counts.
func checkOtherConfig(path string) (string, error) {
	o, ok := opencode.ReadOther(path, opencode.ProviderID)
	switch {
	case !ok:
		return "", nil
	case o.Err != nil:
		return "warning: " + o.Note(), nil
	case o.Problem() == "":
		return "note: " + o.Note(), nil
	case o.Wins:
		return "", fmt.Errorf("%s\nfix: %s, then run again\n(nothing was changed)", o.Problem(), o.Fix())
	}
	return "warning: " + o.Problem() + "\nfix: " + o.Fix(), nil
}

// choose settles the models and the defaults, from the flags or the picker.
func choose(opts *AgentOptions, entries []api.JoinedModel, available, configured []string) (chosen []string, def, small string, err error) {
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

func pickModels(opts *AgentOptions, entries []api.JoinedModel, configured []string) ([]string, error) {
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
func pickDefault(opts *AgentOptions, entries []api.JoinedModel, chosen []string) (string, error) {
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

// modelSpec describes a listed model from the catalogue; an id the
// catalogue lacks gets the service's context length or a conservative guess.
func modelSpec(id string, entries []api.JoinedModel) (opencode.Model, bool) {
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
