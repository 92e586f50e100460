package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// A dialect of reasoning as a service sends it, and what the client and
// then the service must get of it.
type dialectCase struct {
	name      string
	chunks    []string // the stream's deltas
	whole     string   // the same answer, not streamed
	text      string   // the reasoning item's reasoning_text
	summary   string   // its summary_text
	sealed    string   // the start of its encrypted_content, "" for none
	back      chat.Message
	toolID    string // the service's id of the tool call
	plainBack string // what goes back when the client did not ask for encrypted_content
}

var dialectCases = []dialectCase{{
	name:      "plain-reasoning_content",
	chunks:    []string{`{"role":"assistant","reasoning_content":"Let me "}`, `{"reasoning_content":"think."}`, `{"content":"Hi"}`},
	whole:     `{"role":"assistant","content":"Hi","reasoning_content":"Let me think."}`,
	text:      "Let me think.",
	summary:   "Let me think.",
	back:      chat.Message{ReasoningContent: "Let me think."},
	plainBack: "Let me think.",
}, {
	name:   "plain-reasoning-with-a-tool-call",
	chunks: []string{`{"reasoning":"Read it."}`, `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]}`},
	whole:  `{"role":"assistant","content":null,"reasoning":"Read it.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]}`,
	text:   "Read it.", summary: "Read it.",
	back: chat.Message{ReasoningContent: "Read it.", ToolCalls: []chat.ToolCall{{ID: "call_1", Type: "function",
		Function: chat.FunctionCall{Name: "Read", Arguments: `{"file_path":"a"}`}}}},
	toolID: "call_1", plainBack: "Read it.",
}, {
	name: "openrouter-signed-text",
	chunks: []string{
		`{"reasoning":"Plan ","reasoning_details":[{"type":"reasoning.text","text":"Plan ","signature":null,"format":"anthropic-claude-v1","index":0}]}`,
		`{"reasoning":"it.","reasoning_details":[{"type":"reasoning.text","text":"it.","format":"anthropic-claude-v1","index":0}]}`,
		`{"reasoning":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"EqoBCkgIARAB+/sig==","format":"anthropic-claude-v1","index":0}]}`,
		`{"tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"Read","arguments":"{}"}}]}`},
	whole: `{"role":"assistant","content":null,"reasoning":"Plan it.","reasoning_details":[{"type":"reasoning.text","text":"Plan it.","signature":"EqoBCkgIARAB+/sig==","format":"anthropic-claude-v1","index":0}],
		"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"Read","arguments":"{}"}}]}`,
	text: "Plan it.", summary: "Plan it.", sealed: "gwor1.",
	back: chat.Message{
		ReasoningDetails: []chat.ReasoningDetail{{Type: "reasoning.text", Text: "Plan it.", Signature: "EqoBCkgIARAB+/sig==", Format: "anthropic-claude-v1", Index: new(int)}},
		ToolCalls:        []chat.ToolCall{{ID: "toolu_01", Type: "function", Function: chat.FunctionCall{Name: "Read", Arguments: "{}"}}}},
	toolID: "toolu_01", plainBack: "Plan it.",
}, {
	name: "openrouter-encrypted-and-summary",
	chunks: []string{
		`{"reasoning":"Checked.","reasoning_details":[{"type":"reasoning.summary","summary":"Checked.","format":"openai-responses-v1","index":0}]}`,
		`{"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAABo_enc","id":"rs_9","format":"openai-responses-v1","index":1}]}`,
		`{"content":"Yes."}`},
	whole: `{"role":"assistant","content":"Yes.","reasoning":"Checked.","reasoning_details":[{"type":"reasoning.summary","summary":"Checked.","format":"openai-responses-v1","index":0},
		{"type":"reasoning.encrypted","data":"gAAAAABo_enc","id":"rs_9","format":"openai-responses-v1","index":1}]}`,
	summary: "Checked.", sealed: "gwor1.",
	back: chat.Message{ReasoningDetails: []chat.ReasoningDetail{
		{Type: "reasoning.summary", Summary: "Checked.", Format: "openai-responses-v1", Index: new(int)},
		{Type: "reasoning.encrypted", Data: "gAAAAABo_enc", ID: "rs_9", Format: "openai-responses-v1", Index: ptr(1)}}},
	plainBack: "Checked.",
}, {
	name: "litellm-thinking-blocks",
	chunks: []string{
		`{"reasoning_content":"Hmm ","thinking_blocks":[{"type":"thinking","thinking":"Hmm ","signature":null}]}`,
		`{"reasoning_content":"ok","thinking_blocks":[{"type":"thinking","thinking":"ok"}]}`,
		`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"EuYBCkQYAiJA/sig"}]}`,
		`{"thinking_blocks":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}]}`,
		`{"content":"A"}`},
	whole: `{"role":"assistant","content":"A","reasoning_content":"Hmm ok","thinking_blocks":[{"type":"thinking","thinking":"Hmm ok","signature":"EuYBCkQYAiJA/sig"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}]}`,
	text:  "Hmm ok", summary: "Hmm ok", sealed: "gwlt1.",
	back: chat.Message{ThinkingBlocks: []chat.ThinkingBlock{{Type: "thinking", Thinking: "Hmm ok", Signature: "EuYBCkQYAiJA/sig"},
		{Type: "redacted_thinking", Data: "EmwKAhgBEgy3va"}}},
	plainBack: "Hmm ok",
}, {
	name: "gemini-thought-signature",
	chunks: []string{`{"role":"assistant","tool_calls":[{"index":0,"id":"function-call-4711","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"},` +
		`"extra_content":{"google":{"thought_signature":"CsgBAdHtim9+/Zx=="}}}]}`},
	whole: `{"role":"assistant","content":null,"tool_calls":[{"id":"function-call-4711","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"},` +
		`"extra_content":{"google":{"thought_signature":"CsgBAdHtim9+/Zx=="}}}]}`,
	back: chat.Message{ToolCalls: []chat.ToolCall{{ID: "function-call-4711", Type: "function",
		Function:     chat.FunctionCall{Name: "Read", Arguments: `{"file_path":"a"}`},
		ExtraContent: chat.WithThoughtSignature("CsgBAdHtim9+/Zx==")}}},
	toolID: "function-call-4711",
}}

