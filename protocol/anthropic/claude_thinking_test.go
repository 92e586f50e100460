package anthropic

import (
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What the service of TestClaudeCodeCarriesThinking signs and calls.
const (
	signedThinking  = "I should read the file."
	thinkingSig     = "EuYBCkQYAiJAsig+/LT=="
	thoughtSig      = "CsgBAdHtim9+/gem=="
	signingCallID   = "call_gem_1"
	signingAnswerOK = "The file says: "
)

// TestClaudeCodeCarriesThinking runs the real Claude Code CLI through the
// Messages API handler against a service that signs its reasoning and its
// tool call: on the turn after the tool call, the service must get its
// thinking block back with its signature, in its own dialect, and the call
// with its id and thought signature.
func TestClaudeCodeCarriesThinking(t *testing.T) {
	bin := claudeBinary(t)
	_, home, project := newProject(t, map[string][]byte{"notes.txt": []byte("The launch code is PINEAPPLE-42.\n")})
	file := filepath.Join(project, "notes.txt")
	svc := &translatetest.Service{Tool: "Read", Args: `{"file_path":` + translatetest.Quote(file) + `}`, CallID: signingCallID, ThoughtSig: thoughtSig, Answer: signingAnswerOK,
		Reasoning: []string{ // LiteLLM's dialect
			`{"role":"assistant","reasoning_content":"I should ","thinking_blocks":[{"type":"thinking","thinking":"I should ","signature":null}]}`,
			`{"reasoning_content":"read the file.","thinking_blocks":[{"type":"thinking","thinking":"read the file."}]}`,
			`{"thinking_blocks":[{"type":"thinking","thinking":"","signature":"` + thinkingSig + `"}]}`}}
	ts := httptest.NewServer(svc)
	defer ts.Close()
	gw := startGateway(t, &Handler{Upstream: relaytest.UpstreamTo(ts.URL+"/v1", "test-key", ts.Client())})
	r := runClaude(t, bin, project, claudeEnv(home, gw, "gw-local-harness", "vendor-a/model-a-sonnet-4.5-thinking"), 2*time.Minute,
		"Use the Read tool on `"+file+"` and tell me the launch code.")
	res := r.result(t)
	if res.IsError || !strings.Contains(res.Result, signingAnswerOK) || !strings.Contains(res.Result, "PINEAPPLE-42") {
		t.Fatalf("claude did not answer from the file (exit %v): %+v\nstderr:\n%s", r.err, res, r.stderr)
	}
	after, asst, n := svc.AfterResult()
	if asst == nil {
		t.Fatalf("the service never got the tool's result with the call (%d requests)", n)
	}
	want := `[{"type":"thinking","thinking":"` + signedThinking + `","signature":"` + thinkingSig + `"}]`
	if got := mustJSON(t, asst.ThinkingBlocks); got != want {
		t.Errorf("Claude Code's next turn gave the service the thinking blocks %s, want %s (the message: %s)", got, want, mustJSON(t, asst))
	}
	if tc := asst.ToolCalls[0]; tc.ID != signingCallID || tc.ExtraContent.ThoughtSignature() != thoughtSig {
		t.Errorf("the call went back as %s, want id %s with thought signature %s", mustJSON(t, tc), signingCallID, thoughtSig)
	}
	for _, m := range after.Messages {
		if m.Role == "tool" && m.ToolCallID != signingCallID {
			t.Errorf("the tool message answers %q, want %q", m.ToolCallID, signingCallID)
		}
	}
}
