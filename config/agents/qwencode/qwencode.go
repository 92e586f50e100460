// Package qwencode writes gw into Qwen Code's settings.json: one entry per
// model under modelProviders.openai (id, name, baseUrl, envKey,
// generationConfig with the context window and output limit), the variable
// that entry names set in the settings' own "env" block to gw serve's local
// token, security.auth.selectedType "openai", model.name and fastModel.
// This is the shape Qwen Code's own /auth "Custom Provider" flow writes.
//
// Checked against Qwen Code 0.24.4 (@qwen-code/qwen-code; first against 0.15.10): settings are
// $QWEN_HOME/settings.json (default ~/.qwen/settings.json) and the project's
// .qwen/settings.json, read with comments stripped (strip-json-comments,
// then JSON.parse): a trailing comma is refused here, as Qwen Code refuses
// it (0.15.10 set the file aside; 0.24.4 does not start at all), and a
// byte-order mark is kept, which 0.24.4 reads past (0.15.10 set such a
// file aside too).
// A file without "$version" (or an older one) is
// rewritten by Qwen Code on its next start, so a new file gets the current
// version, 4. gw's entries are the ones whose envKey is GW_LOCAL_TOKEN or
// GW_API_KEY; other entries are the user's.
package qwencode

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/internal/remedy"
)

const (
	displayName   = "Qwen Code"
	testedVersion = "0.24.4"
	// SettingsVersion is the "$version" Qwen Code 0.15 and 0.24 write; a file with
	// a lower one is migrated (rewritten) when Qwen Code starts.
	SettingsVersion = 4
	homeEnv         = "QWEN_HOME"
	authType        = "openai"
)

// dialect: Qwen Code strips comments and then uses JSON.parse, so a
// trailing comma makes it set the whole file aside (renamed to
// settings.json.corrupted.*, checked with 0.15.10; 0.24.4 leaves it, saves
// a copy as settings.json.corrupted and refuses to start). It reads past a
// byte-order mark since 0.24 (checked with 0.24.4).
var dialect = jsonc.Dialect{Comments: true, BOM: true, Agent: displayName}

// Agent describes Qwen Code for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: Merge, InspectFile: Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "qwen-code", Display: displayName, Binary: "qwen", Version: testedVersion,
		UserAgents: []string{"qwencode", "qwen-code"},
		Install:    "npm install -g @qwen-code/qwen-code", Entry: `gw's entries in modelProviders.openai`,
		Protocol: agents.ChatCompletions,
	}
}

// RunOverride: Qwen Code prefers an entry of modelProviders for a model id to the environment's, so gw's
// entries under another base URL win over gw run's.
func (agent) RunOverride(in agents.Inspection, d agents.Declaration) (agents.Override, bool) {
	return agents.Override{BaseURL: in.BaseURL}, in.Configured && in.BaseURL != d.BaseURL
}

