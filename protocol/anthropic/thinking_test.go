package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	tr "github.com/modelgateway/gw/protocol/translate"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// A dialect of reasoning as a service sends it, streamed and whole, and
// what must reach the service again when the client sends the answer back.
type dialectCase struct {
	name   string
	chunks []string // the deltas of the stream, one per chunk
	whole  string   // the same answer's message, not streamed
	blocks []answerBlock
	back   chat.Message // the reasoning fields and tool calls of the assistant message sent back
	toolID string       // the service's id of the tool call, which the tool message must name
}

var dialectCases = []dialectCase{{
	name:   "plain-reasoning_content",
	chunks: []string{`{"role":"assistant","reasoning_content":"Let me "}`, `{"reasoning_content":"think."}`, `{"content":"Hi"}`},
	whole:  `{"role":"assistant","content":"Hi","reasoning_content":"Let me think."}`,
	blocks: []answerBlock{{kind: "thinking", thinking: "Let me think."}, {kind: "text", text: "Hi"}},
	back:   chat.Message{ReasoningContent: "Let me think."},
}, {
	name:   "plain-reasoning-with-a-tool-call",
	chunks: []string{`{"reasoning":"Read it."}`, `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]}`},
	whole:  `{"role":"assistant","content":null,"reasoning":"Read it.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]}`,
	blocks: []answerBlock{{kind: "thinking", thinking: "Read it."}, {kind: "tool_use", id: "call_1", name: "Read", input: `{"file_path":"a"}`}},
	back: chat.Message{ReasoningContent: "Read it.", ToolCalls: []chat.ToolCall{{ID: "call_1", Type: "function",
		Function: chat.FunctionCall{Name: "Read", Arguments: `{"file_path":"a"}`}}}},
	toolID: "call_1",
}, {
	name: "openrouter-signed-text",
	chunks: []string{
		`{"reasoning":"Plan ","reasoning_details":[{"type":"reasoning.text","text":"Plan ","signature":null,"format":"anthropic-claude-v1","index":0}]}`,
		`{"reasoning":"it.","reasoning_details":[{"type":"reasoning.text","text":"it.","format":"anthropic-claude-v1","index":0}]}`,
		`{"reasoning":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"EqoBCkgIARAB+/sig==","format":"anthropic-claude-v1","index":0}]}`,
		`{"tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"Read","arguments":"{}"}}]}`},
	whole: `{"role":"assistant","content":null,"reasoning":"Plan it.","reasoning_details":[{"type":"reasoning.text","text":"Plan it.","signature":"EqoBCkgIARAB+/sig==","format":"anthropic-claude-v1","index":0}],
		"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"Read","arguments":"{}"}}]}`,
	blocks: []answerBlock{{kind: "thinking", thinking: "Plan it.", signature: "gwor1."}, {kind: "tool_use", id: "toolu_01", name: "Read", input: `{}`}},
	back: chat.Message{
		ReasoningDetails: []chat.ReasoningDetail{{Type: "reasoning.text", Text: "Plan it.", Signature: "EqoBCkgIARAB+/sig==", Format: "anthropic-claude-v1"}},
		ToolCalls:        []chat.ToolCall{{ID: "toolu_01", Type: "function", Function: chat.FunctionCall{Name: "Read", Arguments: "{}"}}}},
	toolID: "toolu_01",
}, {
	name: "openrouter-encrypted-and-summary",
	chunks: []string{
		`{"reasoning":"Checked.","reasoning_details":[{"type":"reasoning.summary","summary":"Checked.","format":"openai-responses-v1","index":0}]}`,
		`{"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAABo_enc","id":"rs_9","format":"openai-responses-v1","index":1}]}`,
		`{"content":"Yes."}`},
	whole: `{"role":"assistant","content":"Yes.","reasoning":"Checked.","reasoning_details":[{"type":"reasoning.summary","summary":"Checked.","format":"openai-responses-v1","index":0},
		{"type":"reasoning.encrypted","data":"gAAAAABo_enc","id":"rs_9","format":"openai-responses-v1","index":1}]}`,
	blocks: []answerBlock{{kind: "thinking", thinking: "Checked."}, {kind: "redacted_thinking", data: "gwor1."}, {kind: "text", text: "Yes."}},
	back:   chat.Message{ReasoningDetails: []chat.ReasoningDetail{{Type: "reasoning.encrypted", Data: "gAAAAABo_enc", ID: "rs_9", Format: "openai-responses-v1"}}},
}, {
	name: "litellm-thinking-blocks",
	chunks: []string{
		`{"reasoning_content":"Hmm ","thinking_blocks":[{"type":"thinking","thinking":"Hmm ","signature":null}]}`,
		`{"reasoning_content":"ok","thinking_blocks":[{"type":"thinking","thinking":"ok"}]}`,
		`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"EuYBCkQYAiJA/sig"}]}`,
		`{"thinking_blocks":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}]}`,
		`{"content":"A"}`},
	whole:  `{"role":"assistant","content":"A","reasoning_content":"Hmm ok","thinking_blocks":[{"type":"thinking","thinking":"Hmm ok","signature":"EuYBCkQYAiJA/sig"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}]}`,
	blocks: []answerBlock{{kind: "thinking", thinking: "Hmm ok", signature: "gwlt1."}, {kind: "redacted_thinking", data: "gwlt1."}, {kind: "text", text: "A"}},
	back: chat.Message{ThinkingBlocks: []chat.ThinkingBlock{{Type: "thinking", Thinking: "Hmm ok", Signature: "EuYBCkQYAiJA/sig"},
		{Type: "redacted_thinking", Data: "EmwKAhgBEgy3va"}}},
}, {
	name: "gemini-thought-signature",
	chunks: []string{`{"role":"assistant","tool_calls":[{"index":0,"id":"function-call-4711","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"},` +
		`"extra_content":{"google":{"thought_signature":"CsgBAdHtim9+/Zx=="}}}]}`},
	whole: `{"role":"assistant","content":null,"tool_calls":[{"id":"function-call-4711","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"},` +
		`"extra_content":{"google":{"thought_signature":"CsgBAdHtim9+/Zx=="}}}]}`,
	blocks: []answerBlock{{kind: "tool_use", id: "gwts1_", name: "Read", input: `{"file_path":"a"}`}},
	back: chat.Message{ToolCalls: []chat.ToolCall{{ID: "function-call-4711", Type: "function",
		Function:     chat.FunctionCall{Name: "Read", Arguments: `{"file_path":"a"}`},
		ExtraContent: chat.WithThoughtSignature("CsgBAdHtim9+/Zx==")}}},
	toolID: "function-call-4711",
}}

