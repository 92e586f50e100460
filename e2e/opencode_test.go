package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/standin"
)

const (
	model      = "vendor-a/model-a-sonnet-4.5"
	otherModel = "vendor-a/model-a-haiku-4.5"
)

// TestOpenCode runs the user stories with the real OpenCode CLI and one
// build of gw. Each story runs in a throwaway keyring session of its own (the
// stories would otherwise share the keychain item), so they run in parallel.
//
// OpenCode starts in two or three seconds here; what used to make these
// tests slow is its retry policy: a failure it counts as transient (a refused
// connection, a 5xx) is retried five times, 2, 4, 8, 16 and 30 s apart, and
// `opencode run` reports nothing until the last attempt failed. The tests
// therefore only wait for answers and for errors OpenCode does not retry,
// and watch the retries of a refused connection in OpenCode's log instead of
// waiting for it to give up.
func TestOpenCode(t *testing.T) {
	requireTools(t)
	runStories(t, "GW_REQUIRE_OPENCODE", []story{
		{"ThroughGwServe", throughGwServe},
		{"InitAgent", initAgent},
	}, nil)
}

// throughGwServe: the key is stored with gw auth login in the OS keychain,
// gw serve runs, OpenCode is configured (by hand) with gw serve's address and
// the local token only, and `opencode run` prints the stand-in's streamed
// answer; the stand-in got the real key; no file under $HOME holds it. While
// gw serve is stopped OpenCode cannot connect, and its retry goes through
// once gw serve is started again. After gw auth logout OpenCode shows gw's
// "no key stored" error.
func throughGwServe(t *testing.T, gw string) {
	key := newKey(t)
	svc := startService(t, key)
	m := newMachine(t)

	// The key goes in on stdin, never on a command line.
	m.run(t, nil, key+"\n", gw, "auth", "login", "--base-url", svc.BaseURL, "--with-key")
	st := authStatus(t, m, gw)
	if st.KeySource != "keychain" || !strings.HasPrefix(st.LocalToken, "gw-local-") {
		t.Fatalf("after login: key source %q, local token %q", st.KeySource, st.LocalToken)
	}

	serve := m.startServe(t, gw, "--port", "0")
	writeOpenCodeConfig(t, m, "http://"+serve.addr+"/v1", st.LocalToken)

	out := m.run(t, nil, "", "opencode", "run", "-m", "gw/"+model, "say hello")
	if !strings.Contains(out, standin.Greeting(model)) {
		t.Fatalf("OpenCode did not print the stand-in's answer:\n%s", out)
	}
	if streamedChats(t, svc, key, 0) == 0 {
		t.Error("the stand-in saw no streamed chat request")
	}
	if logged := serve.stderr.String(); !usageLine(model).MatchString(logged) {
		t.Errorf("gw serve's log has no line for OpenCode's request with its usage:\n%s", logged)
	}
	noFileHolds(t, m.home, key)

	// gw serve stopped: OpenCode cannot connect and retries; started again on
	// the port OpenCode's config names, the retry reaches it and the answer
	// arrives. `opencode run` prints nothing about retries; its log does.
	serve.stop(t)
	seen := len(svc.Seen())
	oc := m.start(t, nil, "opencode", "run", "--print-logs", "-m", "gw/"+model, "say hello")
	oc.await(t, `"Cannot connect to API" in OpenCode's log`, time.Minute, func() bool {
		return strings.Contains(oc.stderr.String(), "Cannot connect to API")
	})
	if len(svc.Seen()) != seen {
		t.Fatal("the stand-in got a request while gw serve was stopped")
	}
	serve = m.startServe(t, gw, "--port", serve.port())
	if err := oc.wait(t, 2*time.Minute); err != nil {
		t.Fatalf("OpenCode failed after gw serve came back: %v\nstdout:\n%s\nstderr:\n%s", err, oc.stdout, oc.stderr)
	}
	if !strings.Contains(oc.stdout.String(), standin.Greeting(model)) {
		t.Errorf("OpenCode did not print the answer once gw serve was back:\n%s", oc.stdout)
	}
	if streamedChats(t, svc, key, seen) == 0 {
		t.Error("the stand-in saw no chat request after gw serve came back")
	}
	if logged := serve.stderr.String(); !usageLine(model).MatchString(logged) {
		t.Errorf("the restarted gw serve's log has no line for OpenCode's retried request:\n%s", logged)
	}

	// gw auth logout reaches the running gw serve within seconds; OpenCode
	// then shows gw's own error, which it does not retry.
	m.run(t, nil, "", gw, "auth", "logout")
	waitNoKey(t, serve.addr, st.LocalToken)
	ev := firstError(t, m)
	if !strings.Contains(ev, "API key invalid or unauthorized: no key stored — run gw auth login") {
		t.Errorf("after logout OpenCode shows: %s", ev)
	}
	noFileHolds(t, m.home, key)
}