func ptr(i int) *int { return &i }

// thinkingMeta is the Meta of a Codex-like request: a function tool Read,
// and include asking for encrypted_content when encrypted.
func thinkingMeta(t *testing.T, encrypted bool) Meta {
	t.Helper()
	include := `[]`
	if encrypted {
		include = `["reasoning.encrypted_content"]`
	}
	_, meta, perr := ParseRequest(&translate.Request{Body: []byte(`{"model":"m","stream":true,"store":false,"input":"go","include":` + include + `,
		"tools":[{"type":"function","name":"Read","parameters":{"type":"object","properties":{}}}]}`)}, testEnv)
	if perr != nil {
		t.Fatal(perr)
	}
	meta.ResponseID, meta.Created = "resp_test", 1700000000
	return meta
}

// chunksOf decodes the deltas as the proxy decodes the service's events,
// and ends them with the finish reason.
func chunksOf(t *testing.T, deltas []string, finish string) []chat.Chunk {
	t.Helper()
	var out []chat.Chunk
	for _, d := range deltas {
		var ev chat.Event
		if err := chat.ParseEvent([]byte(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":`+d+`}]}`), &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.Chunk)
	}
	return append(out, chat.Chunk{Choices: []chat.ChunkChoice{{FinishReason: &finish}}})
}

// nextInput is the input a client sends after the answer: its output
// items, as Codex keeps them, and an output for every call.
func nextInput(t *testing.T, items []map[string]any, include string) []byte {
	t.Helper()
	input := []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "go"}}}}
	var outputs []any
	for _, it := range items {
		input = append(input, it)
		if it["type"] == "function_call" {
			outputs = append(outputs, map[string]any{"type": "function_call_output", "call_id": it["call_id"], "output": "done"})
		}
	}
	input = append(input, outputs...)
	input = append(input, map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "and?"}}})
	body, err := json.Marshal(map[string]any{"model": "m", "input": input, "store": false, "include": json.RawMessage(include),
		"tools": []any{map[string]any{"type": "function", "name": "Read", "parameters": map[string]any{"type": "object"}}}})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func reasoningFields(m chat.Message) chat.Message {
	return chat.Message{ReasoningContent: m.ReasoningContent, ReasoningDetails: m.ReasoningDetails, ThinkingBlocks: m.ThinkingBlocks, ToolCalls: m.ToolCalls}
}

