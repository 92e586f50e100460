package responses

import (
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// What the service of TestCodexCarriesReasoning signs and calls.
const (
	signedReasoning = "I should run the command."
	reasoningSig    = "EqoBCkgIARABor+/sig=="
	thoughtSig      = "CsgBAdHtim9+/gem=="
	signingCallID   = "call_gem_1"
)

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
	detail := func(text, sig string) string {
		return `{"reasoning":"` + text + `","reasoning_details":[{"type":"reasoning.text","text":"` + text + `","signature":"` + sig + `","format":"anthropic-claude-v1","index":0}]}`
	}
	svc := &translatetest.Service{Tool: "exec_command", Args: `{"cmd":` + translatetest.Quote("cat "+notes) + `}`, CallID: signingCallID, ThoughtSig: thoughtSig,
		Answer: "The output was: ", Reasoning: []string{detail("I should run ", ""), detail("the command.", ""), detail("", reasoningSig)}} // OpenRouter's dialect
	ts := httptest.NewServer(svc)
	defer ts.Close()
	h := newHarnessUpstream(t, nil, relaytest.UpstreamTo(ts.URL+"/v1", testKey, ts.Client()))
	out, ok := runCodex(t, codex, h.srv.URL+"/v1", "vendor-a/model-a-sonnet-4.5-thinking", "Use the exec_command tool: `cat "+notes+"`")
	if !ok || !strings.Contains(out, "pineapple") {
		t.Fatalf("codex did not answer from the file (ok %v):\n%s", ok, out)
	}
	after, asst, n := svc.AfterResult()
	if asst == nil {
		t.Fatalf("the service never got the tool's output with the call (%d requests)", n)
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
