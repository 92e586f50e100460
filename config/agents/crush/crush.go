// Package crush writes gw into Crush's crush.json: providers.gw (type
// openai-compat, base_url, api_key, and every model with its context window
// and default max tokens, which Crush needs to size requests) and the large
// and small model slots.
//
// Checked against Crush's source and JSON schema at v0.90.0 (the Go module
// proxy refuses the module, and the npm package downloads its binary at
// install, so the real loader could not be run here): it reads
// $CRUSH_GLOBAL_CONFIG/crush.json, else $XDG_CONFIG_HOME/crush/crush.json
// (~/.config/crush/crush.json), and in a project .crush.json and crush.json
// (.crush.json winning); every file must pass encoding/json's Valid — no
// comments, no trailing commas, no byte-order mark. api_key and base_url
// are shell-expanded at load, so direct mode writes "$GW_API_KEY". Crush
// calls crush.json its legacy format (crushrc, a shell script, is the new
// one) and keeps supporting it; a crushrc in the same directory wins over it
// key by key.
package crush

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
)

const (
	displayName   = "Crush"
	testedVersion = "0.90.0 (source and schema)"
	// Schema is written into a new file.
	Schema = "https://charm.land/crush.json"
	// ProviderType is Crush's type for an OpenAI-compatible service that is
	// not OpenAI itself.
	ProviderType = "openai-compat"
)

var dialect = jsonc.Dialect{Agent: displayName}

// Agent describes Crush for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: Merge, InspectFile: Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "crush", Display: displayName, Binary: "crush", Version: testedVersion,
		UserAgents: []string{"crush", "charm-crush"},
		Install:    "brew install charmbracelet/tap/crush", Entry: `provider "gw"`,
		Protocol: agents.ChatCompletions,
		NoRun:    "Crush takes its providers and models only from its config files",
	}
}

// Path is crush.json for scope: the global one, or the project's
// .crush.json (crush.json when only that exists).
func Path(s agents.Scope, e agents.Place) (string, error) {
	switch s {
	case agents.Global:
		if d := e.Getenv("CRUSH_GLOBAL_CONFIG"); d != "" {
			return filepath.Join(d, "crush.json"), nil
		}
		return e.XDGConfig("crush", "crush.json")
	case agents.Project:
		if e.WorkDir == "" {
			return "", errors.New("no working directory for the project config")
		}
		return agents.EitherFile(filepath.Join(e.WorkDir, ".crush.json"), filepath.Join(e.WorkDir, "crush.json")), nil
	}
	return "", fmt.Errorf("unknown scope %q", s)
}

func apiKey(d agents.Declaration) string {
	if d.Mode == agents.Direct {
		return "$" + d.KeyVar()
	}
	return d.Token
}

// model is one element of providers.gw.models. Crush's schema requires the
// cost fields; the service bills by subscription, so they are 0.
func model(m agents.Model) jsonc.Keyed {
	return jsonc.Keyed{ID: m.ID, Want: jsonc.Want{Container: true, Fields: []jsonc.Field{
		{Key: "id", Val: m.ID},
		{Key: "name", Val: m.Name, OnlyIfMissing: true},
		{Key: "cost_per_1m_in", Val: 0, OnlyIfMissing: true},
		{Key: "cost_per_1m_out", Val: 0, OnlyIfMissing: true},
		{Key: "cost_per_1m_in_cached", Val: 0, OnlyIfMissing: true},
		{Key: "cost_per_1m_out_cached", Val: 0, OnlyIfMissing: true},
		{Key: "context_window", Val: m.Context},
		{Key: "default_max_tokens", Val: m.Output},
		{Key: "can_reason", Val: m.Reasoning},
		{Key: "supports_attachments", Val: m.Attachment},
	}}}
}

