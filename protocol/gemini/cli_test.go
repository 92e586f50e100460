package gemini

import (
	"context"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/standin"
)

// TestGeminiCLIThroughRelay runs the real Gemini CLI against the Gemini
// translator in gw serve's loop, in front of the stand-in of the service:
// it reads a file, writes one and runs a command with its own tools, each a
// round trip of a function call and its response; a thinking model
// answers; and the spec's key and model failures reach the user with the
// spec's message and gw's fix (TestGeminiCLIFailsAtOnce: also an
// unreachable service, each at once).
func TestGeminiCLIThroughRelay(t *testing.T) {
	bin := geminiBinary(t)
	svc := relaytest.StartService(t, standin.Options{})
	const model = "vendor-b/model-b-3-flash-preview"
	gw := startGateway(t, relaytest.UpstreamTo(svc.BaseURL, standin.DemoKeyFull, svc.Client()))

	tools := []struct {
		name, prompt, want string
		check              func(t *testing.T, project string)
	}{
		{"ReadFile", "Use the read_file tool on `notes.txt` and tell me the launch code.",
			"Tool result received: «The launch code is PINEAPPLE-42.»", nil},
		{"RunShellCommand", "Use the run_shell_command tool: `echo RAN-IT-42`",
			"Output: RAN-IT-42", nil},
		{"WriteFile", "Use the write_file tool on `written.txt` please.", "Tool result received: «",
			func(t *testing.T, project string) {
				b, err := os.ReadFile(filepath.Join(project, "written.txt"))
				if err != nil || strings.TrimSpace(string(b)) != "written.txt" {
					t.Errorf("written.txt holds %q (%v), want what the model wrote: written.txt", b, err)
				}
			}},
	}
	for _, c := range tools {
		t.Run(c.name, func(t *testing.T) {
			home, project := newProject(t, map[string][]byte{"notes.txt": []byte("The launch code is PINEAPPLE-42.\n")})
			seen := len(svc.Seen())
			r := runGemini(t, bin, project, geminiEnv(home, gw, "gw-local-harness"), model, c.prompt)
			res := r.result(t)
			if res.Error != nil || r.err != nil || !strings.Contains(res.Response, c.want) {
				t.Fatalf("gemini did not finish the task (exit %v): %+v\nstderr:\n%s", r.err, res, r.stderr)
			}
			if res.Stats.Tools.TotalCalls != 1 || res.Stats.Tools.TotalSuccess != 1 {
				t.Errorf("tool calls %+v, want one that succeeded", res.Stats.Tools)
			}
			st, ok := res.Stats.Models[model]
			if !ok || st.Tokens.Prompt == 0 || st.Tokens.Candidates == 0 {
				t.Errorf("usage not shown for %s: %+v", model, res.Stats.Models)
			}
			streamed := 0
			for _, s := range svc.Seen()[seen:] {
				if s.Path == "/v1/chat/completions" && s.Stream && s.Model == model && s.Key == standin.DemoKeyFull {
					streamed++
				}
			}
			if streamed < 2 {
				t.Errorf("the stand-in saw %d streamed chat requests for %s, want the call and the answer", streamed, model)
			}
			if c.check != nil {
				c.check(t, project)
			}
		})
	}

	t.Run("ThinkingModel", func(t *testing.T) {
		const thinking = "vendor-a/model-a-sonnet-4.5-thinking"
		home, project := newProject(t, nil)
		r := runGemini(t, bin, project, geminiEnv(home, gw, "gw-local-harness"), thinking, "say hello")
		if res := r.result(t); res.Error != nil || !strings.Contains(res.Response, standin.Greeting(thinking)) {
			t.Fatalf("answer %+v\nstderr:\n%s", res, r.stderr)
		}
	})

	failures := []struct {
		name, key, base, model, want string
	}{
		{"WrongKey", "sk-wrong", svc.BaseURL, model, "API key invalid or unauthorized: "},
		{"NoBalance", standin.DemoKeyNoBalance, svc.BaseURL, model, "API key invalid or unauthorized: the account's balance is exhausted"},
		{"MisspelledModel", standin.DemoKeyFull, svc.BaseURL, "vendor-b/model-b-3-flash-previw", "model not found / invalid model: "},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			gw := startGateway(t, relaytest.UpstreamTo(f.base, f.key, svc.Client()))
			home, project := newProject(t, nil)
			r := runGemini(t, bin, project, geminiEnv(home, gw, "gw-local-harness"), f.model, "say hello")
			res := r.result(t)
			if res.Error == nil || !strings.Contains(res.Error.Message, f.want) {
				t.Fatalf("gemini shows %+v\nwant it to contain %q\nstderr:\n%s", res.Error, f.want, r.stderr)
			}
			if !strings.Contains(res.Error.Message, " — ") {
				t.Errorf("gemini shows no fix: %q", res.Error.Message)
			}
			t.Logf("gemini shows: %s", res.Error.Message)
		})
	}
}

