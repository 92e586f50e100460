// Package cline writes gw into the Cline CLI's provider settings: its
// built-in "openai-compatible" provider in providers.json (base URL, the
// local token as apiKey, the default model, and lastUsedProvider so Cline
// starts with it), and the models with their names, context windows and
// output limits in models.json beside it.
//
// Checked against Cline 3.0.65 (npm cline, SDK 0.0.86): the files are
// $CLINE_DATA_DIR/settings/{providers,models}.json, CLINE_DATA_DIR defaulting
// to $CLINE_DIR/data and CLINE_DIR to ~/.cline (CLINE_PROVIDER_SETTINGS_PATH
// names providers.json itself; models.json is beside it). Both are read with
// JSON.parse — plain JSON, no byte-order mark — and a file that does not
// parse or match Cline's schema is treated as empty (and overwritten at
// Cline's next save), so this writer refuses what Cline could not read.
// Cline rewrites both files with JSON.stringify(…, null, 2) whenever it
// saves a setting, so the user's formatting lasts only until then. A custom
// provider id (a "gw" entry with full metadata in models.json) was refused
// by Cline 3.0.65 ("Unknown or disabled provider"), hence the built-in slot.
//
// Cline has no project-level provider settings, no way to name an
// environment variable for the key (direct mode would write the key), and
// takes the base URL only from providers.json (no gw run route).
package cline

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
)

const (
	displayName   = "Cline"
	testedVersion = "3.0.65"
	// ProviderID is Cline's built-in OpenAI-compatible provider, the slot gw
	// takes.
	ProviderID    = "openai-compatible"
	directRefusal = "Cline keeps its API key written in providers.json and cannot refer to an environment variable, and gw never writes the key into a file"
)

var dialect = jsonc.Dialect{Agent: displayName}

// Agent describes Cline for gw.
func Agent() agents.Agent { return agent{} }

type agent struct{}

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "cline", Display: displayName, Binary: "cline", Version: testedVersion,
		UserAgents: []string{"cline"},
		Install:    "npm install -g cline", Entry: `provider "openai-compatible"`,
		Protocol: agents.ChatCompletions,
		NoRun:    "Cline takes the base URL only from its providers.json",
	}
}

func (agent) DirectRefusal() string { return directRefusal }
func (agent) Merge(srcs [][]byte, d agents.Declaration) ([]agents.Result, error) {
	return MergeAt(srcs[0], srcs[1], d, time.Now())
}
func (agent) Inspect(srcs [][]byte) (agents.Inspection, error) { return Inspect(srcs[0], srcs[1]) }

// Files are providers.json and models.json.
func (agent) Files(s agents.Scope, e agents.Place) ([]string, error) {
	if s == agents.Project {
		return nil, errors.New("Cline keeps provider settings per user only (~/.cline/data/settings); run without --project")
	}
	if s != agents.Global {
		return nil, fmt.Errorf("unknown scope %q", s)
	}
	providers := strings.TrimSpace(e.Getenv("CLINE_PROVIDER_SETTINGS_PATH"))
	if providers == "" {
		data := strings.TrimSpace(e.Getenv("CLINE_DATA_DIR"))
		if data == "" {
			dir := strings.TrimSpace(e.Getenv("CLINE_DIR"))
			if dir == "" {
				var err error
				if dir, err = e.Home(".cline"); err != nil {
					return nil, err
				}
			}
			data = filepath.Join(dir, "data")
		}
		providers = filepath.Join(data, "settings", "providers.json")
	}
	return []string{providers, filepath.Join(filepath.Dir(providers), "models.json")}, nil
}

// MergeAt writes d into providers.json and models.json (nil or empty: new
// files); now stamps updatedAt when gw's provider settings change.
func MergeAt(providersSrc, modelsSrc []byte, d agents.Declaration, now time.Time) ([]agents.Result, error) {
	if d.Mode == agents.Direct {
		return nil, agents.RefuseDirect(displayName, directRefusal)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	before, err := Inspect(providersSrc, modelsSrc)
	if err != nil {
		return nil, err
	}
	pres, err := mergeProviders(providersSrc, d, now)
	if err != nil {
		return nil, err
	}
	mres, err := mergeModels(modelsSrc, d)
	if err != nil {
		return nil, err
	}
	if before.BaseURL != "" && before.BaseURL != d.BaseURL && !loopback(before.BaseURL) {
		pres.Warnings = append(pres.Warnings, fmt.Sprintf("Cline's %q provider pointed at %s; it now points at %s", ProviderID, before.BaseURL, d.BaseURL))
	}
	if before.KeyKind == agents.KeyLiteral {
		pres.Warnings = append(pres.Warnings, fmt.Sprintf("the %q provider held a key in plain text; it now holds gw serve's local token", ProviderID))
	}
	pres.Created = !before.Configured
	after, err := Inspect(pres.Data, mres.Data)
	if err := d.CheckMerged("the merged settings", after, err); err != nil {
		return nil, err
	}
	if after.LocalToken != d.Token {
		return nil, errors.New("internal error: the merged settings do not hold gw serve's local token; nothing was written")
	}
	return []agents.Result{pres, mres}, nil
}

func loopback(u string) bool {
	return strings.Contains(u, "://127.0.0.1:") || strings.Contains(u, "://localhost:") || strings.Contains(u, "://[::1]:")
}

func mergeProviders(src []byte, d agents.Declaration, now time.Time) (agents.Result, error) {
	_, f, top, err := agents.OpenJSON(src, d, nil, dialect)
	if err != nil {
		return agents.Result{}, err
	}
	// Cline's schema requires "version": 1 (a file without it reads as empty).
	if _, err := f.Apply(top, jsonc.Want{Fields: []jsonc.Field{{Key: "version", Val: 1, OnlyIfMissing: true}, {Key: "lastUsedProvider", Val: ProviderID}}}); err != nil {
		return agents.Result{}, err
	}
	if f.Fresh {
		if err := f.Insert(top, "modes", jsonc.Want{Inline: true}); err != nil {
			return agents.Result{}, err
		}
	}
	entry, err := f.Object(top, "providers", ProviderID)
	if err != nil {
		return agents.Result{}, err
	}
	changed, err := f.Apply(entry, jsonc.Want{Fields: []jsonc.Field{
		{Key: "settings", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{
			{Key: "provider", Val: ProviderID},
			{Key: "apiKey", Val: d.Token},
			{Key: "model", Val: d.DefaultModel().ID},
			{Key: "baseUrl", Val: d.BaseURL},
		}}},
		{Key: "tokenSource", Val: "manual"},
	}})
	if err != nil {
		return agents.Result{}, err
	}
	stamp := jsonc.Want{Fields: []jsonc.Field{{Key: "updatedAt", Val: now.UTC().Format("2006-01-02T15:04:05.000Z"), OnlyIfMissing: !changed}}}
	if _, err := f.Apply(entry, stamp); err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{Data: f.Pack()}
	res.Changed = string(res.Data) != string(src)
	return res, nil
}

