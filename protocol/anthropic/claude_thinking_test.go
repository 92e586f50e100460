package anthropic

import (
	"encoding/json"
	"fmt"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/protocol/chat"
)

// signingService stands in for a service that signs its reasoning in
// LiteLLM's dialect and puts Gemini's thought signature on its tool calls:
// asked to read a file, it thinks, signs and calls Read; given the result,
// it answers with it. It keeps every chat request.
type signingService struct {
	file string
	mu   sync.Mutex
	seen []chat.Request
}

const (
	signedThinking  = "I should read the file."
	thinkingSig     = "EuYBCkQYAiJAsig+/LT=="
	thoughtSig      = "CsgBAdHtim9+/gem=="
	signingCallID   = "call_gem_1"
	signingAnswerOK = "The file says: "
)

func (s *signingService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req chat.Request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, req)
	s.mu.Unlock()
	var result string
	hasRead := false
	for _, m := range req.Messages {
		if m.Role == "tool" {
			result = toolText(m.Content)
		}
	}
	for _, tl := range req.Tools {
		hasRead = hasRead || tl.Function.Name == "Read"
	}
	var deltas []string
	finish := "stop"
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	switch {
	case result != "":
		deltas = []string{`{"role":"assistant","content":` + q(signingAnswerOK+result) + `}`}
	case hasRead:
		deltas = []string{
			`{"role":"assistant","reasoning_content":"I should ","thinking_blocks":[{"type":"thinking","thinking":"I should ","signature":null}]}`,
			`{"reasoning_content":"read the file.","thinking_blocks":[{"type":"thinking","thinking":"read the file."}]}`,
			`{"thinking_blocks":[{"type":"thinking","thinking":"","signature":` + q(thinkingSig) + `}]}`,
			`{"tool_calls":[{"index":0,"id":"` + signingCallID + `","type":"function","function":{"name":"Read","arguments":` +
				q(`{"file_path":`+q(s.file)+`}`) + `},"extra_content":{"google":{"thought_signature":` + q(thoughtSig) + `}}}]}`,
		}
		finish = "tool_calls"
	default:
		deltas = []string{`{"role":"assistant","content":"ok"}`}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, d := range deltas {
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-s\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", d)
	}
	fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-s\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%q}]}\n\n", finish)
	fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-s\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,\"total_tokens\":120}}\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// toolText is a tool message's text: a string, or its text parts (a tool
// result carrying a cache breakpoint is sent as parts).
func toolText(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if m, ok := p.(map[string]any); ok && m["type"] == "text" {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// TestClaudeCodeCarriesThinking runs the real Claude Code CLI through the
// Messages API handler against a service that signs its reasoning and its
// tool call: on the turn after the tool call, the service must get its
// thinking block back with its signature, in its own dialect, and the call
// with its id and thought signature.
func TestClaudeCodeCarriesThinking(t *testing.T) {
	bin := claudeBinary(t)
	_, home, project := newProject(t, map[string][]byte{"notes.txt": []byte("The launch code is PINEAPPLE-42.\n")})
	svc := &signingService{file: filepath.Join(project, "notes.txt")}
	ts := httptest.NewServer(svc)
	defer ts.Close()
	gw := startGateway(t, &Handler{Upstream: relaytest.UpstreamTo(ts.URL+"/v1", "test-key", ts.Client())})
	r := runClaude(t, bin, project, claudeEnv(home, gw, "gw-local-harness", "vendor-a/model-a-sonnet-4.5-thinking"), 2*time.Minute,
		"Use the Read tool on `"+svc.file+"` and tell me the launch code.")
	res := r.result(t)
	if res.IsError || !strings.Contains(res.Result, signingAnswerOK) || !strings.Contains(res.Result, "PINEAPPLE-42") {
		t.Fatalf("claude did not answer from the file (exit %v): %+v\nstderr:\n%s", r.err, res, r.stderr)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	var after *chat.Request
	for i := range svc.seen {
		for _, m := range svc.seen[i].Messages {
			if m.Role == "tool" {
				after = &svc.seen[i]
			}
		}
	}
	if after == nil {
		t.Fatalf("the service never got the tool's result (%d requests)", len(svc.seen))
	}
	var asst *chat.Message
	for i, m := range after.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			asst = &after.Messages[i]
		}
	}
	if asst == nil {
		t.Fatalf("no assistant message with the call: %s", mustJSON(t, after.Messages))
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