// TestThinkingDialectsRoundTrip: for every dialect, the streamed and the
// whole answer give the same reasoning item (raw text, summary, and the
// service's signed reasoning sealed in encrypted_content when include asks
// for it), and the client's next input takes the reasoning back to the
// service in the dialect it came in, on the assistant message of the same
// turn, with the tool call's own id and thought signature; without
// encrypted_content the reasoning's text goes back as reasoning_content.
// The stream and the chat messages sent back are kept in
// testdata/thinking/<dialect>.golden (-update writes them).
func TestThinkingDialectsRoundTrip(t *testing.T) {
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			finishReason := "stop"
			if c.toolID != "" {
				finishReason = "tool_calls"
			}
			meta := thinkingMeta(t, true)
			stream := runStream(t, meta, chunksOf(t, c.chunks, finishReason), nil)
			tr := checkStream(t, stream)

			var r chat.Response
			if err := json.Unmarshal([]byte(`{"id":"chatcmpl-1","choices":[{"index":0,"message":`+c.whole+`,"finish_reason":"`+finishReason+`"}]}`), &r); err != nil {
				t.Fatal(err)
			}
			body, err := FromResponse(meta, &r)
			if err != nil {
				t.Fatal(err)
			}
			var whole struct {
				Output []map[string]any `json:"output"`
			}
			if err := json.Unmarshal(body, &whole); err != nil {
				t.Fatal(err)
			}
			for _, it := range tr.items {
				if it["type"] == "reasoning" {
					delete(it, "status") // a whole answer's reasoning item has none, as OpenAI's
				}
			}
			if !reflect.DeepEqual(whole.Output, tr.items) {
				t.Errorf("whole output\n%v\ndiffers from the streamed items\n%v", whole.Output, tr.items)
			}

			var rs map[string]any
			for _, it := range tr.items {
				if it["type"] == "reasoning" {
					rs = it
				}
			}
			switch {
			case rs == nil && (c.text != "" || c.summary != "" || c.sealed != ""):
				t.Fatalf("no reasoning item in %v", tr.items)
			case rs != nil:
				var text, summary string
				for _, p := range rs["content"].([]any) {
					text += p.(map[string]any)["text"].(string)
				}
				for _, p := range rs["summary"].([]any) {
					summary += p.(map[string]any)["text"].(string)
				}
				sealed, _ := rs["encrypted_content"].(string)
				if text != c.text || summary != c.summary || !strings.HasPrefix(sealed, c.sealed) || (c.sealed == "") != (sealed == "") {
					t.Errorf("reasoning item: text %q summary %q encrypted_content %.12q…, want %q %q %q…", text, summary, sealed, c.text, c.summary, c.sealed)
				}
			}

			req, next, perr := ParseRequest(&translate.Request{Body: nextInput(t, tr.items, `["reasoning.encrypted_content"]`)}, testEnv)
			if perr != nil {
				t.Fatalf("the client's next request is refused: %v", perr)
			}
			if len(next.Dropped) > 0 {
				t.Errorf("dropped %v", next.Dropped)
			}
			asst := req.Messages[1]
			if asst.Role != "assistant" {
				t.Fatalf("message 1 is %s: %s", asst.Role, mustJSONString(t, req.Messages))
			}
			if got := reasoningFields(asst); !reflect.DeepEqual(got, c.back) {
				t.Errorf("sent back\n%s\nwant\n%s", mustJSONString(t, got), mustJSONString(t, c.back))
			}
			if c.toolID != "" && (req.Messages[2].Role != "tool" || req.Messages[2].ToolCallID != c.toolID) {
				t.Errorf("tool message %s, want tool_call_id %q", mustJSONString(t, req.Messages[2]), c.toolID)
			}

			// A client that did not ask for encrypted_content gets none and
			// sends the text back.
			plain := runStream(t, thinkingMeta(t, false), chunksOf(t, c.chunks, finishReason), nil)
			ptr := checkStream(t, plain)
			for _, it := range ptr.items {
				if it["type"] == "reasoning" && it["encrypted_content"] != nil {
					t.Errorf("encrypted_content %v without include", it["encrypted_content"])
				}
			}
			preq, _, perr := ParseRequest(&translate.Request{Body: nextInput(t, ptr.items, `[]`)}, testEnv)
			if perr != nil {
				t.Fatal(perr)
			}
			if got := preq.Messages[1].ReasoningContent; got != c.plainBack {
				t.Errorf("without encrypted_content, reasoning_content %q went back, want %q", got, c.plainBack)
			}

			doc := fmt.Sprintf("# the service's stream (deltas)\n%s\n\n# the client's stream\n%s\n# the chat messages of the next request\n%s\n",
				strings.Join(c.chunks, "\n"), stream, mustJSONString(t, req.Messages))
			checkThinkingGolden(t, filepath.Join("testdata", "thinking", c.name+".golden"), doc)
		})
	}
}

