// Package pi writes gw into pi's config (@mariozechner/pi-coding-agent): the provider "gw" in its
// models.json (baseUrl, api, apiKey, and one entry per model with its context window, output limit,
// reasoning and image input), and defaultProvider/defaultModel in its settings.json, so that pi starts
// with gw's default model.
//
// Through gw serve pi speaks the Anthropic Messages API ("api": "anthropic-messages"), which gw serve
// translates onto the service's chat completions. That is pi at its full strength: on its Messages path pi
// sends the thinking of an earlier turn back with its signature and keeps a tool call's id as it came, so
// reasoning carried over chat completions in any dialect (LiteLLM's thinking_blocks, OpenRouter's
// reasoning_details, Gemini's thought signatures, which Gemini 3 refuses a tool call without) reaches the
// service again on the next turn; its thinking levels become reasoning_effort, and its cache_control
// breakpoints are carried over. On its chat completions path ("openai-completions", the only one that can
// reach the service directly) pi drops every signature but OpenRouter's encrypted reasoning, so the
// models that need them lose their reasoning between turns, and a Gemini-class model refuses a tool call
// sent back without its thought signature (checked with 0.73.1 against the stand-in). Direct mode
// therefore writes "openai-completions", and warns.
//
// Checked against pi 0.73.1: models.json and settings.json are in $PI_CODING_AGENT_DIR (a leading ~
// expanded), else ~/.pi/agent; there is no project models.json. models.json is read with `//` comments
// and trailing commas removed, then JSON.parse (a byte-order mark or a /* */ comment makes pi ignore the
// whole file); settings.json with JSON.parse alone. An apiKey is an environment variable's name when
// one of that name is set, else the key itself ("!command" runs a command).
package pi

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
	displayName   = "pi"
	testedVersion = "0.73.1"
	dirEnv        = "PI_CODING_AGENT_DIR"
	apiMessages   = "anthropic-messages"
	apiChat       = "openai-completions"
)

var (
	// modelsDialect: `//` comments and trailing commas are removed before JSON.parse. A /* */
	// comment is accepted here though pi would not read it (gw writes none).
	modelsDialect = jsonc.Dialect{Comments: true, TrailingCommas: true, Agent: displayName}
	// settingsDialect: JSON.parse alone.
	settingsDialect = jsonc.Dialect{Agent: displayName}
)

// Agent describes pi for gw.
func Agent() agents.Agent { return agent{} }

type agent struct{}

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "pi", Display: displayName, Binary: "pi", Version: testedVersion,
		UserAgents: []string{"pi-coding-agent"},
		Install:    "npm install -g @mariozechner/pi-coding-agent", Package: "@mariozechner/pi-coding-agent", Entry: `provider "gw" in models.json`,
		Protocol: agents.AnthropicMessages,
	}
}

// Files are models.json and settings.json of pi's agent directory; pi has no project models.json.
func (agent) Files(s agents.Scope, e agents.Place) ([]string, error) {
	switch s {
	case agents.Global:
	case agents.Project:
		return nil, remedy.With(errors.New("pi reads its models only from its agent directory (~/.pi/agent), not from a project"),
			remedy.Remedy{Do: remedy.InitAgentGlobal, Agent: Agent().Info().RemedyAgent()})
	default:
		return nil, fmt.Errorf("unknown scope %q", s)
	}
	dir := e.Getenv(dirEnv)
	switch {
	case dir == "~" || strings.HasPrefix(dir, "~/"):
		h, err := e.Home()
		if err != nil {
			return nil, err
		}
		dir = h + dir[1:]
	case dir == "":
		var err error
		if dir, err = e.Home(".pi", "agent"); err != nil {
			return nil, err
		}
	case !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "/"):
		return nil, fmt.Errorf("%s=%q is not an absolute path; set it to an absolute path or unset it", dirEnv, dir)
	}
	return []string{filepath.Join(dir, "models.json"), filepath.Join(dir, "settings.json")}, nil
}

