package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

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

// TestThinkingDialectsRoundTrip pins, for the reasoning of every dialect
// the conformance suite checks (translatetest.ReasoningCases), the client's
// stream with encrypted_content asked for and the chat messages its next
// input sends, in testdata/thinking/<dialect>.golden (-update writes them).
// A client that did not ask for encrypted_content gets none and sends the
// reasoning's text back as reasoning_content.
func TestThinkingDialectsRoundTrip(t *testing.T) {
	for _, c := range translatetest.ReasoningCases() {
		t.Run(c.Name, func(t *testing.T) {
			stream := runStream(t, thinkingMeta(t, true), chunksOf(t, c.Deltas, c.Finish), nil)
			tr := checkStream(t, stream)
			req, _, perr := ParseRequest(&translate.Request{Body: nextInput(t, tr.items, `["reasoning.encrypted_content"]`)}, testEnv)
			if perr != nil {
				t.Fatalf("the client's next request is refused: %v", perr)
			}

			plain := checkStream(t, runStream(t, thinkingMeta(t, false), chunksOf(t, c.Deltas, c.Finish), nil))
			summary := ""
			for _, it := range plain.items {
				if it["type"] != "reasoning" {
					continue
				}
				if it["encrypted_content"] != nil {
					t.Errorf("encrypted_content %v without include", it["encrypted_content"])
				}
				for _, p := range it["summary"].([]any) {
					summary += p.(map[string]any)["text"].(string)
				}
			}
			preq, _, perr := ParseRequest(&translate.Request{Body: nextInput(t, plain.items, `[]`)}, testEnv)
			if perr != nil {
				t.Fatal(perr)
			}
			if got := preq.Messages[1].ReasoningContent; got != summary {
				t.Errorf("without encrypted_content, reasoning_content %q went back, want %q", got, summary)
			}

			doc := fmt.Sprintf("# the service's stream (deltas)\n%s\n\n# the client's stream\n%s\n# the chat messages of the next request\n%s\n",
				strings.Join(c.Deltas, "\n"), stream, mustJSONString(t, req.Messages))
			translatetest.Golden(t, filepath.Join("testdata", "thinking", c.Name+".golden"), []byte(doc), *update)
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