// TestGeminiCLIFailsAtOnce: the spec's three failures reach the Gemini CLI
// user at once, in one line with the spec's message and gw's fix: Gemini
// CLI sends its request once and does not retry it (it retries a 429 and
// every 5xx for about two minutes, silently), which the requests gw serve
// received show. A rate limit and an overloaded service are still retried,
// and the retry then succeeds.
func TestGeminiCLIFailsAtOnce(t *testing.T) {
	bin := geminiBinary(t)
	svc := relaytest.StartService(t, standin.Options{})
	const model = "vendor-b/model-b-3-flash-preview"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens there now: connection refused

	// A service that says the balance is exhausted with a 429, as OpenAI's insufficient_quota does.
	quota := func(context.Context, *tr.Call) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`))}, nil
	}
	failures := []struct {
		name, key, base, model, want string
		up                           upstream // instead of the service at base with key
	}{
		{"Unreachable", standin.DemoKeyFull, refused, model, "unable to connect to API: ", nil},
		{"WrongKey", "sk-wrong", svc.BaseURL, model, "API key invalid or unauthorized: ", nil},
		{"NoBalanceSaidWith429", "", "", model, "API key invalid or unauthorized: the account's balance is exhausted", quota},
		{"UnknownModel", standin.DemoKeyFull, svc.BaseURL, "vendor-b/model-b-3-flash-previw", "model not found / invalid model: ", nil},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			up := f.up
			if up == nil {
				up = relaytest.UpstreamTo(f.base, f.key, svc.Client())
			}
			gw, requests := startCountingGateway(t, up)
			home, project := newProject(t, nil)
			r := runGeminiArgs(t, bin, project, geminiEnv(home, gw, "gw-local-harness"), "-m", f.model, "-p", "say hello")
			if r.err == nil {
				t.Errorf("gemini succeeded:\n%s", r.stdout)
			}
			var line string
			for _, l := range strings.Split(r.stdout+"\n"+r.stderr, "\n") {
				if strings.Contains(l, f.want) {
					line = l
				}
			}
			if line == "" || !strings.Contains(line, " — ") {
				t.Errorf("gemini shows no line with %q and the fix:\nstdout:\n%s\nstderr:\n%s", f.want, r.stdout, r.stderr)
			}
			if n := requests(); n != 1 {
				t.Errorf("gw serve received %d requests for the answer, want 1 (Gemini CLI retried)", n)
			}
			t.Logf("gemini shows: %s", line)
		})
	}

	// The service answers a rate limit, or that it is overloaded, once; Gemini CLI tries again.
	retried := []struct {
		name   string
		status int
		body   string
	}{
		{"RateLimited", http.StatusTooManyRequests, `{"error":{"message":"Rate limit reached, slow down","type":"rate_limit_error"}}`},
		{"Overloaded", http.StatusServiceUnavailable, `{"error":{"message":"The server is overloaded","type":"server_error"}}`},
	}
	for _, c := range retried {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var once atomic.Bool
			up := relaytest.UpstreamTo(svc.BaseURL, standin.DemoKeyFull, svc.Client())
			gw, requests := startCountingGateway(t, func(ctx context.Context, call *tr.Call) (*http.Response, error) {
				if once.CompareAndSwap(false, true) {
					return &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {"application/json"}},
						Body: io.NopCloser(strings.NewReader(c.body))}, nil
				}
				return up(ctx, call)
			})
			home, project := newProject(t, nil)
			r := runGemini(t, bin, project, geminiEnv(home, gw, "gw-local-harness"), model, "say hello")
			if res := r.result(t); res.Error != nil || !strings.Contains(res.Response, standin.Greeting(model)) {
				t.Fatalf("answer %+v\nstderr:\n%s", res, r.stderr)
			}
			if n := requests(); n != 2 {
				t.Errorf("gw serve received %d requests for the answer, want 2 (the refused one, then the retry)", n)
			}
		})
	}
}