// provider is gw's entry of models.json; run: for gw run's extension (the key read from
// GW_LOCAL_TOKEN, costs given, as pi's registerProvider needs them).
func provider(d agents.Declaration, run bool) jsonc.Want {
	base, api, key := d.Origin(), apiMessages, d.Token
	switch {
	case d.Mode == agents.Direct:
		base, api, key = d.BaseURL, apiChat, d.KeyVar()
	case run:
		key = agents.TokenEnv
	case d.Credential != nil:
		key = credentialKey(*d.Credential) // credential.go
	}
	return jsonc.Want{Container: true, Fields: []jsonc.Field{
		{Key: "name", Val: agents.ProviderName, OnlyIfMissing: true},
		{Key: "baseUrl", Val: base},
		{Key: "api", Val: api},
		{Key: "apiKey", Val: key},
	}}
}

func model(m agents.Model, run bool) jsonc.Keyed {
	input := []string{"text"}
	if m.Attachment {
		input = []string{"text", "image"}
	}
	w := jsonc.Want{Container: true, Fields: []jsonc.Field{
		{Key: "id", Val: m.ID},
		{Key: "name", Val: m.Name, OnlyIfMissing: true},
		{Key: "reasoning", Val: m.Reasoning},
		{Key: "input", Val: input},
		{Key: "contextWindow", Val: m.Context},
		{Key: "maxTokens", Val: m.Output},
	}}
	if run {
		w.Fields = append(w.Fields, jsonc.Field{Key: "cost", Val: jsonc.Want{Inline: true, Fields: []jsonc.Field{
			{Key: "input", Val: 0}, {Key: "output", Val: 0}, {Key: "cacheRead", Val: 0}, {Key: "cacheWrite", Val: 0}}}})
	}
	return jsonc.Keyed{ID: m.ID, Want: w}
}

// Merge writes d into models.json and settings.json (srcs in Files' order, nil for a missing file).
func (agent) Merge(srcs [][]byte, d agents.Declaration) ([]agents.Result, error) {
	if len(srcs) != 2 {
		return nil, errors.New("internal error: pi's merge takes models.json and settings.json")
	}
	m, err := MergeModels(srcs[0], d)
	if err != nil {
		return nil, err
	}
	s, err := MergeSettings(srcs[1], d)
	if err != nil {
		return nil, err
	}
	if d.Mode == agents.Direct {
		m.Warnings = append(m.Warnings, fmt.Sprintf("pi reads the key from %s: set it in the environment pi starts in", d.KeyVar()))
		m.Warnings = append(m.Warnings, "pi speaks chat completions to the service itself, and on that path it sends no thought signature back: a Gemini-class model refuses its tool calls after the first; through gw serve (--mode proxy) pi speaks the Messages API, which keeps the models' reasoning between turns")
	}
	return []agents.Result{m, s}, nil
}

// MergeModels is Merge's models.json half.
func MergeModels(src []byte, d agents.Declaration) (agents.Result, error) {
	before, f, top, err := agents.OpenJSON(src, d, inspectModels, modelsDialect)
	if err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{Created: !before.Configured}
	gw, err := f.Object(top, "providers", agents.ProviderID)
	if err != nil {
		return agents.Result{}, err
	}
	if _, err := f.Apply(gw, provider(d, false)); err != nil {
		return agents.Result{}, err
	}
	res.Added, res.Removed, res.Updated, err = agents.SyncModels(f, gw, "models", nil, d, func(m agents.Model) jsonc.Keyed { return model(m, false) })
	if err != nil {
		return agents.Result{}, err
	}
	res.Data = f.Pack()
	res.Changed = string(res.Data) != string(src)
	after, err := inspectModels(res.Data)
	if err != nil {
		return agents.Result{}, fmt.Errorf("internal error: the merged models.json does not parse (%v); nothing was written", err)
	}
	if !agents.SameIDs(after.Models, d.IDs()) {
		return agents.Result{}, errors.New("internal error: the merged models.json does not hold gw's models; nothing was written")
	}
	return res, nil
}

