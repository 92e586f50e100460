package doctor

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api/apitest"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config/agents/opencode"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/standin"
)

const localToken = "gw-local-00112233445566778899aabbccddeeff"

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// opencodeConfig is an OpenCode config with a provider "gw" at baseURL declaring models; extra goes into
// the top level.
func opencodeConfig(baseURL, apiKey string, models []string, extra string) string {
	var ms []string
	for _, m := range models {
		ms = append(ms, `        "`+m+`": {"name": "`+m+`"}`)
	}
	return `{
  // written by hand, with a comment
  "$schema": "https://opencode.ai/config.json",` + extra + `
  "provider": {
    "local-llm": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://10.0.0.5:11434/v1"}, "models": {"llama": {}}},
    "gw": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Model Gateway",
      "options": {"baseURL": "` + baseURL + `", "apiKey": "` + apiKey + `"},
      "models": {
` + strings.Join(ms, ",\n") + `
      },
    },
  },
}
`
}

func TestRun_AgentConfigDirect(t *testing.T) {
	s := startStandin(t, standin.Options{})
	dir := t.TempDir()
	path := writeFile(t, dir, "opencode.jsonc", opencodeConfig(s.BaseURL, "{env:GW_API_KEY}",
		[]string{"vendor-a/model-a-sonnet-4.6", "vendor-a/model-a-sonet-4.6", "vendor-b/model-b-3-flash-preview"}, `
  "model": "gw/vendor-b/model-b-3-flash-preview",`))
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.Agents = openCodeFiles(path, filepath.Join(dir, "missing", "opencode.json"))
	rep := runDoctor(t, in)

	c := wantStatus(t, rep, IDAgentConfig, Pass)
	if !strings.Contains(c.Detail, `provider "gw" reaches `+s.BaseURL+" with 3 models") {
		t.Errorf("agent detail %q", c.Detail)
	}
	// The ids of the gw provider (and the "model" setting) are checked; the other provider's are not.
	wantStatus(t, rep, "model:vendor-a/model-a-sonnet-4.6", Pass)
	wantStatus(t, rep, "model:vendor-b/model-b-3-flash-preview", Pass)
	wantFail(t, in, rep, "model:vendor-a/model-a-sonet-4.6", "unknown model", msgModel,
		[]string{"vendor-a/model-a-sonnet-4.6"}, "use the exact id: vendor-a/model-a-sonnet-4.6")
	if _, ok := rep.Get("model:llama"); ok {
		t.Error("a model of another provider was checked against the service")
	}
}

func TestRun_AgentConfigProblems(t *testing.T) {
	s := startStandin(t, standin.Options{})
	cases := []struct {
		name, content string
		status        Status
		condition     string
		cause, fix    string
	}{
		{"baseURL with a trailing slash", opencodeConfig(s.BaseURL+"/", "{env:GW_API_KEY}", []string{"vendor-a/model-a-haiku-4.5"}, ""),
			Fail, "service unreachable", "trailing slash", "gw init agent"},
		{"baseURL pasted with /chat/completions", opencodeConfig(s.BaseURL+"/chat/completions", "{env:GW_API_KEY}", nil, ""),
			Fail, "service unreachable", "/chat/completions", "gw init agent"},
		{"does not parse", "{\n  \"provider\": {\n    \"gw\": \n}\n", Fail, "", "line ", "by hand"},
		{"key written into the file", opencodeConfig(s.BaseURL, "sk-literal-key-in-file", nil, ""),
			Warn, "", "API key written into the file", "--mode proxy"},
		{"provider disabled", opencodeConfig(s.BaseURL, "{env:GW_API_KEY}", nil, `
  "disabled_providers": ["gw"],`), Warn, "", "disabled_providers", `remove "gw" from disabled_providers`},
		{"no provider for the service", `{"provider": {}}`, Warn, "", "no provider in its config reaches the service", "gw init agent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "opencode.json", tc.content)
			in := input(s.BaseURL, standin.DemoKeyFull)
			in.Agents = openCodeFiles(path)
			rep := runDoctor(t, in)
			c := wantStatus(t, rep, IDAgentConfig, tc.status)
			if c.Condition != tc.condition || !strings.Contains(c.Cause, tc.cause) || !strings.Contains(fixText(in, c), tc.fix) {
				t.Errorf("agent_config %+v: want condition %q, cause with %q, fix with %q", c, tc.condition, tc.cause, tc.fix)
			}
			if tc.status == Fail && tc.condition == "" && !strings.Contains(c.Cause, path) {
				t.Errorf("cause %q does not name the file", c.Cause)
			}
		})
	}
}

