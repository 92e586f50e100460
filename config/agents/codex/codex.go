// Package codex writes gw into Codex's config.toml: a [model_providers.gw]
// table (base_url of gw serve, wire_api = "responses", supports_websockets =
// false, and model_catalog_url: gw serve's catalog of the account's models,
// see Catalog) with [model_providers.gw.auth], which runs gw auth token
// --serve for the token (credential.go; the local token as
// experimental_bearer_token without it), and the root keys that select it
// (model, model_provider, model_context_window). Codex speaks the OpenAI responses
// API, which gw serve translates to the service's chat completions, so it
// works through gw serve only.
//
// Checked against Codex 0.171.0 (@openai/codex; first against 0.169.0): the config is
// $CODEX_HOME/config.toml (default ~/.codex/config.toml). A trusted
// project's .codex/config.toml is read too, but model_provider and
// model_providers there are ignored ("unsupported project-local config
// keys"), so there is no project scope. -c key=value overrides any key for
// one run (the value is TOML), and a provider's env_key names the variable
// holding its key; both together, for a provider of gw run's own, point
// Codex at gw serve with nothing written, whatever [model_providers.gw]
// holds (checked).
package codex

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/tomledit"
	"github.com/modelgateway/gw/internal/remedy"
)

const (
	displayName   = "Codex"
	testedVersion = "0.171.0"
	directRefusal = "Codex speaks the OpenAI responses API and the service speaks chat completions only; gw serve translates between them"
	wireAPI       = "responses"
)

var table = []string{"model_providers", agents.ProviderID}

// Agent describes Codex for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: Merge, InspectFile: Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "codex", Display: displayName, Binary: "codex", Version: testedVersion,
		UserAgents: []string{"codex_cli_rs", "codex_exec", "codex_vscode"},
		Install:    "npm install -g @openai/codex", Entry: `[model_providers.gw]`,
		Protocol: agents.Responses,
		// Its hosted web_search tool runs on OpenAI's servers: gw serve does not offer it to the model.
		Unavailable: "its web search (the service has no web search)",
	}
}

func (agent) DirectRefusal() string { return directRefusal }

// ServeRoutes: gw serve answers Codex's model catalog (Catalog) itself.
func (agent) ServeRoutes() []agents.ServeRoute {
	return []agents.ServeRoute{{Path: CatalogPath, Protocol: agents.Responses, Answer: Catalog}}
}

// Path is config.toml for scope.
func Path(s agents.Scope, e agents.Place) (string, error) {
	switch s {
	case agents.Global:
		return e.HomeOr("CODEX_HOME", ".codex", "config.toml")
	case agents.Project:
		a := Agent().Info().RemedyAgent()
		return "", remedy.With(errors.New("Codex ignores model_provider and model_providers in a project's .codex/config.toml (it says so when it starts)"),
			remedy.Remedy{Do: remedy.InitAgentGlobal, Agent: a, Then: []remedy.Remedy{{Do: remedy.RunAgent, Agent: a}}})
	}
	return "", fmt.Errorf("unknown scope %q", s)
}

func rootFields(d agents.Declaration) []tomledit.Field {
	m := d.DefaultModel()
	return []tomledit.Field{
		{Key: "model", Val: m.ID},
		{Key: "model_provider", Val: agents.ProviderID},
		{Key: "model_context_window", Val: m.Context},
	}
}

// Merge writes d into config.toml src (nil or empty: a new file).
func Merge(src []byte, d agents.Declaration) (agents.Result, error) {
	if d.Mode == agents.Direct {
		return agents.Result{}, agents.RefuseDirect(displayName, directRefusal)
	}
	if err := d.Validate(); err != nil {
		return agents.Result{}, err
	}
	before, err := Inspect(src)
	if err != nil {
		return agents.Result{}, err
	}
	doc, err := tomledit.Parse(src)
	if err != nil {
		return agents.Result{}, err
	}
	if _, err := doc.SetRoot(rootFields(d)); err != nil {
		return agents.Result{}, err
	}
	// env_key would name a variable to read the key from instead.
	key, drop := []tomledit.Field{{Key: "experimental_bearer_token", Val: d.Token}}, []string{"env_key"}
	if d.Credential != nil { // gw's credential command instead (credential.go)
		key, drop = nil, []string{"env_key", "experimental_bearer_token"}
	}
	if _, _, err := doc.SetTable(table, append(append([]tomledit.Field{
		{Key: "name", Val: agents.ProviderName, OnlyIfMissing: true},
		{Key: "base_url", Val: d.BaseURL},
		{Key: "wire_api", Val: wireAPI}},
		key...),
		tomledit.Field{Key: "supports_websockets", Val: false},
		tomledit.Field{Key: "model_catalog_url", Val: CatalogURL(d.BaseURL)},
	), drop); err != nil {
		return agents.Result{}, err
	}
	if d.Credential != nil {
		if _, _, err := doc.SetTable(authTable, authFields(*d.Credential), nil); err != nil {
			return agents.Result{}, err
		}
	}
	out, err := doc.Bytes()
	if err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{Data: out, Changed: string(out) != string(src), Created: !before.Configured}
	after, err := Inspect(out)
	if err != nil || after.BaseURL != d.BaseURL || (d.Credential == nil && after.LocalToken != d.Token) || (d.Credential != nil && !after.GwCommand) {
		return agents.Result{}, errors.New("internal error: the merged config does not hold gw's provider; nothing was written")
	}
	res.Added, res.Removed = agents.ModelChanges(before, after)
	if before.KeyKind == agents.KeyLiteral {
		res.Warnings = append(res.Warnings, "[model_providers.gw] held a key in plain text; it now holds gw serve's local token")
	}
	return res, nil
}

