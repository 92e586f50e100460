package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

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

// nextRequest is the Messages request a client sends after the answer:
// the answer's blocks as it kept them, and a result for every tool call.
func nextRequest(t *testing.T, blocks []answerBlock) []byte {
	conv := translatetest.Conversation{Model: "m", User: "go", Reply: &translatetest.Answer{Kept: blocks}, Next: "and?"}
	for _, b := range blocks {
		if b.kind == "tool_use" {
			conv.Results, conv.Next = append(conv.Results, translatetest.Result{Call: translatetest.Call{ID: b.id}, Output: "done"}), ""
		}
	}
	return messagesRequest(t, conv).Body
}

// TestThinkingDialectsRoundTrip pins, for the reasoning of every dialect
// the conformance suite checks (translatetest.ReasoningCases), the client's
// stream, the whole answer and the assistant message its next request
// takes back to the service, in testdata/thinking/<dialect>.golden
// (-update writes them).
func TestThinkingDialectsRoundTrip(t *testing.T) {
	for _, c := range translatetest.ReasoningCases() {
		t.Run(c.Name, func(t *testing.T) {
			stream := streamOf(t, c.Deltas, c.Finish)
			a, err := checkStream(stream)
			if err != nil {
				t.Fatalf("%v\n%s", err, stream)
			}
			req, _, perr := ParseRequest(&tr.Request{Body: nextRequest(t, a.blocks)}, tr.Env{})
			if perr != nil {
				t.Fatalf("the client's next request is refused: %v", perr)
			}
			wholeBody, err := FromResponse(Meta{Model: "m"}, c.Whole)
			if err != nil {
				t.Fatal(err)
			}
			var wholeDoc any
			_ = json.Unmarshal(wholeBody, &wholeDoc)
			doc := fmt.Sprintf("# the service's stream (deltas)\n%s\n\n# the client's stream\n%s\n# the whole answer\n%s\n# the next request's assistant message, as sent to the service\n%s",
				strings.Join(c.Deltas, "\n"), stream, golden(t, wholeDoc), golden(t, req.Messages[1]))
			translatetest.Golden(t, filepath.Join("testdata", "thinking", c.Name+".golden"), []byte(doc), *update)
		})
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