// startServe runs gw serve's handler on loopback in front of the stand-in.
func startServe(t *testing.T, upstream, token string) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	h, err := proxy.New(proxy.Options{
		Upstream:   u,
		Transport:  api.NewTransport(api.TransportOptions{}),
		Key:        proxy.NewKeyCache(func(context.Context) (string, error) { return standin.DemoKeyFull, nil }, 0),
		LocalToken: token,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func TestRun_Proxy(t *testing.T) {
	s := startStandin(t, standin.Options{})
	running := startServe(t, s.BaseURL, localToken)
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	otherAddr := strings.TrimPrefix(other.URL, "http://")
	dead := apitest.ClosedAddr(t)

	cases := []struct {
		name       string
		addr       string
		token      string
		agentUses  bool
		status     Status
		condition  string
		cause, fix string
	}{
		{"running, agent uses it", running, localToken, true, Pass, "", "", ""},
		{"not running, nothing uses it", dead, localToken, false, Pass, "", "", ""},
		{"not running, agent uses it", dead, localToken, true, Fail, "service unreachable", "nothing answers there", "run: gw service install"},
		{"not running, agent uses it, no service manager", dead, localToken, true, Fail, "service unreachable", "nothing answers there", "keeps running after this shell: nohup gw serve"},
		{"running with another token", running, "gw-local-ffffffffffffffffffffffffffffffff", true, Fail, "service unreachable", "another local token", "restart gw serve"},
		{"another program on the port, agent uses it", otherAddr, localToken, true, Fail, "service unreachable", "something other than gw serve", "--port"},
		{"another program on the port, unused", otherAddr, localToken, false, Warn, "", "something other than gw serve", "--port"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(s.BaseURL, standin.DemoKeyFull)
			in.ProxyAddr, in.LocalToken = tc.addr, tc.token
			if strings.HasSuffix(tc.name, "no service manager") {
				in.StartServeLine = "nohup gw serve >/dev/null 2>&1 &"
			}
			if tc.agentUses {
				path := writeFile(t, t.TempDir(), "opencode.json",
					opencodeConfig("http://"+tc.addr+"/v1", tc.token, []string{"vendor-a/model-a-haiku-4.5"}, ""))
				in.Agents = openCodeFiles(path)
			}
			rep := runDoctor(t, in)
			c := wantStatus(t, rep, IDProxy, tc.status)
			if c.Condition != tc.condition || !strings.Contains(c.Cause, tc.cause) || !strings.Contains(fixText(in, c), tc.fix) {
				t.Errorf("proxy %+v: want condition %q, cause with %q, fix with %q", c, tc.condition, tc.cause, tc.fix)
			}
			if tc.fix == "restart gw serve" && strings.Contains(c.Cause, "restart") {
				t.Errorf("cause %q repeats the fix %q", c.Cause, fixText(in, c))
			}
			if tc.agentUses {
				a := wantStatus(t, rep, IDAgentConfig, Pass)
				if !strings.Contains(a.Detail, "uses gw serve") {
					t.Errorf("agent detail %q does not say it uses gw serve", a.Detail)
				}
				wantStatus(t, rep, "model:vendor-a/model-a-haiku-4.5", Pass)
			}
		})
	}
}

func TestRun_ProxyEnvironment(t *testing.T) {
	s := startStandin(t, standin.Options{})
	port := s.HTTP.Listener.Addr().(*net.TCPAddr).Port
	resolver := apitest.FakeDNS(t, apitest.Hosts(map[string]string{"gateway.test": "127.0.0.1"}))
	deadProxy := apitest.ClosedAddr(t)
	base := fmt.Sprintf("http://gateway.test:%d/v1", port)

	t.Run("proxy applies and is down", func(t *testing.T) {
		in := input(base, standin.DemoKeyFull)
		in.Network.Resolver = resolver
		in.Getenv = env(map[string]string{"HTTP_PROXY": "http://user:secret@" + deadProxy})
		rep := runDoctor(t, in)
		c := wantFail(t, in, rep, IDTCP, "service unreachable", msgUnreachable, []string{"proxy", deadProxy, "refused"}, "HTTPS_PROXY")
		if !strings.Contains(c.Detail, "(from HTTP_PROXY)") || strings.Contains(dump(rep), "secret") {
			t.Errorf("tcp detail %q should name the variable and hide the proxy password", c.Detail)
		}
		wantStatus(t, rep, IDHTTP, Skip)
	})
	t.Run("NO_PROXY excludes the host", func(t *testing.T) {
		in := input(base, standin.DemoKeyFull)
		in.Network.Resolver = resolver
		in.Getenv = env(map[string]string{"HTTP_PROXY": "http://" + deadProxy, "NO_PROXY": "gateway.test"})
		rep := runDoctor(t, in)
		if !rep.OK {
			t.Fatalf("not ok:\n%s", dump(rep))
		}
		for _, id := range []string{IDTCP, IDHTTP} {
			if c := get(t, rep, id); !strings.Contains(c.Detail, "direct: NO_PROXY=gateway.test excludes gateway.test") {
				t.Errorf("%s detail %q does not note NO_PROXY", id, c.Detail)
			}
		}
	})
	t.Run("loopback never goes through the proxy", func(t *testing.T) {
		in := input(s.BaseURL, standin.DemoKeyFull)
		in.Getenv = env(map[string]string{"HTTP_PROXY": "http://" + deadProxy})
		rep := runDoctor(t, in)
		if !rep.OK {
			t.Fatalf("not ok:\n%s", dump(rep))
		}
		if c := get(t, rep, IDTCP); !strings.Contains(c.Detail, "loopback") {
			t.Errorf("tcp detail %q does not say why the proxy is not used", c.Detail)
		}
	})
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// "model" naming a gw model the provider does not declare (left behind when the user chose fewer models):
// the service lists the model, but OpenCode cannot use it, so the agent config fails with the command that
// points the default back at a declared model.
func TestRun_AgentConfigDefaultNotDeclared(t *testing.T) {
	s := startStandin(t, standin.Options{})
	dir := t.TempDir()
	path := writeFile(t, dir, "opencode.jsonc", opencodeConfig(s.BaseURL, "{env:GW_API_KEY}",
		[]string{"vendor-a/model-a-haiku-4.5"}, `
  "model": "gw/vendor-a/model-a-sonnet-4.5",
  "small_model": "gw/vendor-a/model-a-haiku-4.5",`))
	in := input(s.BaseURL, standin.DemoKeyPartial)
	in.NoProbe = true
	in.Agents = openCodeFiles(path)
	rep := runDoctor(t, in)

	c := wantStatus(t, rep, IDAgentConfig, Fail)
	want := path + `: "model" is "gw/vendor-a/model-a-sonnet-4.5", but provider "gw" does not declare that model, so OpenCode cannot use it`
	if c.Cause != want {
		t.Errorf("cause %q\nwant  %q", c.Cause, want)
	}
	if fixText(in, c) != "run: gw init agent --agent opencode --models vendor-a/model-a-haiku-4.5 --default vendor-a/model-a-haiku-4.5" {
		t.Errorf("fix %q", fixText(in, c))
	}
	if c.Condition != "" {
		t.Errorf("condition %q: the service is reachable, this is OpenCode's config", c.Condition)
	}
	// The model itself is in the subscription: its own check passes.
	wantStatus(t, rep, "model:vendor-a/model-a-sonnet-4.5", Pass)
}

// Checking opencode.json when an opencode.jsonc beside it also configures "gw": OpenCode applies the
// .jsonc over it, so what the check saw is not what OpenCode uses.
func TestRun_AgentConfigSiblingOverrides(t *testing.T) {
	s := startStandin(t, standin.Options{})
	dir := t.TempDir()
	path := writeFile(t, dir, "opencode.json", opencodeConfig(s.BaseURL, "{env:GW_API_KEY}", []string{"vendor-a/model-a-sonnet-4.6"}, ""))
	jsonc := writeFile(t, dir, "opencode.jsonc", "{\n  // stale\n  \"provider\": {\"gw\": {\"options\": {\"baseURL\": \"https://old.example/v1\"}}}\n}\n")
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.Agents = openCodeFiles(path)
	rep := runDoctor(t, in)

	c := wantStatus(t, rep, IDAgentConfig, Warn)
	wantCause := jsonc + ` also sets provider "gw"; OpenCode reads opencode.json, then opencode.jsonc, and merges them key by key, so what opencode.jsonc sets overrides ` + path
	if c.Cause != wantCause {
		t.Errorf("cause = %q\nwant    %q", c.Cause, wantCause)
	}
	if !strings.Contains(fixText(in, c), `remove the "gw" provider`) || !strings.Contains(fixText(in, c), jsonc) {
		t.Errorf("fix = %q", fixText(in, c))
	}
}

// A sibling with gw next to a config without any provider for the service: both said in one warning.
func TestRun_AgentConfigSiblingWithoutOurs(t *testing.T) {
	s := startStandin(t, standin.Options{})
	dir := t.TempDir()
	path := writeFile(t, dir, "opencode.jsonc", `{"theme": "light"}`)
	writeFile(t, dir, "opencode.json", `{"model": "gw/vendor-a/model-a-sonnet-4.6"}`)
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.Agents = openCodeFiles(path)
	rep := runDoctor(t, in)

	c := wantStatus(t, rep, IDAgentConfig, Warn)
	if !strings.Contains(c.Cause, "no provider in its config reaches the service") || !strings.Contains(c.Cause, `"model" is "gw/vendor-a/model-a-sonnet-4.6"`) {
		t.Errorf("cause = %q", c.Cause)
	}
	if !strings.HasPrefix(fixText(in, c), "run: gw init agent --agent opencode; remove the \"gw\" provider") {
		t.Errorf("fix = %q", fixText(in, c))
	}
}

// openCodeFiles are OpenCode config files for Input.Agents, as gw doctor --agent-config gives them.
func openCodeFiles(paths ...string) []AgentFiles {
	var out []AgentFiles
	for _, p := range paths {
		out = append(out, AgentFiles{Agent: opencode.Agent(), Files: []string{p}})
	}
	return out
}