// streamOf runs the chunks (deltas) through a StreamWriter, decoded as the
// proxy decodes the service's events, and returns the client's stream.
func streamOf(t *testing.T, deltas []string, finish string) string {
	t.Helper()
	var out bytes.Buffer
	sw := NewStreamWriter(&out, Meta{Model: "m", Stream: true})
	var ev chat.Event
	for _, d := range append(deltas, `{}`) {
		data := `{"id":"chatcmpl-1","choices":[{"index":0,"delta":` + d + `,"finish_reason":null}]}`
		if d == `{}` {
			data = `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"` + finish + `"}]}`
		}
		if err := chat.ParseEvent([]byte(data), &ev); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if err := sw.Chunk(&ev.Chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.End(nil); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func finishOf(c dialectCase) string {
	if c.toolID != "" {
		return "tool_calls"
	}
	return "stop"
}

// wholeBlocks is FromResponse's answer to msg as blocks.
func wholeBlocks(t *testing.T, msg string) []answerBlock {
	t.Helper()
	var r chat.Response
	if err := json.Unmarshal([]byte(`{"id":"chatcmpl-1","choices":[{"index":0,"message":`+msg+`,"finish_reason":"stop"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	body, err := FromResponse(Meta{Model: "m"}, &r)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	var blocks []answerBlock
	for _, c := range out.Content {
		b := answerBlock{kind: fmt.Sprint(c["type"])}
		str := func(k string) string { s, _ := c[k].(string); return s }
		switch b.kind {
		case "thinking":
			if _, ok := c["signature"].(string); !ok {
				t.Errorf("a whole thinking block without a signature string: %v", c)
			}
			b.thinking, b.signature = str("thinking"), str("signature")
		case "redacted_thinking":
			b.data = str("data")
		case "text":
			b.text = str("text")
		case "tool_use":
			in, _ := json.Marshal(c["input"])
			b.id, b.name, b.input = str("id"), str("name"), string(in)
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// sameBlocks compares blocks with the expected ones, whose signature, data
// and id may be a prefix (a sealed value's start).
func sameBlocks(got, want []answerBlock) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d blocks %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range got {
		g, w := got[i], want[i]
		prefixed := func(g, w string) bool { return w == "" && g == "" || w != "" && strings.HasPrefix(g, w) }
		if g.kind != w.kind || g.thinking != w.thinking || g.text != w.text || g.name != w.name || g.input != w.input ||
			!prefixed(g.signature, w.signature) || !prefixed(g.data, w.data) || !prefixed(g.id, w.id) {
			return fmt.Errorf("block %d: %+v, want %+v", i, g, w)
		}
	}
	return nil
}

// nextRequest is the Messages request a client sends after the answer:
// the answer's blocks as it kept them, and a result for every tool call.
func nextRequest(t *testing.T, blocks []answerBlock) []byte {
	t.Helper()
	var content, results []any
	for _, b := range blocks {
		switch b.kind {
		case "thinking":
			content = append(content, map[string]any{"type": "thinking", "thinking": b.thinking, "signature": b.signature})
		case "redacted_thinking":
			content = append(content, map[string]any{"type": "redacted_thinking", "data": b.data})
		case "text":
			content = append(content, map[string]any{"type": "text", "text": b.text})
		case "tool_use":
			content = append(content, map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": json.RawMessage(b.input)})
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": b.id, "content": "done"})
		}
	}
	next := []any{map[string]any{"role": "user", "content": "go"}, map[string]any{"role": "assistant", "content": content}}
	if len(results) > 0 {
		next = append(next, map[string]any{"role": "user", "content": results})
	} else {
		next = append(next, map[string]any{"role": "user", "content": "and?"})
	}
	body, err := json.Marshal(map[string]any{"model": "m", "max_tokens": 100, "messages": next})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestThinkingDialectsRoundTrip: for every dialect, the service's stream
// and whole answer give the client the same blocks (signed ones sealed),
// the stream keeps the Messages API's rules (signature_delta last in its
// block), and the client's next request takes the reasoning back to the
// service in the dialect it came in, on the same assistant message, with
// the tool call's own id and thought signature. The stream, the whole
// answer and the chat request sent back are kept in
// testdata/thinking/<dialect>.golden (-update writes them).
func TestThinkingDialectsRoundTrip(t *testing.T) {
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			stream := streamOf(t, c.chunks, finishOf(c))
			a, err := checkStream(stream)
			if err != nil {
				t.Fatalf("%v\n%s", err, stream)
			}
			if err := sameBlocks(a.blocks, c.blocks); err != nil {
				t.Errorf("streamed: %v", err)
			}
			whole := wholeBlocks(t, c.whole)
			if err := sameBlocks(whole, c.blocks); err != nil {
				t.Errorf("whole: %v", err)
			}
			if !reflect.DeepEqual(whole, a.blocks) {
				t.Errorf("the whole answer's blocks\n%+v\ndiffer from the streamed ones\n%+v", whole, a.blocks)
			}

			req, meta, perr := ParseRequest(&tr.Request{Body: nextRequest(t, a.blocks)}, tr.Env{})
			if perr != nil {
				t.Fatalf("the client's next request is refused: %v", perr)
			}
			if len(meta.Dropped) > 0 {
				t.Errorf("dropped %v", meta.Dropped)
			}
			var asst *chat.Message
			for i := range req.Messages {
				if req.Messages[i].Role == "assistant" {
					asst = &req.Messages[i]
				}
			}
			if asst == nil {
				t.Fatalf("no assistant message in %s", mustJSON(t, req))
			}
			got := chat.Message{ReasoningContent: asst.ReasoningContent, ReasoningDetails: asst.ReasoningDetails,
				ThinkingBlocks: asst.ThinkingBlocks, ToolCalls: asst.ToolCalls}
			if !reflect.DeepEqual(got, c.back) {
				t.Errorf("sent back\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, c.back))
			}
			if c.toolID != "" {
				if last := req.Messages[len(req.Messages)-1]; last.Role != "tool" || last.ToolCallID != c.toolID {
					t.Errorf("tool message %s, want tool_call_id %q", mustJSON(t, last), c.toolID)
				}
			}

			var r chat.Response
			_ = json.Unmarshal([]byte(`{"id":"chatcmpl-1","choices":[{"index":0,"message":`+c.whole+`,"finish_reason":"stop"}]}`), &r)
			wholeBody, _ := FromResponse(Meta{Model: "m"}, &r)
			var wholeDoc any
			_ = json.Unmarshal(wholeBody, &wholeDoc)
			doc := fmt.Sprintf("# the service's stream (deltas)\n%s\n\n# the client's stream\n%s\n# the whole answer\n%s\n# the next request's assistant message, as sent to the service\n%s",
				strings.Join(c.chunks, "\n"), stream, golden(t, wholeDoc), golden(t, asst))
			checkGolden(t, filepath.Join("testdata", "thinking", c.name+".golden"), doc)
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
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
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("differs from %s (run with -update and read the diff):\n%s", path, firstDiff(string(want), got))
	}
}

// TestThinkingBadSignatures: signatures and ids a client damaged or took
// from another API are dropped and named in the request log, never
// refused with a panic or passed on as the service's.
func TestThinkingBadSignatures(t *testing.T) {
	for _, c := range []struct {
		name, blocks string
		back         chat.Message
		dropped      string
	}{{
		name:    "another API's signature",
		blocks:  `{"type":"thinking","thinking":"t","signature":"EqoBCkgIARAB"},{"type":"text","text":"x"}`,
		back:    chat.Message{ReasoningContent: "t"},
		dropped: "messages[1].content[0].signature (not from gw serve)",
	}, {
		name:    "a sealed signature that does not decode",
		blocks:  `{"type":"thinking","thinking":"t","signature":"gwor1.!!!"},{"type":"text","text":"x"}`,
		back:    chat.Message{ReasoningContent: "t"},
		dropped: "messages[1].content[0].signature (not from gw serve)",
	}, {
		name:    "a sealed signature that is not JSON",
		blocks:  `{"type":"thinking","thinking":"t","signature":"gwlt1.bm90IGpzb24"},{"type":"text","text":"x"}`,
		back:    chat.Message{ReasoningContent: "t"},
		dropped: "messages[1].content[0].signature (not from gw serve)",
	}, {
		name:    "a sealed signature without one inside",
		blocks:  `{"type":"thinking","thinking":"t","signature":"gwlt1.e30"},{"type":"text","text":"x"}`,
		back:    chat.Message{ReasoningContent: "t"},
		dropped: "messages[1].content[0].signature (not from gw serve)",
	}, {
		name:    "another API's redacted thinking",
		blocks:  `{"type":"redacted_thinking","data":"EmwKAhgB"},{"type":"text","text":"x"}`,
		dropped: "messages[1].content[0] (redacted_thinking not from gw serve)",
	}, {
		name:   "a damaged tool-use id",
		blocks: `{"type":"tool_use","id":"gwts1_%%%","name":"Read","input":{}}`,
		back: chat.Message{ToolCalls: []chat.ToolCall{{ID: "gwts1_%%%", Type: "function",
			Function: chat.FunctionCall{Name: "Read", Arguments: "{}"}}}},
		dropped: "messages[1].content[0].id (damaged thought signature)",
	}} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[` + c.blocks + `]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"gwts1_%%%","content":"r"},{"type":"text","text":"next"}]}]}`
			req, meta, err := ParseRequest(&tr.Request{Body: []byte(body)}, tr.Env{})
			if err != nil {
				t.Fatal(err)
			}
			asst := req.Messages[1]
			got := chat.Message{ReasoningContent: asst.ReasoningContent, ReasoningDetails: asst.ReasoningDetails,
				ThinkingBlocks: asst.ThinkingBlocks, ToolCalls: asst.ToolCalls}
			if !reflect.DeepEqual(got, c.back) {
				t.Errorf("sent back %s, want %s", mustJSON(t, got), mustJSON(t, c.back))
			}
			if strings.Join(meta.Dropped, "|") != c.dropped {
				t.Errorf("dropped %q, want %q", meta.Dropped, c.dropped)
			}
		})
	}
}

// TestThinkingBadFromService: reasoning a service sends malformed (no
// text and no signature, unknown types, empty data) leaves no empty or
// invented block, and the stream keeps its rules.
func TestThinkingBadFromService(t *testing.T) {
	deltas := []string{
		`{"reasoning_details":[{"type":"reasoning.text","text":""},{"type":"reasoning.unknown","text":"x"},{"type":"reasoning.encrypted","data":""}]}`,
		`{"thinking_blocks":[{"type":"thinking"},{"type":"redacted_thinking"},{"type":"other","thinking":"x"}]}`,
		`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"Read","arguments":"{}"},"extra_content":{"google":{"thought_signature":""}}}]}`,
		`{"tool_calls":[{"index":1,"id":"d","type":"function","function":{"name":"Read","arguments":"{}"},"extra_content":{"google":{"thought_signature":"` + strings.Repeat("A", chat.MaxThoughtSignature+1) + `"}}}]}`,
	}
	stream := streamOf(t, deltas, "tool_calls")
	a, err := checkStream(stream)
	if err != nil {
		t.Fatalf("%v\n%s", err, stream)
	}
	want := []answerBlock{{kind: "tool_use", id: "c", name: "Read", input: "{}"}, {kind: "tool_use", id: "d", name: "Read", input: "{}"}}
	if !reflect.DeepEqual(a.blocks, want) {
		t.Errorf("blocks %+v, want %+v (an over-long thought signature is dropped, the id kept)", a.blocks, want)
	}
}

// TestThinkingEntriesAreBlocks: each reasoning_details entry (by index)
// and each signed thinking_blocks entry is a block of its own, with its
// own signature, also when the dialects follow one another.
func TestThinkingEntriesAreBlocks(t *testing.T) {
	stream := streamOf(t, []string{
		`{"reasoning_details":[{"type":"reasoning.text","text":"one","index":0}]}`,
		`{"reasoning_details":[{"type":"reasoning.text","signature":"S1","index":0},{"type":"reasoning.text","text":"two","index":1}]}`,
		`{"reasoning_details":[{"type":"reasoning.text","signature":"S2","index":1}]}`,
		`{"thinking_blocks":[{"type":"thinking","thinking":"three","signature":"S3"}]}`,
		`{"thinking_blocks":[{"type":"thinking","thinking":"four"}]}`,
		`{"thinking_blocks":[{"type":"thinking","signature":"S4"}]}`,
		`{"reasoning_content":"five"}`,
	}, "stop")
	a, err := checkStream(stream)
	if err != nil {
		t.Fatalf("%v\n%s", err, stream)
	}
	var got []string
	for _, b := range a.blocks {
		var s sealedSig
		_, _ = chat.Unseal(b.signature, &s)
		got = append(got, b.thinking+"="+s.Signature)
	}
	if want := "one=S1,two=S2,three=S3,four=S4,five="; strings.Join(got, ",") != want {
		t.Errorf("blocks %s, want %s", strings.Join(got, ","), want)
	}
}

// TestThinkingSignatureAfterPlainText: a service that streams the text as
// plain reasoning and only the signature in a structured piece gets one
// block, signed, whose text goes back with the signature.
func TestThinkingSignatureAfterPlainText(t *testing.T) {
	stream := streamOf(t, []string{`{"reasoning_content":"I plan."}`, `{"thinking_blocks":[{"type":"thinking","thinking":"","signature":"EuYB"}]}`, `{"content":"ok"}`}, "stop")
	a, err := checkStream(stream)
	if err != nil {
		t.Fatalf("%v\n%s", err, stream)
	}
	req, _, perr := ParseRequest(&tr.Request{Body: nextRequest(t, a.blocks)}, tr.Env{})
	if perr != nil {
		t.Fatal(perr)
	}
	if got := mustJSON(t, req.Messages[1].ThinkingBlocks); got != `[{"type":"thinking","thinking":"I plan.","signature":"EuYB"}]` {
		t.Errorf("blocks %+v sent back as %s", a.blocks, got)
	}
}
