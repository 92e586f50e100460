// Package droid writes gw into Factory droid's settings (~/.factory/settings.json): one entry per model in
// "customModels" (provider "generic-chat-completion-api", the model id, baseUrl, apiKey, the context
// window, the output limit and whether it takes images), with an id of gw's own ("custom:gw/" and the
// model id), and sessionDefaultSettings.model set to gw's default, so that droid starts with it.
//
// Checked against droid 0.225.2 (@factory/cli; its platform package @factory/cli-linux-x64 holds the
// binary): customModels entries are {model, id, displayName, baseUrl, apiKey, provider, maxContextLimit,
// maxOutputTokens, noImageSupport, ...}; an apiKey of the form ${VAR} is read from the environment; an
// entry without noImageSupport is taken as text-only for the generic provider, so gw writes it either
// way. A session picks a custom model by its id (-m, or sessionDefaultSettings.model). droid still asks
// for a Factory login (or FACTORY_API_KEY) before it starts, though the model requests go to baseUrl.
// --settings PATH merges a settings file for one process (gw run).
package droid

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/internal/remedy"
)

const (
	displayName   = "Factory droid"
	testedVersion = "0.225.2"
	// IDPrefix starts the id of every entry gw writes.
	IDPrefix = "custom:gw/"
	provider = "generic-chat-completion-api"
)

var dialect = jsonc.Dialect{Comments: true, Agent: displayName}

// Agent describes Factory droid for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: Merge, InspectFile: Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "droid", Display: displayName, Binary: "droid", Version: testedVersion,
		UserAgents: []string{"factory-cli", "droid"},
		Install:    "npm install -g @factory/cli", Package: "@factory/cli", Entry: `gw's entries in customModels`,
		Protocol: agents.ChatCompletions,
	}
}

// Path is droid's user settings file; gw writes no project settings for it.
func Path(s agents.Scope, e agents.Place) (string, error) {
	switch s {
	case agents.Global:
		return e.Home(".factory", "settings.json")
	case agents.Project:
		return "", remedy.With(errors.New("gw writes Factory droid's custom models into its user settings (~/.factory/settings.json), not a project's"),
			remedy.Remedy{Do: remedy.InitAgentGlobal, Agent: Agent().Info().RemedyAgent()})
	}
	return "", fmt.Errorf("unknown scope %q", s)
}

func key(d agents.Declaration, run bool) string {
	switch {
	case d.Mode == agents.Direct:
		return "${" + d.KeyVar() + "}"
	case run:
		return "${" + agents.TokenEnv + "}"
	}
	return d.Token
}

func entry(d agents.Declaration, m agents.Model, run bool) jsonc.Keyed {
	return jsonc.Keyed{ID: IDPrefix + m.ID, Want: jsonc.Want{Container: true, Fields: []jsonc.Field{
		{Key: "id", Val: IDPrefix + m.ID},
		{Key: "model", Val: m.ID},
		{Key: "displayName", Val: m.Name, OnlyIfMissing: true},
		{Key: "provider", Val: provider},
		{Key: "baseUrl", Val: d.BaseURL},
		{Key: "apiKey", Val: key(d, run)},
		{Key: "maxContextLimit", Val: m.Context},
		{Key: "maxOutputTokens", Val: m.Output},
		{Key: "noImageSupport", Val: !m.Attachment},
	}}}
}

func ours(o *hujson.Object) bool {
	return strings.HasPrefix(jsonc.Str(jsonc.Member(o, "id")), IDPrefix)
}

// Merge writes d into the settings src (nil or empty: a new file).
func Merge(src []byte, d agents.Declaration) (agents.Result, error) {
	return merge(src, d, false)
}

func merge(src []byte, d agents.Declaration, run bool) (agents.Result, error) {
	before, f, top, err := agents.OpenJSON(src, d, Inspect, dialect)
	if err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{Created: !before.Configured}
	res.Added, res.Removed, res.Updated, err = agents.SyncModels(f, top, "customModels", ours, d, func(m agents.Model) jsonc.Keyed { return entry(d, m, run) })
	if err != nil {
		return agents.Result{}, err
	}
	for _, ids := range []*[]string{&res.Added, &res.Removed, &res.Updated} {
		for i, id := range *ids {
			(*ids)[i] = strings.TrimPrefix(id, IDPrefix)
		}
	}
	if _, err := f.Apply(top, jsonc.Want{Fields: []jsonc.Field{
		{Key: "sessionDefaultSettings", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{{Key: "model", Val: IDPrefix + d.DefaultModel().ID}}}},
	}}); err != nil {
		return agents.Result{}, err
	}
	res.Data = f.Pack()
	res.Changed = string(res.Data) != string(src)
	after, err := Inspect(res.Data)
	if err := d.CheckMerged("the merged settings", after, err); err != nil {
		return agents.Result{}, err
	}
	if d.Mode == agents.Direct {
		res.Warnings = append(res.Warnings, fmt.Sprintf("Factory droid reads the key from %s: set it in the environment droid starts in", d.KeyVar()))
	}
	return res, nil
}

var envRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// Inspect reads gw's entries back from src. Models and Default are model ids, without gw's id prefix.
func Inspect(src []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(src, dialect)
	if err != nil {
		return agents.Inspection{}, err
	}
	var in agents.Inspection
	k := ""
	if list := jsonc.ArrOf(jsonc.Member(top, "customModels")); list != nil {
		for i := range list.Elements {
			o, ok := list.Elements[i].Value.(*hujson.Object)
			if !ok || !ours(o) {
				continue
			}
			if !in.Configured {
				in.Configured = true
				in.BaseURL = jsonc.Str(jsonc.Member(o, "baseUrl"))
				k = jsonc.Str(jsonc.Member(o, "apiKey"))
			}
			if id := jsonc.Str(jsonc.Member(o, "model")); id != "" && !slices.Contains(in.Models, id) {
				in.Models = append(in.Models, id)
			}
		}
	}
	if in.Configured {
		in.SetKey(strings.TrimSpace(k), func(s string) string {
			if m := envRef.FindStringSubmatch(s); m != nil {
				return m[1]
			}
			return ""
		})
	}
	def := jsonc.Str(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "sessionDefaultSettings")), "model"))
	if id, ok := strings.CutPrefix(def, IDPrefix); ok {
		in.Default = id
	}
	return in, nil
}

// Run is gw run's route: gw's entries and default model in a settings file of gw run's directory, merged
// by droid for this process only (--settings), their apiKey naming GW_LOCAL_TOKEN, set beside it.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) {
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	if d.Mode == agents.Direct {
		return agents.RunSpec{}, remedy.With(errors.New("gw run points Factory droid at gw serve"), remedy.Remedy{Do: remedy.InitAgentDirect, Agent: Agent().Info().RemedyAgent()})
	}
	r, err := merge(nil, d, true)
	if err != nil {
		return agents.RunSpec{}, err
	}
	return agents.RunSpec{
		Env:   []string{agents.TokenEnv + "=" + d.Token},
		Files: map[string][]byte{"settings.json": r.Data},
		Prepare: agents.InRunDir(func(dir string) []string {
			return []string{"--settings", filepath.Join(dir, "settings.json")}
		}),
	}, nil
}