// Path is the settings file for scope.
func Path(s agents.Scope, e agents.Place) (string, error) {
	switch s {
	case agents.Global:
		return e.HomeOr(homeEnv, ".qwen", "settings.json")
	case agents.Project:
		if e.WorkDir == "" {
			return "", errors.New("no working directory for the project settings")
		}
		return filepath.Join(e.WorkDir, ".qwen", "settings.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q", s)
}

// envKey is the variable gw's entries name for the key.
func envKey(d agents.Declaration) string {
	if d.Mode == agents.Direct {
		return d.KeyVar()
	}
	return agents.TokenEnv
}

// ours: an entry of modelProviders.openai that gw wrote.
func ours(o *hujson.Object) bool {
	k := jsonc.Str(jsonc.Member(o, "envKey"))
	return k == agents.TokenEnv || k == agents.DefaultKeyEnv
}

// generation is an entry's generationConfig. Qwen Code (0.15.10, 0.24.4) sends an
// image to a model only when its generationConfig.modalities says image:
// true (capabilities.vision alone shows it as a vision model, but the image
// is replaced by a note saying the model cannot take it); it guesses
// modalities from the id for models it knows, and knows none of the
// service's. PDFs are left to Qwen Code's text extraction.
func generation(m agents.Model) []jsonc.Field {
	f := []jsonc.Field{
		{Key: "contextWindowSize", Val: m.Context},
		{Key: "samplingParams", Val: jsonc.Want{Container: true, Inline: true, Fields: []jsonc.Field{{Key: "max_tokens", Val: m.Output}}}},
	}
	if m.Attachment {
		f = append(f, jsonc.Field{Key: "modalities", Val: jsonc.Want{Container: true, Inline: true, Fields: []jsonc.Field{{Key: "image", Val: true}}}})
	}
	return f
}

func entry(d agents.Declaration, m agents.Model) jsonc.Keyed {
	w := jsonc.Want{Container: true, Fields: []jsonc.Field{
		{Key: "id", Val: m.ID},
		{Key: "name", Val: m.Name, OnlyIfMissing: true},
		{Key: "baseUrl", Val: d.BaseURL},
		{Key: "envKey", Val: envKey(d)},
		{Key: "generationConfig", Val: jsonc.Want{Container: true, Fields: generation(m)}},
	}}
	if m.Attachment {
		w.Fields = append(w.Fields, jsonc.Field{Key: "capabilities", Val: jsonc.Want{Container: true, Inline: true, Fields: []jsonc.Field{{Key: "vision", Val: true}}}})
	}
	return jsonc.Keyed{ID: m.ID, Want: w}
}

// Merge writes d into the settings src (nil or empty: a new file).
func Merge(src []byte, d agents.Declaration) (agents.Result, error) {
	before, f, top, err := agents.OpenJSON(src, d, Inspect, dialect)
	if err != nil {
		return agents.Result{}, err
	}
	if f.Fresh {
		if err := f.Insert(top, "$version", SettingsVersion); err != nil {
			return agents.Result{}, err
		}
	}
	res := agents.Result{Created: !before.Configured}

	if d.Mode == agents.Proxy {
		env, err := f.Object(top, "env")
		if err != nil {
			return agents.Result{}, err
		}
		if _, err := f.Apply(env, jsonc.Want{Fields: []jsonc.Field{{Key: agents.TokenEnv, Val: d.Token}}}); err != nil {
			return agents.Result{}, err
		}
	}
	providers, err := f.Object(top, "modelProviders")
	if err != nil {
		return agents.Result{}, err
	}
	res.Added, res.Removed, res.Updated, err = agents.SyncModels(f, providers, authType, ours, d, func(m agents.Model) jsonc.Keyed { return entry(d, m) })
	if err != nil {
		return agents.Result{}, err
	}
	settings := []jsonc.Field{
		{Key: "security", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{
			{Key: "auth", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{{Key: "selectedType", Val: authType}}}},
		}}},
		{Key: "model", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{{Key: "name", Val: d.DefaultModel().ID}}}},
	}
	if d.Small != "" {
		settings = append(settings, jsonc.Field{Key: "fastModel", Val: d.Small})
	}
	if _, err := f.Apply(top, jsonc.Want{Fields: settings}); err != nil {
		return agents.Result{}, err
	}

	res.Data = f.Pack()
	res.Changed = string(res.Data) != string(src)
	after, err := Inspect(res.Data)
	if err := d.CheckMerged("the merged settings", after, err); err != nil {
		return agents.Result{}, err
	}
	res.Warnings = warnings(res.Data, d)
	return res, nil
}