func mergeModels(src []byte, d agents.Declaration) (agents.Result, error) {
	_, f, top, err := agents.OpenJSON(src, d, nil, dialect)
	if err != nil {
		return agents.Result{}, err
	}
	if _, err := f.Apply(top, jsonc.Want{Fields: []jsonc.Field{{Key: "version", Val: 1, OnlyIfMissing: true}}}); err != nil {
		return agents.Result{}, err
	}
	models, err := f.Object(top, "providers", ProviderID, "models")
	if err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{}
	// Every model of the slot is gw's: they are sent to the base URL gw set.
	for i := len(models.Obj.Members) - 1; i >= 0; i-- {
		id := jsonc.MemberName(models.Obj.Members[i])
		if _, ok := d.Model(id); !ok {
			res.Removed = append([]string{id}, res.Removed...)
			f.Remove(models, i)
		}
	}
	for _, m := range d.Models {
		i, err := f.Find(models, m.ID)
		if err != nil {
			return agents.Result{}, err
		}
		want := modelFields(m)
		if i < 0 {
			if err := f.Insert(models, m.ID, want); err != nil {
				return agents.Result{}, err
			}
			res.Added = append(res.Added, m.ID)
			continue
		}
		changed, err := f.Apply(models, jsonc.Want{Fields: []jsonc.Field{{Key: m.ID, Val: want}}})
		if err != nil {
			return agents.Result{}, err
		}
		if changed {
			res.Updated = append(res.Updated, m.ID)
		}
	}
	res.Data = f.Pack()
	res.Changed = string(res.Data) != string(src)
	return res, nil
}

func modelFields(m agents.Model) jsonc.Want {
	return jsonc.Want{Container: true, Fields: []jsonc.Field{
		{Key: "id", Val: m.ID},
		{Key: "name", Val: m.Name, OnlyIfMissing: true},
		{Key: "contextWindow", Val: m.Context},
		{Key: "maxTokens", Val: m.Output},
		{Key: "supportsVision", Val: m.Attachment},
		{Key: "supportsAttachments", Val: m.Attachment},
		{Key: "supportsReasoning", Val: m.Reasoning},
	}}
}

// Inspect reads the openai-compatible provider back from providers.json
// and its models from models.json.
func Inspect(providersSrc, modelsSrc []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(providersSrc, dialect)
	if err != nil {
		return agents.Inspection{}, fmt.Errorf("providers.json: %w", err)
	}
	mtop, err := jsonc.ReadTop(modelsSrc, dialect)
	if err != nil {
		return agents.Inspection{}, fmt.Errorf("models.json: %w", err)
	}
	var in agents.Inspection
	settings := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "providers")), ProviderID)), "settings"))
	if settings != nil {
		in.BaseURL = jsonc.Str(jsonc.Member(settings, "baseUrl"))
		in.Configured = in.BaseURL != ""
		key := jsonc.Str(jsonc.Member(settings, "apiKey"))
		in.SetKey(key, nil)
		in.Default = jsonc.Str(jsonc.Member(settings, "model"))
	}
	if last := jsonc.Str(jsonc.Member(top, "lastUsedProvider")); in.Configured && last != ProviderID {
		in.Notes = append(in.Notes, fmt.Sprintf("lastUsedProvider is %q, so Cline starts with another provider", last))
	}
	models := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(mtop, "providers")), ProviderID)), "models"))
	if models != nil {
		for _, m := range models.Members {
			if id := jsonc.MemberName(m); !slices.Contains(in.Models, id) {
				in.Models = append(in.Models, id)
			}
		}
	}
	return in, nil
}
