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

// Each line names the agent that sent the request, from its User-Agent or,
// when that names none, the agent gw run started; and a failure's
// condition as the service's error table names it. Neither the key nor the
// local token is ever in it.
func TestLogNamesTheAgentAndTheCondition(t *testing.T) {
	state := t.TempDir()
	r := newRig(t, rigOpts{proxy: func(o *Options) { o.Agent, o.StateDir = "codex", state }})
	ctx := waitCtx(t)
	send := func(model, ua string) {
		t.Helper()
		hdr := http.Header{}
		if ua != "" {
			hdr.Set("User-Agent", ua)
		}
		res := r.do(ctx, "POST", "/v1/chat/completions", chatBody(model, false), hdr)
		readAll(t, res)
	}
	send(sonnet, "claude-cli/2.1.330 (external, cli)")
	send(sonnet, "")
	send("vendor-a/no-such-model", "GeminiCLI/0.9.0 (linux; x64)")
	if err := r.h.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(state, reqlog.Name))
	if err != nil {
		t.Fatal(err)
	}
	for name, log := range map[string]string{"Log": r.log.String(), "serve.log": string(file)} {
		lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s has %d lines, want 3:\n%s", name, len(lines), log)
		}
		for i, want := range []string{" agent=claude-code model=" + sonnet + " status=200 ", " agent=codex model=" + sonnet + " status=200 ",
			" agent=gemini model=vendor-a/no-such-model status=404 condition=unknown_model "} {
			if !strings.Contains(lines[i], want) {
				t.Errorf("%s line %d: %s\nwant it to contain %q", name, i, lines[i], want)
			}
		}
		if strings.Contains(log, realKey) || strings.Contains(log, testToken) || strings.Contains(log, realKey[len(realKey)-8:]) {
			t.Errorf("%s holds the key or the local token:\n%s", name, log)
		}
	}
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
