package proxy

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/reqlog"
)

// Each line names the agent that sent the request, from its User-Agent;
// and a failure's condition as the service's error table names it. Neither
// the key nor the local token is ever in it.
func TestLogNamesTheAgentAndTheCondition(t *testing.T) {
	r := newRig(t, rigOpts{})
	ctx := waitCtx(t)
	send(t, r, ctx, sonnet, "claude-cli/2.1.330 (external, cli)")
	send(t, r, ctx, sonnet, "OpenAI/JS 5.20.0")
	send(t, r, ctx, "vendor-a/no-such-model", "GeminiCLI/0.9.0 (linux; x64)")
	log := r.log.String()
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), log)
	}
	for i, want := range []string{" POST /v1/chat/completions agent=claude-code model=" + sonnet + " status=200 ",
		" POST /v1/chat/completions model=" + sonnet + " status=200 ",
		" agent=gemini model=vendor-a/no-such-model status=404 condition=unknown_model "} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: %s\nwant it to contain %q", i, lines[i], want)
		}
	}
	if strings.Contains(log, realKey) || strings.Contains(log, testToken) || strings.Contains(log, realKey[len(realKey)-8:]) {
		t.Errorf("the log holds the key or the local token:\n%s", log)
	}
}

// gw run's handler names the agent it started on every line, whatever the
// User-Agent says (Kilo sends OpenCode's), and appends to serve.log in the
// state directory as well as to its Log.
func TestLogOfGwRunNamesItsAgentInServeLog(t *testing.T) {
	state := t.TempDir()
	r := newRig(t, rigOpts{proxy: func(o *Options) { o.Agent, o.StateDir = "kilo", state }})
	ctx := waitCtx(t)
	send(t, r, ctx, sonnet, "opencode/1.18.2 ai-sdk/provider-utils/3.0.10")
	send(t, r, ctx, sonnet, "")
	if err := r.h.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(state, reqlog.Name))
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != r.log.String() || strings.Count(string(file), " agent=kilo model="+sonnet+" status=200 ") != 2 {
		t.Errorf("serve.log:\n%s\nLog:\n%s", file, r.log.String())
	}
	if strings.Contains(string(file), realKey) || strings.Contains(string(file), testToken) {
		t.Errorf("serve.log holds the key or the local token:\n%s", file)
	}
}

func send(t *testing.T, r *rig, ctx context.Context, model, ua string) {
	t.Helper()
	hdr := http.Header{}
	if ua != "" {
		hdr.Set("User-Agent", ua)
	}
	readAll(t, r.do(ctx, "POST", "/v1/chat/completions", chatBody(model, false), hdr))
}

// A key the service refuses is logged as key_rejected, and the key (which
// the service may repeat in its error) is not in the line.
func TestLogSaysKeyRejectedWithoutTheKey(t *testing.T) {
	const wrong = "sk-wrong-0123456789abcdef0123456789"
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) { return wrong, nil }})
	ctx := waitCtx(t)
	for _, path := range []string{"/v1/chat/completions", "/v1/messages"} {
		body := chatBody(sonnet, false)
		if path == "/v1/messages" {
			body = `{"model":"` + sonnet + `","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
		}
		readAll(t, r.do(ctx, "POST", path, body, nil))
	}
	log := r.log.String()
	if strings.Count(log, " status=401 condition=key_rejected ") != 2 {
		t.Errorf("log:\n%s\nwant both requests as key_rejected", log)
	}
	if strings.Contains(log, wrong) || strings.Contains(log, wrong[len(wrong)-8:]) {
		t.Errorf("the key is in the log:\n%s", log)
	}
}

// The tokens the service read from its cache reach the log line, on the
// chat pass-through (prompt_cache_key) and through the Messages translator
// (cache_control), the second time the same long prompt is sent.
func TestLogCountsCachedTokens(t *testing.T) {
	r := newRig(t, rigOpts{})
	ctx := waitCtx(t)
	long := strings.Repeat("the same long instructions, word after word. ", 400)
	chat := `{"model":"` + sonnet + `","prompt_cache_key":"k1","messages":[{"role":"user","content":"` + long + `"}]}`
	messages := `{"model":"` + sonnet + `","max_tokens":10,"system":[{"type":"text","text":"` + long + `","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct{ path, body string }{{"/v1/chat/completions", chat}, {"/v1/messages", messages}} {
		for range 2 {
			readAll(t, r.do(ctx, "POST", c.path, c.body, nil))
		}
	}
	lines := strings.Split(strings.TrimSuffix(r.log.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("log:\n%s", r.log.String())
	}
	for _, i := range []int{1, 3} {
		if !strings.Contains(lines[i], " cached_tokens=") || strings.Contains(lines[i-1], " cached_tokens=") {
			t.Errorf("want cached tokens on the second of two identical requests only:\n%s\n%s", lines[i-1], lines[i])
		}
	}
}
