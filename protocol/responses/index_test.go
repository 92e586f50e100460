package responses

import (
	"github.com/modelgateway/gw/protocol/translate"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestStream_ReusedIndex: some gateways number every parallel tool call 0
// and tell them apart only by id; each call is still its own item with its
// own arguments, not one call with the arguments run together.
func TestStream_ReusedIndex(t *testing.T) {
	meta := codexMeta(t)
	chunks := append(toolCall(0, "call_a", "exec_command", `{"cmd":"ls"}`, 4),
		toolCall(0, "call_b", "exec_command", `{"cmd":"pwd"}`, 5)...)
	chunks = append(chunks, finish("tool_calls"))
	tr := checkStream(t, runStream(t, meta, chunks, nil))
	var args []string
	for _, it := range tr.items {
		if it["type"] == "function_call" {
			args = append(args, it["call_id"].(string)+"="+it["arguments"].(string))
		}
	}
	if got := strings.Join(args, " "); got != `call_a={"cmd":"ls"} call_b={"cmd":"pwd"}` {
		t.Errorf("calls %q, want two calls with their own arguments", got)
	}
	// The pieces of a call after its first carry no id; they stay with it.
	for id, a := range tr.args {
		if a != `{"cmd":"ls"}` && a != `{"cmd":"pwd"}` {
			t.Errorf("item %s streamed arguments %q", id, a)
		}
	}
}

// TestReasoningEffort_OnlyForReasoningModels: reasoning.effort becomes
// reasoning_effort for the catalogue's reasoning models only, as on the
// Messages route: other models refuse the field.
func TestReasoningEffort_OnlyForReasoningModels(t *testing.T) {
	for _, c := range []struct {
		model string
		want  bool
	}{
		{"vendor-a/model-a-sonnet-4.5-thinking", true},
		{"vendor-b/model-b-3-pro-preview", true},
		{"vendor-a/model-a-sonnet-4.5", false},
		{"vendor-a/model-a-haiku-4.5", false},
		{"some/unknown-model", false},
	} {
		req, _, perr := ParseRequest(&translate.Request{Body: []byte(`{"model":"` + c.model + `","input":"hi","reasoning":{"effort":"high","summary":"auto"}}`)}, testEnv)
		if perr != nil {
			t.Fatal(perr)
		}
		b, _ := json.Marshal(req)
		if got := strings.Contains(string(b), `"reasoning_effort":"high"`); got != c.want {
			t.Errorf("%s: reasoning_effort sent = %v, want %v: %s", c.model, got, c.want, b)
		}
	}
}