// warnings: what would stop Qwen Code from using gw's entries.
func warnings(data []byte, d agents.Declaration) []string {
	var out []string
	top, err := jsonc.ReadTop(data, dialect)
	if err != nil || top == nil {
		return out
	}
	auth := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "security")), "auth"))
	if jsonc.Str(jsonc.Member(auth, "apiKey")) != "" {
		out = append(out, `"security.auth.apiKey" holds a key written into the file; remove it (gw's entries name their key variable with envKey)`)
	}
	if d.Mode == agents.Direct {
		out = append(out, fmt.Sprintf("Qwen Code reads the key from %s: set it in the environment Qwen Code starts in", d.KeyVar()))
	}
	return out
}

// Inspect reads gw's entries back from src.
func Inspect(src []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(src, dialect)
	if err != nil {
		return agents.Inspection{}, err
	}
	var in agents.Inspection
	list := jsonc.ArrOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "modelProviders")), authType))
	key := ""
	if list != nil {
		for i := range list.Elements {
			o, ok := list.Elements[i].Value.(*hujson.Object)
			if !ok || !ours(o) {
				continue
			}
			in.Configured = true
			if in.BaseURL == "" {
				in.BaseURL = jsonc.Str(jsonc.Member(o, "baseUrl"))
				key = jsonc.Str(jsonc.Member(o, "envKey"))
			}
			if id := jsonc.Str(jsonc.Member(o, "id")); id != "" && !slices.Contains(in.Models, id) {
				in.Models = append(in.Models, id)
			}
		}
	}
	env := jsonc.ObjOf(jsonc.Member(top, "env"))
	switch key {
	case "":
		in.KeyKind = agents.KeyNone
	case agents.TokenEnv:
		in.SetKey(jsonc.Str(jsonc.Member(env, key)), nil)
	default:
		in.KeyKind, in.KeyRef = agents.KeyEnvRef, key
		if jsonc.Str(jsonc.Member(env, key)) != "" {
			// the key itself, written into the env block
			in.KeyKind, in.KeyRef = agents.KeyLiteral, ""
		}
	}
	auth := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "security")), "auth"))
	if jsonc.Str(jsonc.Member(auth, "apiKey")) != "" {
		in.Notes = append(in.Notes, `"security.auth.apiKey" holds a key written into the file`)
	}
	if t := jsonc.Str(jsonc.Member(auth, "selectedType")); in.Configured && t != authType {
		in.Notes = append(in.Notes, fmt.Sprintf(`"security.auth.selectedType" is %q, so Qwen Code does not use gw's models; set it to %q`, t, authType))
	}
	in.Default = jsonc.Str(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "model")), "name"))
	in.Small = jsonc.Str(jsonc.Member(top, "fastModel"))
	return in, nil
}

// Run is gw run's route: OPENAI_BASE_URL, OPENAI_API_KEY (the local token)
// and OPENAI_MODEL in Qwen Code's environment, with the output limit in
// QWEN_CODE_MAX_OUTPUT_TOKENS; and, as arguments (nothing secret),
// --auth-type openai, --model and --openai-base-url, so that a settings file
// choosing another sign-in or model does not win. One thing still does
// (checked with 0.15.10 and 0.24.4): an entry of modelProviders.openai in the user's
// settings with the same model id and another baseUrl — a stale gw init;
// Inspect shows it (BaseURL), and gw init agent --agent qwen-code fixes it.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) {
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	if d.Mode == agents.Direct {
		return agents.RunSpec{}, remedy.With(errors.New("gw run points Qwen Code at gw serve"), remedy.Remedy{Do: remedy.InitAgentDirect, Agent: Agent().Info().RemedyAgent()})
	}
	m := d.DefaultModel()
	return agents.RunSpec{
		Env: []string{
			"OPENAI_BASE_URL=" + d.BaseURL,
			"OPENAI_API_KEY=" + d.Token,
			"OPENAI_MODEL=" + m.ID,
			"QWEN_CODE_MAX_OUTPUT_TOKENS=" + strconv.Itoa(m.Output),
		},
		Args: []string{"--auth-type", authType, "--model", m.ID, "--openai-base-url", d.BaseURL},
	}, nil
}
