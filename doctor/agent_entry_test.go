package doctor

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api/apitest"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/standin"
)

// agentFiles writes an agent's config (contents in Files' order; "" leaves a file out) in a HOME of its
// own and returns doctor's input for it.
func agentFiles(t *testing.T, name string, contents ...string) AgentFiles {
	t.Helper()
	a, ok := all.Lookup(name)
	if !ok {
		t.Fatalf("no agent %s", name)
	}
	home := t.TempDir()
	files, err := a.(agents.ConfigWriter).Files(agents.Global, agents.Place{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range contents {
		if c == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(files[i]), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(files[i], []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return AgentFiles{Agent: a, Files: files}
}

func claudeSettings(base, token, model string) string {
	return `{"env": {"ANTHROPIC_BASE_URL": "` + base + `", "ANTHROPIC_AUTH_TOKEN": "` + token + `", "ANTHROPIC_MODEL": "` + model + `"}}`
}

// Every agent gw configures is checked the way it reads its config: pointed at gw serve with the current
// token it passes; another port, a stale token or a file that does not parse fail with the command that
// fixes it; a key in the file is a warning; its model ids, spelled as written, are checked against the
// service; an agent's own provider elsewhere is only noted.
func TestRun_AgentEntryConfigs(t *testing.T) {
	s := startStandin(t, standin.Options{})
	proxyAddr := apitest.ClosedAddr(t) // gw serve is not running
	_, proxyPort, _ := net.SplitHostPort(proxyAddr)
	cases := []struct {
		name   string
		agent  AgentFiles
		status Status
		cond   string
		parts  []string // in the cause (or the detail when it passes)
		fix    string
		models []string // model checks expected
	}{
		{"Claude Code through gw serve", agentFiles(t, "claude-code", claudeSettings("http://"+proxyAddr, localToken, "vendor-a/model-a-haiku-4.5")),
			Pass, "", []string{"Claude Code uses gw serve at http://" + proxyAddr + " with 1 model",
				"not available through the service: its WebSearch tool (the service has no web search; WebFetch works)"}, "", []string{"vendor-a/model-a-haiku-4.5"}},
		{"Claude Code with a stale token", agentFiles(t, "claude-code", claudeSettings("http://"+proxyAddr, "gw-local-ffffffffffffffffffffffffffffffff", "vendor-a/model-a-haiku-4.5")),
			Fail, "", []string{"settings.json: Claude Code holds a local token that gw serve no longer accepts"}, "run: gw init agent --agent claude-code (it writes gw serve's current local token)", nil},
		{"Qwen Code on another port", agentFiles(t, "qwen-code", `{"env": {"GW_LOCAL_TOKEN": "`+localToken+`"}, "modelProviders": {"openai": [{"id": "vendor-a/model-a-sonet-4.5", "baseUrl": "http://127.0.0.1:9999/v1", "envKey": "GW_LOCAL_TOKEN"}]}, "security": {"auth": {"selectedType": "openai"}}}`),
			Fail, "service unreachable", []string{"Qwen Code points at http://127.0.0.1:9999/v1, but gw serve listens on port " + proxyPort}, "run: gw init agent --agent qwen-code (it rewrites the address", []string{"vendor-a/model-a-sonet-4.5"}},
		{"Codex with a key in the file", agentFiles(t, "codex", "model = \"vendor-a/model-a-haiku-4.5\"\nmodel_provider = \"gw\"\n\n[model_providers.gw]\nbase_url = \""+s.BaseURL+"\"\nwire_api = \"responses\"\nexperimental_bearer_token = \"sk-plain-key\"\n"),
			Warn, "", []string{"config.toml: Codex holds an API key written into the file"}, "run: gw init agent --agent codex --mode proxy", nil},
		{"Continue, direct, a misspelled id", agentFiles(t, "continue", "name: c\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: x\n    provider: openai\n    model: vendor-b/model-b-3-flash\n    apiBase: "+s.BaseURL+"\n    apiKey: ${{ secrets.GW_API_KEY }}\n    capabilities: [tool_use]\n"),
			Pass, "", []string{"Continue reaches " + s.BaseURL + " with 1 model"}, "", []string{"vendor-b/model-b-3-flash"}},
		{"Cline's slot used for another provider", agentFiles(t, "cline", `{"version": 1, "lastUsedProvider": "openai-compatible", "providers": {"openai-compatible": {"settings": {"baseUrl": "http://10.0.0.5:11434/v1", "apiKey": "ollama", "model": "llama"}}}}`, ""),
			Warn, "", []string{"coding agents are configured (Cline), but none reaches the service"}, "run: gw init agent --agent NAME", nil},
		{"pi through gw serve's Messages translation", agentFiles(t, "pi", `{"providers": {"gw": {"baseUrl": "http://`+proxyAddr+`", "api": "anthropic-messages", "apiKey": "`+localToken+`", "models": [{"id": "vendor-a/model-a-haiku-4.5"}]}}}`, `{"defaultProvider": "gw", "defaultModel": "vendor-a/model-a-haiku-4.5"}`),
			Pass, "", []string{"models.json: pi uses gw serve at http://" + proxyAddr + " with 1 model"}, "", []string{"vendor-a/model-a-haiku-4.5"}},
		{"Factory droid on another port", agentFiles(t, "droid", `{"customModels": [{"id": "custom:gw/vendor-a/model-a-haiku-4.5", "model": "vendor-a/model-a-haiku-4.5", "baseUrl": "http://127.0.0.1:9999/v1", "apiKey": "`+localToken+`"}]}`),
			Fail, "service unreachable", []string{"Factory droid points at http://127.0.0.1:9999/v1, but gw serve listens on port " + proxyPort}, "run: gw init agent --agent droid (it rewrites the address", []string{"vendor-a/model-a-haiku-4.5"}},
		{"Crush's config does not parse", agentFiles(t, "crush", "{\n  \"providers\": {\n    \"gw\": \n}\n"),
			Fail, "", []string{"crush.json:4:1: Crush's config does not parse"}, "(Crush cannot read it either), then run: gw init agent --agent crush", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(s.BaseURL, standin.DemoKeyFull)
			in.ProxyAddr, in.LocalToken = proxyAddr, localToken
			in.Agents = []AgentFiles{tc.agent}
			rep := runDoctor(t, in)
			c := wantStatus(t, rep, IDAgentConfig, tc.status)
			text := c.Cause + " | " + c.Detail + " (" + render.Text(c.Note, render.Context{Where: render.Doctor}) + ")"
			for _, p := range tc.parts {
				if !strings.Contains(text, p) {
					t.Errorf("agent_config %+v: want %q", c, p)
				}
			}
			if c.Condition != tc.cond || !strings.Contains(fixText(in, c), tc.fix) {
				t.Errorf("agent_config %+v (fix: %s): want condition %q, fix with %q", c, fixText(in, c), tc.cond, tc.fix)
			}
			for _, id := range tc.models {
				if _, ok := rep.Get("model:" + id); !ok {
					t.Errorf("model %s of the agent's config was not checked", id)
				}
			}
		})
	}
}

// The model check of a misspelled id in another agent's config names the file and the exact id.
func TestRun_AgentEntryMisspelledModel(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, standin.DemoKeyFull)
	proxyAddr := apitest.ClosedAddr(t) // gw serve is not running
	af := agentFiles(t, "claude-code", claudeSettings("http://"+proxyAddr, localToken, "vendor-a/model-a-sonet-4.5"))
	in.ProxyAddr, in.LocalToken, in.Agents = proxyAddr, localToken, []AgentFiles{af}
	rep := runDoctor(t, in)
	wantFail(t, in, rep, "model:vendor-a/model-a-sonet-4.5", "unknown model", msgModel, []string{"vendor-a/model-a-sonnet-4.5"}, "(in "+af.Files[0]+")")
	// gw serve is not running and Claude Code needs it: the proxy check fails naming the file.
	p := wantStatus(t, rep, IDProxy, Fail)
	if !strings.Contains(p.Cause, af.Files[0]+" (Claude Code) sends requests to gw serve") {
		t.Errorf("proxy %+v", p)
	}
}

// An installed agent of another version than the one gw's writer was checked against is noted, once,
// with what to do; the tested version is not.
func TestRun_AgentVersionNoted(t *testing.T) {
	s := startStandin(t, standin.Options{})
	proxyAddr := apitest.ClosedAddr(t)
	for _, installed := range []string{"0.99.0", "0.225.2", ""} {
		in := input(s.BaseURL, standin.DemoKeyFull)
		af := agentFiles(t, "droid", `{"customModels": [{"id": "custom:gw/vendor-a/model-a-sonnet-4.5", "model": "vendor-a/model-a-sonnet-4.5", "baseUrl": "http://`+proxyAddr+`/v1", "apiKey": "`+localToken+`"}]}`)
		af.Installed = installed
		in.ProxyAddr, in.LocalToken, in.Agents = proxyAddr, localToken, []AgentFiles{af, af}
		rep := runDoctor(t, in)
		c, _ := rep.Get(IDAgentConfig)
		text := c.Cause + " | " + c.Detail + " (" + render.Text(c.Note, render.Context{Where: render.Doctor}) + ")"
		n := strings.Count(text, "Factory droid 0.99.0 is installed")
		if want := map[bool]int{true: 1, false: 0}[installed == "0.99.0"]; n != want || (n == 1 && !strings.Contains(text, "(if Factory droid ignores gw's entry, run gw init agent --agent droid again, or install @factory/cli@0.225.2)")) {
			t.Errorf("installed %q: %q", installed, text)
		}
	}
}

// One check covers every agent: OpenCode's providers and another agent's entry are reported together,
// OpenCode's file first as gw doctor lists them, and a problem in either fails the one check.
func TestRun_OneCheckForEveryAgent(t *testing.T) {
	s := startStandin(t, standin.Options{})
	dir := t.TempDir()
	oc := writeFile(t, dir, "opencode.jsonc", opencodeConfig(s.BaseURL, "{env:GW_API_KEY}", []string{"vendor-a/model-a-sonnet-4.6"}, ""))
	proxyAddr := apitest.ClosedAddr(t)
	kilo := agentFiles(t, "kilo", `{"provider": {"gw": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://`+proxyAddr+`/v1", "apiKey": "`+localToken+`"}, "models": {"vendor-b/model-b-3-flash-preview": {}}}}}`)
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.ProxyAddr, in.LocalToken = proxyAddr, localToken
	in.Agents = append(openCodeFiles(oc), kilo)
	rep := runDoctor(t, in)
	c := wantStatus(t, rep, IDAgentConfig, Pass)
	want := oc + `: provider "gw" reaches ` + s.BaseURL + " with 1 model; " + kilo.Files[0] + ": Kilo uses gw serve at http://" + proxyAddr + "/v1 with 1 model"
	if c.Detail != want {
		t.Errorf("detail %q\nwant   %q", c.Detail, want)
	}
	for _, id := range []string{"vendor-a/model-a-sonnet-4.6", "vendor-b/model-b-3-flash-preview"} {
		if _, ok := rep.Get("model:" + id); !ok {
			t.Errorf("model %s of an agent's config was not checked", id)
		}
	}

	// Kilo's token is stale: the one check fails, saying so, with OpenCode's provider still in its detail.
	in.LocalToken = "gw-local-ffffffffffffffffffffffffffffffff"
	rep = runDoctor(t, in)
	c = wantStatus(t, rep, IDAgentConfig, Fail)
	if !strings.Contains(c.Cause, kilo.Files[0]+": Kilo holds a local token that gw serve no longer accepts") ||
		!strings.Contains(fixText(in, c), "gw init agent --agent kilo") || !strings.Contains(c.Detail, oc) {
		t.Errorf("stale token: %+v, fix %q", c, fixText(in, c))
	}
}

// When no agent's config exists, the check says which agents it looked for, not one agent's files.
func TestRun_NoAgentConfigSaysWhichAgentsWereLookedFor(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, standin.DemoKeyFull)
	var names []string
	for _, a := range all.Configurable() {
		af := agentFiles(t, a.Info().Name) // nothing written
		in.Agents = append(in.Agents, af, af)
		names = append(names, a.Info().Display)
	}
	rep := runDoctor(t, in)
	c := wantStatus(t, rep, IDAgentConfig, Skip)
	if want := "no coding agent config found (looked for the configs of " + strings.Join(names, ", ") + ")"; c.Cause != want {
		t.Errorf("cause %q\nwant  %q", c.Cause, want)
	}
	if !strings.Contains(c.Cause, "OpenCode") || !strings.Contains(c.Cause, "Claude Code") {
		t.Errorf("cause %q does not name the agents", c.Cause)
	}

	in.Agents = nil
	c = wantStatus(t, runDoctor(t, in), IDAgentConfig, Skip)
	if c.Cause != "no coding agent config to check" {
		t.Errorf("no agents at all: %q", c.Cause)
	}
}