// Inspect reads [model_providers.gw] and the model it selects back.
func Inspect(src []byte) (agents.Inspection, error) {
	doc, err := tomledit.Parse(src)
	if err != nil {
		return agents.Inspection{}, err
	}
	var in agents.Inspection
	in.BaseURL, in.Configured = doc.Get(append(table, "base_url")...)
	if tok, ok := doc.Get(append(table, "experimental_bearer_token")...); ok {
		in.SetKey(tok, nil)
	} else if env, ok := doc.Get(append(table, "env_key")...); ok && env != "" {
		in.KeyKind, in.KeyRef = agents.KeyEnvRef, env
	} else {
		in.KeyKind = agents.KeyNone
	}
	inspectAuth(doc, src, &in)
	provider, _ := doc.Get("model_provider")
	model, _ := doc.Get("model")
	if provider == agents.ProviderID && model != "" {
		in.Default = model
		in.Models = []string{model}
	} else if in.Configured {
		in.Notes = append(in.Notes, fmt.Sprintf("model_provider is %q, so Codex does not use gw's provider; set it to %q", provider, agents.ProviderID))
	}
	// A provider written before gw served Codex's catalog.
	if u, _ := doc.Get(append(table, "model_catalog_url")...); in.Configured && u != CatalogURL(in.BaseURL) {
		in.Notes = append(in.Notes, fmt.Sprintf("[model_providers.gw] has no model_catalog_url = %q (gw serve's catalog of your models), so Codex knows no limits of gw's models and offers no apply_patch tool", CatalogURL(in.BaseURL)))
	}
	if ws, _ := doc.Get(append(table, "supports_websockets")...); in.Configured && ws != "false" {
		in.Notes = append(in.Notes, `[model_providers.gw] lacks supports_websockets = false, so Codex may try a websocket gw serve does not have and show "Reconnecting…"`)
	}
	if w, _ := doc.Get(append(table, "wire_api")...); in.Configured && w != wireAPI {
		in.Notes = append(in.Notes, fmt.Sprintf(`[model_providers.gw] has wire_api = %q; gw serve speaks "responses" to Codex`, w))
	}
	return in, nil
}

// runProvider is the provider gw run defines and selects, beside the user's [model_providers.gw]: that
// one may have gw's credential command ([model_providers.gw.auth], gw init agent's), which Codex refuses to
// combine with the env_key gw run gives, and which -c cannot remove.
const runProvider = "gw-run"

// Run is gw run's route: -c overrides that define and select a provider of
// gw run's own, runProvider (nothing secret), with env_key naming
// GW_LOCAL_TOKEN, which holds the token in Codex's environment. Codex 0.171
// snapshots the shell it runs commands in, exported variables and all, into
// a file under ~/.codex/shell_snapshots (left behind when it exits while
// taking one): gw run turns the snapshot off, so that the token is in no
// file.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) {
	if d.Mode == agents.Direct {
		return agents.RunSpec{}, agents.RefuseDirect(displayName, directRefusal)
	}
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	m := d.DefaultModel()
	q := strconv.Quote
	set := func(k, v string) []string { return []string{"-c", k + "=" + v} }
	var args []string
	for _, kv := range [][2]string{
		{"model_providers." + runProvider + ".name", q(agents.ProviderName)},
		{"model_providers." + runProvider + ".base_url", q(d.BaseURL)},
		{"model_providers." + runProvider + ".wire_api", q(wireAPI)},
		{"model_providers." + runProvider + ".env_key", q(agents.TokenEnv)},
		{"model_providers." + runProvider + ".supports_websockets", "false"},
		{"model_providers." + runProvider + ".model_catalog_url", q(CatalogURL(d.BaseURL))},
		{"model_provider", q(runProvider)},
		{"model", q(m.ID)},
		{"model_context_window", strconv.Itoa(m.Context)},
		{"features.shell_snapshot", "false"},
	} {
		args = append(args, set(kv[0], kv[1])...)
	}
	return agents.RunSpec{Env: []string{agents.TokenEnv + "=" + d.Token}, Args: args}, nil
}