func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func checkThinkingGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once to write it)", err)
	}
	if string(want) != got {
		t.Errorf("differs from %s (go test -update rewrites it):\n%s", path, firstDiff(got, string(want)))
	}
}

// TestThinkingBadInput: reasoning items and call ids a client damaged or
// took from another API are dropped and named in the request log, their
// text kept; nothing is refused for them and nothing panics.
func TestThinkingBadInput(t *testing.T) {
	for _, c := range []struct {
		name, item string
		back       chat.Message
		dropped    string
	}{{
		name:    "OpenAI's own encrypted_content",
		item:    `{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"gAAAAABoOpenAI"}`,
		back:    chat.Message{ReasoningContent: "s"},
		dropped: "input[1].encrypted_content (not from gw serve)",
	}, {
		name:    "a damaged seal",
		item:    `{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"t"}],"encrypted_content":"gwor1.!!!"}`,
		back:    chat.Message{ReasoningContent: "t"},
		dropped: "input[1].encrypted_content (damaged)",
	}, {
		name:    "a seal of the wrong shape",
		item:    `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gwlt1.eyJhIjoxfQ"}`,
		dropped: "input[1].encrypted_content (damaged)",
	}, {
		name:    "a reasoning item of the wrong shape",
		item:    `{"type":"reasoning","id":"rs_1","summary":"nope"}`,
		dropped: "input[1] (a reasoning item gw serve cannot read)",
	}} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"model":"m","input":[{"role":"user","content":"go"},` + c.item + `,
				{"type":"function_call","call_id":"gwts1_%%%","name":"Read","arguments":"{}"},
				{"type":"function_call_output","call_id":"gwts1_%%%","output":"r"}],
				"tools":[{"type":"function","name":"Read","parameters":{"type":"object"}}]}`
			req, meta, perr := ParseRequest(&translate.Request{Body: []byte(body)}, testEnv)
			if perr != nil {
				t.Fatal(perr)
			}
			want := c.back
			want.ToolCalls = []chat.ToolCall{{ID: "gwts1_%%%", Type: "function", Function: chat.FunctionCall{Name: "Read", Arguments: "{}"}}}
			if got := reasoningFields(req.Messages[1]); !reflect.DeepEqual(got, want) {
				t.Errorf("sent back %s, want %s", mustJSONString(t, got), mustJSONString(t, want))
			}
			if req.Messages[2].ToolCallID != "gwts1_%%%" {
				t.Errorf("tool message %s", mustJSONString(t, req.Messages[2]))
			}
			wantDropped := c.dropped + "|input[2].call_id (damaged thought signature)"
			if got := strings.Join(meta.Dropped, "|"); got != wantDropped {
				t.Errorf("dropped %q, want %q", got, wantDropped)
			}
		})
	}
}

// TestThinkingReasoningBelongsToItsTurn: reasoning followed by a user
// message (an answer cut off before its output) is not carried to a later
// turn's assistant message.
func TestThinkingReasoningBelongsToItsTurn(t *testing.T) {
	body := `{"model":"m","input":[{"role":"user","content":"a"},
		{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"stale"}]},
		{"role":"user","content":"b"},{"role":"assistant","content":"ok"},{"role":"user","content":"c"}]}`
	req, _, perr := ParseRequest(&translate.Request{Body: []byte(body)}, testEnv)
	if perr != nil {
		t.Fatal(perr)
	}
	if s := mustJSONString(t, req.Messages); strings.Contains(s, "stale") {
		t.Errorf("the reasoning of a turn without an answer went on: %s", s)
	}
}

// TestThinkingSignatureAfterPlainText: a service that streams the text as
// plain reasoning and only the signature in a structured piece gets the
// text sealed with the signature.
func TestThinkingSignatureAfterPlainText(t *testing.T) {
	stream := runStream(t, thinkingMeta(t, true), chunksOf(t, []string{`{"reasoning_content":"I plan."}`,
		`{"thinking_blocks":[{"type":"thinking","thinking":"","signature":"EuYB"}]}`, `{"content":"ok"}`}, "stop"), nil)
	tr := checkStream(t, stream)
	req, _, perr := ParseRequest(&translate.Request{Body: nextInput(t, tr.items, `["reasoning.encrypted_content"]`)}, testEnv)
	if perr != nil {
		t.Fatal(perr)
	}
	if got := mustJSONString(t, req.Messages[1].ThinkingBlocks); got != `[
  {
    "type": "thinking",
    "thinking": "I plan.",
    "signature": "EuYB"
  }
]
` {
		t.Errorf("sent back %s", got)
	}
}