// initAgent: the user story of gw init agent. gw auth login → gw init agent --models …
// → gw serve → `opencode run -m gw/<id>` answers through gw serve, with only
// the local token in OpenCode's config. Then gw init agent --mode direct
// points OpenCode at the service itself, and with GW_API_KEY in its
// environment OpenCode answers without gw serve; the key is never in a file.
func initAgent(t *testing.T, gw string) {
	key := newKey(t)
	svc := startService(t, key)
	m := newMachine(t)

	m.run(t, nil, key+"\n", gw, "auth", "login", "--base-url", svc.BaseURL, "--with-key")
	token := authStatus(t, m, gw).LocalToken
	// gw serve first, on a free port, so that init agent can name that port.
	serve := m.startServe(t, gw, "--port", "0")

	out := m.run(t, nil, "", gw, "init", "agent", "--agent", "opencode", "--models", model+","+otherModel, "--port", serve.port(), "--yes")
	path := openCodeConfigPath(t, m)
	if !strings.Contains(out, "Created "+path) {
		t.Errorf("gw init agent does not say it created %s:\n%s", path, out)
	}
	p := readProvider(t, path)
	if want := "http://" + serve.addr + "/v1"; p.Options.BaseURL != want || p.Options.APIKey != token {
		t.Errorf("proxy mode wrote baseURL %q, apiKey %q; want %q and the local token %q", p.Options.BaseURL, p.Options.APIKey, want, token)
	}

	listed := strings.Fields(m.run(t, nil, "", "opencode", "models", "gw"))
	for _, id := range []string{model, otherModel} {
		if !slices.Contains(listed, "gw/"+id) {
			t.Errorf("opencode models gw does not list gw/%s: %q", id, listed)
		}
	}

	out = m.run(t, nil, "", "opencode", "run", "-m", "gw/"+model, "say hello")
	if !strings.Contains(out, standin.Greeting(model)) {
		t.Fatalf("OpenCode did not print the stand-in's answer through gw serve:\n%s", out)
	}
	if streamedChats(t, svc, key, 0) == 0 {
		t.Error("the stand-in saw no streamed chat request through gw serve")
	}
	if logged := serve.stderr.String(); !usageLine(model).MatchString(logged) {
		t.Errorf("gw serve's log has no line for OpenCode's request:\n%s", logged)
	}
	noFileHolds(t, m.home, key)

	// Direct mode: the service's base URL, the key from the environment.
	out = m.run(t, nil, "", gw, "init", "agent", "--agent", "opencode", "--mode", "direct", "--models", model+","+otherModel, "--yes")
	if !strings.Contains(out, "Updated "+path) {
		t.Errorf("gw init agent --mode direct does not say it updated %s:\n%s", path, out)
	}
	p = readProvider(t, path)
	if p.Options.BaseURL != svc.BaseURL || p.Options.APIKey != "{env:GW_API_KEY}" {
		t.Errorf("direct mode wrote baseURL %q, apiKey %q; want %q and {env:GW_API_KEY}", p.Options.BaseURL, p.Options.APIKey, svc.BaseURL)
	}
	seen, logged := len(svc.Seen()), serve.stderr.String()
	out = m.run(t, []string{"GW_API_KEY=" + key}, "", "opencode", "run", "-m", "gw/"+otherModel, "say hello")
	if !strings.Contains(out, standin.Greeting(otherModel)) {
		t.Fatalf("OpenCode did not print the stand-in's answer in direct mode:\n%s", out)
	}
	if streamedChats(t, svc, key, seen) == 0 {
		t.Error("the stand-in saw no streamed chat request with the key in direct mode")
	}
	if after := serve.stderr.String(); after != logged {
		t.Errorf("in direct mode a request went through gw serve:\n%s", strings.TrimPrefix(after, logged))
	}
	noFileHolds(t, m.home, key)
}

