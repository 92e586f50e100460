// Package claudecode writes gw into Claude Code's settings.json: the "env"
// block that points Claude Code at gw serve's Anthropic messages endpoint
// (ANTHROPIC_BASE_URL without /v1, the model variables) and apiKeyHelper,
// which runs gw auth token --serve for the token (credential.go; without it,
// or in a project's settings, ANTHROPIC_AUTH_TOKEN holds the local token).
// Claude Code reads settings.json with a strict JSON parser (a comment makes
// it refuse the whole file), so this writer refuses comments and trailing
// commas too, with their line and column.
//
// Checked against Claude Code 2.1.332 (first against 2.1.330): it reads the env block of
// $CLAUDE_CONFIG_DIR/settings.json (default ~/.claude/settings.json) and of
// the project's .claude/settings.json and .claude/settings.local.json; the
// settings' env wins over the process environment, and --settings wins over
// both.
package claudecode

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
)

// The variables gw owns in the env block.
const (
	EnvBaseURL     = "ANTHROPIC_BASE_URL"
	EnvAuthToken   = "ANTHROPIC_AUTH_TOKEN"
	EnvModel       = "ANTHROPIC_MODEL"
	EnvOpus        = "ANTHROPIC_DEFAULT_OPUS_MODEL"
	EnvSonnet      = "ANTHROPIC_DEFAULT_SONNET_MODEL"
	EnvHaiku       = "ANTHROPIC_DEFAULT_HAIKU_MODEL"
	EnvSmallFast   = "ANTHROPIC_SMALL_FAST_MODEL"      // background tasks; the Haiku slot's model when unset
	EnvCompact     = "CLAUDE_CODE_AUTO_COMPACT_WINDOW" // the context window of a model Claude Code does not know
	EnvMaxOutput   = "CLAUDE_CODE_MAX_OUTPUT_TOKENS"
	EnvAPIKey      = "ANTHROPIC_API_KEY" // not ours: a key written into the file
	nameSuffix     = "_NAME"
	displayName    = "Claude Code"
	settingsFile   = "settings.json"
	localSettings  = "settings.local.json"
	directRefusal  = "Claude Code speaks the Anthropic messages API and the service speaks chat completions only; gw serve translates between them"
	testedVersion  = "2.1.332"
	configDirEnv   = "CLAUDE_CONFIG_DIR"
	projectDirName = ".claude"
)

// dialect: Claude Code reads settings.json as plain JSON (a comment makes it
// report "Invalid or malformed JSON" and ignore the file); a byte-order mark
// is fine (checked with 2.1.330 and 2.1.332).
var dialect = jsonc.Dialect{BOM: true, Agent: displayName}

// Agent describes Claude Code for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: Merge, InspectFile: Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "claude-code", Display: displayName, Binary: "claude", Version: testedVersion,
		UserAgents: []string{"claude-cli", "claude-code"},
		Install:    "npm install -g @anthropic-ai/claude-code", Entry: `gw serve's settings in "env"`,
		Protocol: agents.AnthropicMessages,
		// gw serve answers its WebSearch with an error that says so (the web_search server tool needs
		// Anthropic's servers).
		Unavailable: "its WebSearch tool (the service has no web search; WebFetch works)",
	}
}

func (agent) DirectRefusal() string         { return directRefusal }
func (agent) ChoosesOwn() (def, small bool) { return false, true } // its Haiku tier

// RunOverride: a key in the settings' "env" (gw serve's token of another install, or an API key) is what
// Claude Code sends, whatever gw run puts in its environment.
func (agent) RunOverride(in agents.Inspection, d agents.Declaration) (agents.Override, bool) {
	if in.KeyKind == agents.KeyLiteral || in.KeyKind == agents.KeyLocalToken && in.LocalToken != d.Token {
		return agents.Override{KeyVars: []string{EnvAuthToken, EnvAPIKey}, Block: "env"}, true
	}
	return agents.Override{}, false
}

