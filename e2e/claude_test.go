package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/keychain/keychaintest"
	"github.com/modelgateway/gw/standin"
)

// claudeCodeEnv keeps Claude Code to gw serve: the first variable alone
// stops every other connection it makes (telemetry, error reports, update
// checks, its feature-flag service); the others say the same for releases
// that split it up.
func claudeCodeEnv() []string {
	return []string{
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
	}
}

// claudeModels points every model setting of Claude Code at one of the
// service's ids; without them Claude Code asks for its own claude-… ids.
func claudeModels(id string) []string {
	return []string{
		"ANTHROPIC_MODEL=" + id,
		"ANTHROPIC_DEFAULT_OPUS_MODEL=" + id,
		"ANTHROPIC_DEFAULT_SONNET_MODEL=" + id,
		"ANTHROPIC_DEFAULT_HAIKU_MODEL=" + id,
		"ANTHROPIC_SMALL_FAST_MODEL=" + id,
	}
}

// claudeBinary finds the Claude Code CLI on PATH or in the copy
// scripts/test.sh keeps in .cache/; it skips (or, with
// GW_REQUIRE_CLAUDE_CODE=1, fails) when it or the keyring tools are missing.
func claudeBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gw and runs Claude Code")
	}
	miss := requireKeyring(t, "GW_REQUIRE_CLAUDE_CODE")
	if p, err := exec.LookPath("claude"); err == nil {
		return p
	}
	p := filepath.Join(keychaintest.RepoRoot(t), ".cache", "claude-code", "node_modules", ".bin", "claude")
	if _, err := os.Stat(p); err != nil {
		miss("claude is not installed; install: npm install -g @anthropic-ai/claude-code (scripts/test.sh keeps a pinned copy in .cache/claude-code)")
	}
	return p
}

// TestClaudeCode runs Claude Code through gw serve with the key in the real
// keychain: a task with a tool round trip completes, and each of the spec's
// three failures reaches the user with the spec's message.
func TestClaudeCode(t *testing.T) {
	claudeBinary(t)
	runStories(t, "GW_REQUIRE_CLAUDE_CODE", []story{
		{"ThroughGwServe", claudeThroughGwServe},
		{"Failures", claudeFailures},
	}, nil)
}

// claudeSetup logs in with key (stdin) and starts gw serve.
func claudeSetup(t *testing.T, gw, key string, svc *standin.Running) (*machine, *serveProc, string) {
	t.Helper()
	m := newMachine(t)
	m.run(t, nil, key+"\n", gw, "auth", "login", "--base-url", svc.BaseURL, "--with-key")
	token := authStatus(t, m, gw).LocalToken
	return m, m.startServe(t, gw, "--port", "0"), token
}

