package anthropic

import (
	"encoding/json"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/api/apitest"
	"github.com/modelgateway/gw/standin"
)

// claudeResult is what `claude -p --output-format json` prints.
type claudeResult struct {
	Type           string `json:"type"`
	IsError        bool   `json:"is_error"`
	Result         string `json:"result"`
	NumTurns       int    `json:"num_turns"`
	APIErrorStatus *int   `json:"api_error_status"`
	Usage          struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

func (r claudeRun) result(t *testing.T) claudeResult {
	t.Helper()
	var res claudeResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Type != "result" {
		t.Fatalf("claude printed no result (%v, exit %v)\nstdout:\n%s\nstderr:\n%s", err, r.err, r.stdout, r.stderr)
	}
	return res
}

// TestClaudeCodeThroughHandler runs the real Claude Code CLI against the
// Messages API handler in front of the stand-in of the service: a task that
// needs a tool round trip completes, a thinking model answers, and each of
// the spec's three failures reaches the user with the spec's message.
func TestClaudeCodeThroughHandler(t *testing.T) {
	bin := claudeBinary(t)
	svc := relaytest.StartService(t, standin.Options{})
	const model = "vendor-a/model-a-sonnet-4.5"
	run := func(t *testing.T, gw, model, prompt string, files map[string][]byte) (claudeRun, string) {
		t.Helper()
		_, home, project := newProject(t, files)
		p := strings.ReplaceAll(prompt, "$PROJECT", project)
		return runClaude(t, bin, project, claudeEnv(home, gw, "gw-local-harness", model), 2*time.Minute, p), project
	}

	t.Run("ToolRoundTrip", func(t *testing.T) {
		gw := gatewayTo(t, svc, standin.DemoKeyFull)
		seen := len(svc.Seen())
		r, _ := run(t, gw, model, "Use the Read tool on `$PROJECT/notes.txt` and tell me the launch code.",
			map[string][]byte{"notes.txt": []byte("The launch code is PINEAPPLE-42.\n")})
		res := r.result(t)
		if res.IsError || r.err != nil || !strings.Contains(res.Result, "Tool result received: «1 The launch code is PINEAPPLE-42.") {
			t.Fatalf("claude did not answer from the file (exit %v): %+v\nstderr:\n%s", r.err, res, r.stderr)
		}
		if res.NumTurns != 2 || res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 {
			t.Errorf("turns %d, usage %+v", res.NumTurns, res.Usage)
		}
		chats := 0
		for _, s := range svc.Seen()[seen:] {
			if s.Path == "/v1/chat/completions" && s.Stream && s.Model == model && s.Key == standin.DemoKeyFull {
				chats++
			}
		}
		if chats != 2 {
			t.Errorf("the stand-in saw %d streamed chat requests for %s, want 2 (the call and the answer)", chats, model)
		}
	})

	t.Run("ThinkingModel", func(t *testing.T) {
		gw := gatewayTo(t, svc, standin.DemoKeyFull)
		const thinking = "vendor-a/model-a-sonnet-4.5-thinking"
		r, _ := run(t, gw, thinking, "say hello", nil)
		if res := r.result(t); res.IsError || !strings.Contains(res.Result, standin.Greeting(thinking)) {
			t.Fatalf("answer %+v\nstderr:\n%s", res, r.stderr)
		}
	})

	failures := []struct {
		name, key, base, model, want string
	}{
		{"WrongKey", "sk-wrong", svc.BaseURL, model, "API key invalid or unauthorized: "},
		{"NoBalance", standin.DemoKeyNoBalance, svc.BaseURL, model, "API key invalid or unauthorized: the account's balance is exhausted"},
		{"Unreachable", standin.DemoKeyFull, "http://" + apitest.ClosedAddr(t) + "/v1", model, "unable to connect to API: "},
		{"MisspelledModel", standin.DemoKeyFull, svc.BaseURL, "vendor-a/model-a-sonet-4.5", "model not found / invalid model: "},
		{"ClaudeCodesOwnModel", standin.DemoKeyFull, svc.BaseURL, "", "model not found / invalid model: \"claude-"},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			gw := startGateway(t, &Handler{Upstream: relaytest.UpstreamTo(f.base, f.key, svc.Client())})
			r, _ := run(t, gw, f.model, "say hello", nil)
			res := r.result(t)
			if !res.IsError || !strings.Contains(res.Result, f.want) {
				t.Errorf("claude shows %q\nwant it to contain %q", res.Result, f.want)
			}
			if !strings.Contains(res.Result, " — ") {
				t.Errorf("claude shows no fix: %q", res.Result)
			}
			t.Logf("claude shows: %s", res.Result)
		})
	}
}
