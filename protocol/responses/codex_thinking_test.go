package responses

import (
	"encoding/json"
	"fmt"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// signingService stands in for a service that signs its reasoning in
// OpenRouter's dialect and puts Gemini's thought signature on its tool
// calls: asked to run a command, it thinks, signs and calls exec_command;
// given the output, it answers with it. It keeps every chat request.
type signingService struct {
	cmd  string
	mu   sync.Mutex
	seen []chat.Request
}

const (
	signedReasoning = "I should run the command."
	reasoningSig    = "EqoBCkgIARABor+/sig=="
	thoughtSig      = "CsgBAdHtim9+/gem=="
	signingCallID   = "call_gem_1"
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
	hasTool := false
	for _, m := range req.Messages {
		if m.Role == "tool" {
			result, _ = m.Content.(string)
		}
	}
	for _, tl := range req.Tools {
		hasTool = hasTool || tl.Function.Name == "exec_command"
	}
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	detail := func(text, sig string) string {
		return `{"reasoning":` + q(text) + `,"reasoning_details":[{"type":"reasoning.text","text":` + q(text) + `,"signature":` + q(sig) + `,"format":"anthropic-claude-v1","index":0}]}`
	}
	var deltas []string
	finish := "stop"
	switch {
	case result != "":
		deltas = []string{`{"role":"assistant","content":` + q("The output was: "+result) + `}`}
	case hasTool:
		deltas = []string{detail("I should run ", ""), detail("the command.", ""), detail("", reasoningSig),
			`{"tool_calls":[{"index":0,"id":"` + signingCallID + `","type":"function","function":{"name":"exec_command","arguments":` +
				q(`{"cmd":`+q(s.cmd)+`}`) + `},"extra_content":{"google":{"thought_signature":` + q(thoughtSig) + `}}}]}`}
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

// TestCodexCarriesReasoning runs the real Codex CLI through Serve against a
// service that signs its reasoning and its tool call: on the turn after the
// call, the service must get its reasoning back with its signature, in its
// own dialect (through Codex's encrypted_content), and the call with its id
// and thought signature (through the call_id).
func TestCodexCarriesReasoning(t *testing.T) {
	codex := findCodex(t)
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("The secret word is pineapple.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := &signingService{cmd: "cat " + notes}
	ts := httptest.NewServer(svc)
	defer ts.Close()
	h := newHarnessUpstream(t, nil, relaytest.UpstreamTo(ts.URL+"/v1", testKey, ts.Client()))
	out, ok := runCodex(t, codex, h.srv.URL+"/v1", "vendor-a/model-a-sonnet-4.5-thinking", "Use the exec_command tool: `cat "+notes+"`")
	if !ok || !strings.Contains(out, "pineapple") {
		t.Fatalf("codex did not answer from the file (ok %v):\n%s", ok, out)
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
		t.Fatalf("the service never got the tool's output (%d requests)", len(svc.seen))
	}
	var asst *chat.Message
	for i, m := range after.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			asst = &after.Messages[i]
		}
	}
	if asst == nil {
		t.Fatalf("no assistant message with the call: %s", mustJSONString(t, after.Messages))
	}
	if d := asst.ReasoningDetails; len(d) != 1 || d[0].Type != chat.DetailText || d[0].Text != signedReasoning || d[0].Signature != reasoningSig {
		t.Errorf("Codex's next turn gave the service the reasoning %s, want %q signed %q (the message: %s)",
			mustJSONString(t, d), signedReasoning, reasoningSig, mustJSONString(t, asst))
	}
	if tc := asst.ToolCalls[0]; tc.ID != signingCallID || tc.ExtraContent.ThoughtSignature() != thoughtSig {
		t.Errorf("the call went back as %s, want id %s with thought signature %s", mustJSONString(t, tc), signingCallID, thoughtSig)
	}
	for _, m := range after.Messages {
		if m.Role == "tool" && m.ToolCallID != signingCallID {
			t.Errorf("the tool message answers %q, want %q", m.ToolCallID, signingCallID)
		}
	}
}