type claudeResult struct {
	Type    string `json:"type"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
}

// claudeP runs `claude -p prompt` in the project with env (the base URL,
// the token, the models) and returns what it printed. Read is the only
// tool allowed: --dangerously-skip-permissions is refused when run as root.
func claudeP(t *testing.T, m *machine, claude string, env []string, prompt string) claudeResult {
	t.Helper()
	p := m.start(t, append(claudeCodeEnv(), env...), claude, "-p", prompt, "--output-format", "json", "--allowedTools", "Read")
	_ = p.wait(t, 2*time.Minute)
	var res claudeResult
	if err := json.Unmarshal([]byte(p.stdout.String()), &res); err != nil || res.Type != "result" {
		t.Fatalf("claude printed no result (%v)\nstdout:\n%s\nstderr:\n%s", err, p.stdout, p.stderr)
	}
	return res
}

// claudeThroughGwServe: the key is stored with gw auth login in the OS
// keychain; Claude Code is given gw serve's address and the local token
// only (as x-api-key, then as a Bearer token), reads a file of a temporary
// project with its Read tool and answers from it; the stand-in got the real
// key; gw serve logged the requests, answered Claude Code's start-up probe,
// and gw usage and gw logs --status error show no failure; no file under
// $HOME holds the key.
func claudeThroughGwServe(t *testing.T, gw string) {
	claude := claudeBinary(t)
	key := newKey(t)
	svc := startService(t, key)
	m, serve, token := claudeSetup(t, gw, key, svc)
	notes := filepath.Join(m.work, "notes.txt")
	if err := os.WriteFile(notes, []byte("The launch code is PINEAPPLE-42.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := "ANTHROPIC_BASE_URL=http://" + serve.addr
	for _, auth := range []string{"ANTHROPIC_API_KEY=" + token, "ANTHROPIC_AUTH_TOKEN=" + token} {
		seen := len(svc.Seen())
		env := append([]string{base, auth}, claudeModels(model)...)
		if strings.HasPrefix(auth, "ANTHROPIC_AUTH_TOKEN=") {
			// As gw init agent sets it up and a user starts it: its start-up probe of the base URL
			// (HEAD /api/hello, no token) is left on.
			env = append(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=")
		}
		res := claudeP(t, m, claude, env, "Use the Read tool on `"+notes+"` and tell me the launch code.")
		if res.IsError || !strings.Contains(res.Result, "«1 The launch code is PINEAPPLE-42.") {
			t.Fatalf("with %s…: Claude Code did not answer from the file: %+v", auth[:strings.Index(auth, "=")+1], res)
		}
		if n := streamedChats(t, svc, key, seen); n != 2 {
			t.Errorf("the stand-in saw %d streamed chat requests, want 2 (the tool call, then the answer)", n)
		}
	}
	if logged := serve.stderr.String(); !regexp.MustCompile(`POST /v1/messages\S* .*model=` + regexp.QuoteMeta(model) + ` .*status=200`).MatchString(logged) {
		t.Errorf("gw serve's log has no line for Claude Code's requests:\n%s", logged)
	}
	// A healthy session has no failed request: Claude Code's start-up probe (HEAD /api/hello, no token)
	// is answered and logged as a probe.
	serve.stop(t)
	if logged := serve.stderr.String(); strings.Contains(logged, "refused=") || !regexp.MustCompile(`(?m) HEAD /api/hello .*status=200 .* probe$`).MatchString(logged) {
		t.Errorf("gw serve did not answer Claude Code's probe as a probe, or refused a request:\n%s", logged)
	}
	var usage struct {
		Total struct{ Requests, Errors int } `json:"total"`
	}
	if err := json.Unmarshal([]byte(m.run(t, nil, "", gw, "usage", "--json")), &usage); err != nil || usage.Total.Requests == 0 || usage.Total.Errors != 0 {
		t.Errorf("gw usage after a healthy Claude Code session: %+v (%v), want requests and no error", usage.Total, err)
	}
	if out := m.run(t, nil, "", gw, "logs", "--status", "error"); out != "" {
		t.Errorf("gw logs --status error after a healthy Claude Code session:\n%s", out)
	}
	noFileHolds(t, m.home, key)
}

// claudeFailures: Claude Code shows the spec's message for each of its three
// failures: its own model ids (no model settings) → model not found; an
// exhausted balance → key rejected; the service gone → unable to connect.
func claudeFailures(t *testing.T, gw string) {
	claude := claudeBinary(t)
	key := newKey(t)
	svc := startService(t, key)
	m, serve, token := claudeSetup(t, gw, key, svc)
	env := []string{"ANTHROPIC_BASE_URL=http://" + serve.addr, "ANTHROPIC_API_KEY=" + token}
	check := func(what string, res claudeResult, want string) {
		t.Helper()
		t.Logf("%s: Claude Code shows: %s", what, res.Result)
		if !res.IsError || !strings.Contains(res.Result, want) {
			t.Errorf("%s: Claude Code shows %q, want the spec's %q", what, res.Result, want)
		}
	}

	check("Claude Code's own model ids", claudeP(t, m, claude, env, "say hello"), "model not found / invalid model")

	withModels := append(env, claudeModels(model)...)
	svc.SetBalance(key, 0)
	check("balance exhausted", claudeP(t, m, claude, withModels, "say hello"), "API key invalid or unauthorized")

	svc.Close()
	check("service unreachable", claudeP(t, m, claude, withModels, "say hello"), "unable to connect to API")
	noFileHolds(t, m.home, key)
}