// Path is the settings file for scope: $CLAUDE_CONFIG_DIR/settings.json
// (default ~/.claude/settings.json), or the project's
// .claude/settings.local.json — the personal one, which Claude Code keeps
// out of git: it holds this machine's local token.
func Path(s agents.Scope, e agents.Place) (string, error) {
	switch s {
	case agents.Global:
		return e.HomeOr(configDirEnv, projectDirName, settingsFile)
	case agents.Project:
		if e.WorkDir == "" {
			return "", fmt.Errorf("no working directory for the project settings")
		}
		return filepath.Join(e.WorkDir, projectDirName, localSettings), nil
	}
	return "", fmt.Errorf("unknown scope %q", s)
}

// vars are the env block's values gw writes, in order: the default model,
// each of Claude Code's Opus, Sonnet and Haiku slots with the declared model
// of its class (see Slots), and the model of its background tasks when one
// was chosen (all: also when none was, for gw run, whose --settings must win
// over one a settings file names).
func vars(d agents.Declaration, all bool) []jsonc.Field {
	def, slots := d.DefaultModel(), Slots(d)
	small := smallFast(d, slots)
	// Claude Code sends the one output limit to every model it uses.
	out := min(def.Output, small.Output)
	fields := []jsonc.Field{
		{Key: EnvBaseURL, Val: d.Origin()},
		{Key: EnvAuthToken, Val: d.Token},
		{Key: EnvModel, Val: def.ID},
	}
	for _, s := range slots {
		out = min(out, s.Model.Output)
		fields = append(fields, jsonc.Field{Key: s.Env, Val: s.Model.ID}, jsonc.Field{Key: s.Env + nameSuffix, Val: s.Model.Name})
	}
	if d.Small != "" || all {
		fields = append(fields, jsonc.Field{Key: EnvSmallFast, Val: small.ID})
	}
	return append(fields,
		jsonc.Field{Key: EnvCompact, Val: strconv.Itoa(def.Context)},
		jsonc.Field{Key: EnvMaxOutput, Val: strconv.Itoa(out)},
	)
}

// Merge writes d into the settings src (nil or empty: a new file).
func Merge(src []byte, d agents.Declaration) (agents.Result, error) {
	if d.Mode == agents.Direct {
		return agents.Result{}, agents.RefuseDirect(displayName, directRefusal)
	}
	before, f, top, err := agents.OpenJSON(src, d, Inspect, dialect)
	if err != nil {
		return agents.Result{}, err
	}
	// A key in ANTHROPIC_API_KEY would be sent instead of the local token:
	// it goes (the backup keeps the old file). Without a chosen small model
	// the background tasks follow the Haiku slot.
	drop := []string{EnvAPIKey}
	if d.Small == "" {
		drop = append(drop, EnvSmallFast)
	}
	envVars := vars(d, false)
	helper := helperLine(src, d) // gw's credential command instead of the token (credential.go)
	if helper != "" {
		envVars = slices.DeleteFunc(envVars, func(f jsonc.Field) bool { return f.Key == EnvAuthToken })
		drop = append(drop, EnvAuthToken)
	}
	env := jsonc.Want{Container: true, Fields: envVars, Drop: drop}
	fields := []jsonc.Field{{Key: "env", Val: env}}
	if helper != "" {
		fields = append(fields, jsonc.Field{Key: HelperSetting, Val: helper})
	}
	// gw's status line only where the user has no statusLine of their own
	// (whatever its value): theirs is never touched.
	statusLine := d.StatusLine != "" && !hasStatusLine(src)
	if statusLine {
		fields = append(fields, jsonc.Field{Key: "statusLine", Val: jsonc.Want{Inline: true,
			Fields: []jsonc.Field{{Key: "type", Val: "command"}, {Key: "command", Val: d.StatusLine}}}})
	}
	if _, err := f.Apply(top, jsonc.Want{Fields: fields}); err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{Data: f.Pack(), Created: !before.Configured}
	res.Changed = string(res.Data) != string(src)
	after, err := Inspect(res.Data)
	if err != nil {
		return agents.Result{}, fmt.Errorf("internal error: the merged settings do not parse (%v); nothing was written", err)
	}
	if after.BaseURL != d.Origin() || (helper == "" && (after.LocalToken != d.Token || after.KeyKind != agents.KeyLocalToken)) ||
		(helper != "" && (after.KeyKind != agents.KeyCommand || after.KeyCommand != helper)) {
		return agents.Result{}, fmt.Errorf("internal error: the merged settings do not hold gw's values; nothing was written")
	}
	res.Added, res.Removed = agents.ModelChanges(before, after)
	if before.KeyKind == agents.KeyLiteral {
		res.Warnings = append(res.Warnings, fmt.Sprintf("removed %s from \"env\": it held an API key in plain text, which Claude Code would have sent instead of gw serve's token", EnvAPIKey))
	}
	res.Warnings = append(res.Warnings, warnings(res.Data)...)
	res.Notes = TierNotes(d)
	if statusLine {
		res.Notes = append(res.Notes, fmt.Sprintf("Added Claude Code's status line: %s (gw serve up or down, the model, today's tokens); remove \"statusLine\" from the file to drop it", d.StatusLine))
	}
	return res, nil
}