// MergeSettings is Merge's settings.json half.
func MergeSettings(src []byte, d agents.Declaration) (agents.Result, error) {
	_, f, top, err := agents.OpenJSON(src, d, inspectSettings, settingsDialect)
	if err != nil {
		return agents.Result{}, err
	}
	if _, err := f.Apply(top, jsonc.Want{Fields: []jsonc.Field{
		{Key: "defaultProvider", Val: agents.ProviderID},
		{Key: "defaultModel", Val: d.DefaultModel().ID},
	}}); err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{Data: f.Pack()}
	res.Changed = string(res.Data) != string(src)
	return res, nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Inspect reads gw's provider back from models.json and the default model from settings.json.
func (agent) Inspect(srcs [][]byte) (agents.Inspection, error) {
	if len(srcs) != 2 {
		return agents.Inspection{}, errors.New("internal error: pi's inspect takes models.json and settings.json")
	}
	in, err := inspectModels(srcs[0])
	if err != nil {
		return agents.Inspection{}, err
	}
	s, err := inspectSettings(srcs[1])
	if err != nil {
		return agents.Inspection{}, err
	}
	in.Default = s.Default
	return in, nil
}

func inspectModels(src []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(src, modelsDialect)
	if err != nil {
		return agents.Inspection{}, err
	}
	var in agents.Inspection
	gw := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "providers")), agents.ProviderID))
	if gw == nil {
		return in, nil
	}
	in.Configured = true
	in.BaseURL = jsonc.Str(jsonc.Member(gw, "baseUrl"))
	key := jsonc.Str(jsonc.Member(gw, "apiKey"))
	switch {
	case strings.HasPrefix(key, "!"): // a command pi runs for the key: nothing written into the file
		in.KeyKind, in.KeyCommand = agents.KeyCommand, strings.TrimPrefix(key, "!")
		in.GwCommand = agents.IsCredentialCommand(in.KeyCommand)
	default:
		in.SetKey(strings.TrimSpace(key), func(k string) string {
			if envName.MatchString(k) {
				return k
			}
			return ""
		})
	}
	if list := jsonc.ArrOf(jsonc.Member(gw, "models")); list != nil {
		for i := range list.Elements {
			if o, ok := list.Elements[i].Value.(*hujson.Object); ok {
				if id := jsonc.Str(jsonc.Member(o, "id")); id != "" && !slices.Contains(in.Models, id) {
					in.Models = append(in.Models, id)
				}
			}
		}
	}
	if api := jsonc.Str(jsonc.Member(gw, "api")); api != apiMessages && api != apiChat {
		in.Notes = append(in.Notes, fmt.Sprintf(`provider "gw" has "api": %q, which gw serve does not speak`, api))
	}
	return in, nil
}

func inspectSettings(src []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(src, settingsDialect)
	if err != nil {
		return agents.Inspection{}, err
	}
	var in agents.Inspection
	if jsonc.Str(jsonc.Member(top, "defaultProvider")) == agents.ProviderID {
		in.Default = jsonc.Str(jsonc.Member(top, "defaultModel"))
	}
	return in, nil
}

// extension registers gw's provider for one run of pi; %s is the provider's JSON, which holds no
// secret (its apiKey names GW_LOCAL_TOKEN, which pi reads from its environment).
const extension = `// gw run: gw's provider for this run of pi only (removed when pi ends).
export default function (pi) {
  pi.registerProvider("gw", %s);
}
`

// Run is gw run's route: an extension (in gw run's directory for this run) that registers gw's provider,
// loaded with -e, and --provider gw --model. The local token is in GW_LOCAL_TOKEN, which the provider's
// apiKey names. Nothing of pi's own is written.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) {
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	if d.Mode == agents.Direct {
		return agents.RunSpec{}, remedy.With(errors.New("gw run points pi at gw serve"), remedy.Remedy{Do: remedy.InitAgentDirect, Agent: Agent().Info().RemedyAgent()})
	}
	p := provider(d, true)
	var models jsonc.List
	for _, m := range d.Models {
		models = append(models, model(m, true).Want)
	}
	p.Fields = append(p.Fields, jsonc.Field{Key: "models", Val: models})
	f, err := jsonc.Parse(nil, modelsDialect)
	if err != nil {
		return agents.RunSpec{}, err
	}
	top, err := f.Top(displayName)
	if err != nil {
		return agents.RunSpec{}, err
	}
	if _, err := f.Apply(top, jsonc.Want{Fields: p.Fields}); err != nil {
		return agents.RunSpec{}, err
	}
	body := strings.TrimSpace(strings.ReplaceAll(string(f.Pack()), "\n", "\n  "))
	return agents.RunSpec{
		Env:   []string{agents.TokenEnv + "=" + d.Token},
		Args:  []string{"--provider", agents.ProviderID, "--model", d.DefaultModel().ID},
		Files: map[string][]byte{"gw.js": fmt.Appendf(nil, extension, body)},
		Prepare: agents.InRunDir(func(dir string) []string {
			return []string{"-e", filepath.Join(dir, "gw.js")}
		}),
	}, nil
}