// Merge writes d into crush.json src (nil or empty: a new file).
func Merge(src []byte, d agents.Declaration) (agents.Result, error) {
	before, f, top, err := agents.OpenJSON(src, d, Inspect, dialect)
	if err != nil {
		return agents.Result{}, err
	}
	if f.Fresh {
		if err := f.Insert(top, "$schema", Schema); err != nil {
			return agents.Result{}, err
		}
	}
	res := agents.Result{}
	providers, err := f.Object(top, "providers")
	if err != nil {
		return agents.Result{}, err
	}
	i, err := f.Find(providers, agents.ProviderID)
	if err != nil {
		return agents.Result{}, err
	}
	res.Created = i < 0
	gw, err := f.Object(providers, agents.ProviderID)
	if err != nil {
		return agents.Result{}, err
	}
	if _, err := f.Apply(gw, jsonc.Want{Fields: []jsonc.Field{
		{Key: "name", Val: agents.ProviderName, OnlyIfMissing: true},
		{Key: "type", Val: ProviderType},
		{Key: "base_url", Val: d.BaseURL},
		{Key: "api_key", Val: apiKey(d)},
	}, Drop: []string{"disable"}}); err != nil {
		return agents.Result{}, err
	}
	res.Added, res.Removed, res.Updated, err = agents.SyncModels(f, gw, "models", nil, d, model)
	if err != nil {
		return agents.Result{}, err
	}
	if res.Created {
		res.Updated = nil
	}
	slots := []jsonc.Field{{Key: "large", Val: slot(d.DefaultModel().ID)}}
	if d.Small != "" {
		slots = append(slots, jsonc.Field{Key: "small", Val: slot(d.Small)})
	}
	if _, err := f.Apply(top, jsonc.Want{Fields: []jsonc.Field{{Key: "models", Val: jsonc.Want{Container: true, Fields: slots}}}}); err != nil {
		return agents.Result{}, err
	}
	if before.KeyKind == agents.KeyLiteral {
		res.Warnings = append(res.Warnings, "providers.gw.api_key held a key in plain text; it now holds "+map[bool]string{true: "gw serve's local token", false: "a reference to $" + d.KeyVar()}[d.Mode == agents.Proxy])
	}
	if len(before.Notes) > 0 {
		res.Warnings = append(res.Warnings, `removed "disable": true from providers.gw, so Crush offers it again`)
	}
	res.Data = f.Pack()
	res.Changed = string(res.Data) != string(src)
	after, err := Inspect(res.Data)
	if err := d.CheckMerged("the merged config", after, err); err != nil {
		return agents.Result{}, err
	}
	return res, nil
}

func slot(id string) jsonc.Want {
	return jsonc.Want{Container: true, Inline: true, Fields: []jsonc.Field{
		{Key: "model", Val: id},
		{Key: "provider", Val: agents.ProviderID},
	}}
}

var envRef = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$`)

// Inspect reads providers.gw and the model slots back from src.
func Inspect(src []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(src, dialect)
	if err != nil {
		return agents.Inspection{}, err
	}
	var in agents.Inspection
	gw := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "providers")), agents.ProviderID))
	if gw != nil {
		in.Configured = true
		in.BaseURL = jsonc.Str(jsonc.Member(gw, "base_url"))
		key := jsonc.Str(jsonc.Member(gw, "api_key"))
		in.KeyKind, in.KeyRef = agents.ClassifyKey(key, func(k string) string {
			if m := envRef.FindStringSubmatch(k); m != nil {
				return m[1]
			}
			return ""
		})
		if in.KeyKind == agents.KeyLocalToken {
			in.LocalToken = key
		}
		if list := jsonc.ArrOf(jsonc.Member(gw, "models")); list != nil {
			for i := range list.Elements {
				o, ok := list.Elements[i].Value.(*hujson.Object)
				if !ok {
					continue
				}
				if id := jsonc.Str(jsonc.Member(o, "id")); id != "" && !slices.Contains(in.Models, id) {
					in.Models = append(in.Models, id)
				}
			}
		}
		if v := jsonc.Member(gw, "disable"); v != nil && v.Value.Kind() == 't' {
			in.Notes = append(in.Notes, `providers.gw has "disable": true, so Crush ignores it`)
		}
	}
	slots := jsonc.ObjOf(jsonc.Member(top, "models"))
	for _, s := range []struct {
		name string
		to   *string
	}{{"large", &in.Default}, {"small", &in.Small}} {
		o := jsonc.ObjOf(jsonc.Member(slots, s.name))
		if jsonc.Str(jsonc.Member(o, "provider")) == agents.ProviderID {
			*s.to = jsonc.Str(jsonc.Member(o, "model"))
		}
	}
	return in, nil
}