type status struct {
	KeySource  string `json:"key_source"`
	LocalToken string `json:"local_token"`
}

func authStatus(t *testing.T, m *machine, gw string) status {
	t.Helper()
	var st status
	if err := json.Unmarshal([]byte(m.run(t, nil, "", gw, "auth", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// streamedChats counts the streamed chat requests the stand-in saw after the
// first `after`, and fails the test for any request without the real key.
func streamedChats(t *testing.T, svc *standin.Running, key string, after int) int {
	t.Helper()
	n := 0
	for _, s := range svc.Seen()[after:] {
		if s.Key != key {
			t.Errorf("the stand-in got a request for %s without the real key", s.Path)
		}
		if s.Path == "/v1/chat/completions" && s.Stream {
			n++
		}
	}
	return n
}

// chatRequests counts the chat-completions requests among seen.
func chatRequests(seen []standin.Seen) int {
	n := 0
	for _, s := range seen {
		if s.Path == "/v1/chat/completions" {
			n++
		}
	}
	return n
}

// usageLine matches gw serve's log line for OpenCode's streamed chat request
// whose stream reported usage: the agent named from its User-Agent.
func usageLine(model string) *regexp.Regexp {
	return regexp.MustCompile(`POST /v1/chat/completions agent=opencode model=` + regexp.QuoteMeta(model) +
		` status=200 .*prompt_tokens=\d+ (cached_tokens=\d+ )?completion_tokens=\d+`)
}

// waitNoKey asks gw serve, as OpenCode would, until it answers that no key
// is stored: it re-reads the keychain every few seconds.
func waitNoKey(t *testing.T, addr, token string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/models", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized && body.Error.Code == "no_key" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gw serve still answers %d (%q) 30 s after gw auth logout", resp.StatusCode, body.Error.Code)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// firstError runs OpenCode with JSON events and returns the first error
// event. OpenCode retries failures it considers transient, so it is stopped
// once the error is seen.
func firstError(t *testing.T, m *machine) string {
	t.Helper()
	oc := m.start(t, nil, "opencode", "run", "--format", "json", "-m", "gw/"+model, "say hello")
	var ev string
	oc.await(t, "error event from OpenCode", 2*time.Minute, func() bool {
		for line := range strings.Lines(oc.stdout.String()) {
			var e struct {
				Type string `json:"type"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && e.Type == "error" {
				ev = line
				return true
			}
		}
		return false
	})
	oc.kill()
	return ev
}

// writeOpenCodeConfig declares gw serve as an OpenAI-compatible provider with
// the local token as its key, by hand.
func writeOpenCodeConfig(t *testing.T, m *machine, baseURL, token string) {
	t.Helper()
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"gw": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Model Gateway (gw serve)",
			"options": map[string]any{"baseURL": baseURL, "apiKey": token},
			"models":  map[string]any{model: map[string]any{"name": "Model A Sonnet 4.5"}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	dir := filepath.Join(m.configHome(), "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// openCodeConfigPath is the one global OpenCode config on the machine.
func openCodeConfigPath(t *testing.T, m *machine) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(m.configHome(), "opencode", "opencode.json*"))
	found = slices.DeleteFunc(found, func(p string) bool { return !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".jsonc") })
	if len(found) != 1 {
		t.Fatalf("want one OpenCode config under %s, found %q", m.configHome(), found)
	}
	return found[0]
}

type provider struct {
	NPM     string `json:"npm"`
	Options struct {
		BaseURL string `json:"baseURL"`
		APIKey  string `json:"apiKey"`
	} `json:"options"`
	Models map[string]json.RawMessage `json:"models"`
}

// readProvider reads the gw provider from an OpenCode config (JSON with
// comments), checking it is OpenAI-compatible and declares both models.
func readProvider(t *testing.T, path string) provider {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	var cfg struct {
		Provider map[string]provider `json:"provider"`
	}
	if err := json.Unmarshal(std, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	p, ok := cfg.Provider["gw"]
	if !ok {
		t.Fatalf("%s has no provider \"gw\":\n%s", path, data)
	}
	if p.NPM != "@ai-sdk/openai-compatible" {
		t.Errorf("provider gw uses npm package %q, not @ai-sdk/openai-compatible", p.NPM)
	}
	for _, id := range []string{model, otherModel} {
		if _, ok := p.Models[id]; !ok {
			t.Errorf("provider gw does not declare %s", id)
		}
	}
	return p
}