// hasStatusLine reports whether the settings src have a statusLine.
func hasStatusLine(src []byte) bool {
	top, err := jsonc.ReadTop(src, dialect)
	return err == nil && top != nil && jsonc.Member(top, "statusLine") != nil
}

// warnings: settings that stop Claude Code from using what gw wrote.
func warnings(data []byte) []string {
	top, err := jsonc.ReadTop(data, dialect)
	if err != nil || top == nil {
		return nil
	}
	var out []string
	if h := jsonc.Member(top, HelperSetting); h != nil && !agents.IsCredentialCommand(jsonc.Str(h)) {
		out = append(out, "\"apiKeyHelper\" is set, and Claude Code sends what it prints instead of gw serve's token; remove it")
	}
	return out
}

// Inspect reads gw's settings back from src.
func Inspect(src []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(src, dialect)
	if err != nil {
		return agents.Inspection{}, err
	}
	env := jsonc.ObjOf(jsonc.Member(top, "env"))
	in := agents.Inspection{BaseURL: jsonc.Str(jsonc.Member(env, EnvBaseURL))}
	in.Configured = in.BaseURL != ""
	in.SetKey(jsonc.Str(jsonc.Member(env, EnvAuthToken)), nil)
	if k := jsonc.Str(jsonc.Member(env, EnvAPIKey)); k != "" {
		in.KeyKind = agents.KeyLiteral
		in.LocalToken = ""
		in.Notes = append(in.Notes, EnvAPIKey+" holds an API key written into the file")
	}
	inspectHelper(top, &in)
	in.Default = jsonc.Str(jsonc.Member(env, EnvModel))
	in.Small = jsonc.Str(jsonc.Member(env, EnvSmallFast))
	for _, k := range []string{EnvModel, EnvOpus, EnvSonnet, EnvHaiku, EnvSmallFast} {
		if id := jsonc.Str(jsonc.Member(env, k)); id != "" && !slices.Contains(in.Models, id) {
			in.Models = append(in.Models, id)
		}
	}
	return in, nil
}

// Run is gw run's route: every variable in Claude Code's environment, and
// the ones that are not secret also as --settings, which wins over an env
// block in the user's settings files. The token stays in the environment:
// a settings file that sets ANTHROPIC_AUTH_TOKEN itself still wins over it.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) {
	if d.Mode == agents.Direct {
		return agents.RunSpec{}, agents.RefuseDirect(displayName, directRefusal)
	}
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	// gw run says the tiers only when one borrows another's model.
	var spec agents.RunSpec
	for _, sl := range Slots(d) {
		if sl.From != "" {
			spec.Notes = TierNotes(d)
			break
		}
	}
	settings := map[string]string{}
	for _, f := range vars(d, true) {
		v := f.Val.(string)
		spec.Env = append(spec.Env, f.Key+"="+v)
		if f.Key != EnvAuthToken {
			settings[f.Key] = v
		}
	}
	b, err := json.Marshal(map[string]any{"env": settings})
	if err != nil {
		return agents.RunSpec{}, err
	}
	spec.Args = []string{"--settings", string(b)}
	return spec, nil
}
