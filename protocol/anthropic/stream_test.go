package anthropic

import (
	"bytes"
	"encoding/json"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// translate feeds chunks to a StreamWriter and ends it with end; it fails
// the test if the stream breaks a rule.
func translate(t *testing.T, meta Meta, chunks []*chat.Chunk, end error) (answer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := NewStreamWriter(&buf, meta)
	for _, c := range chunks {
		if err := w.Chunk(c); err != nil {
			break
		}
	}
	_ = w.End(end)
	a, err := checkStream(buf.String())
	if err != nil {
		t.Fatalf("%v\nstream:\n%s", err, buf.String())
	}
	return a, buf.String()
}

var sonnet = Meta{Model: "vendor-a/model-a-sonnet-4.5", Stream: true}

func TestStreamMapsToolNamesBack(t *testing.T) {
	req, meta := parse(t, []byte(`{"model":"m","max_tokens":1,"stream":true,"tools":[{"name":"mcp.fs/read","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"x"}]}`))
	a, _ := translate(t, meta, []*chat.Chunk{translatetest.Tool(0, "c", req.Tools[0].Function.Name, "{}"), translatetest.Finish("tool_calls")}, nil)
	if tools := a.tools(); len(tools) != 1 || tools[0].name != "mcp.fs/read" {
		t.Fatalf("tools %+v", tools)
	}
}

// TestStreamStopReasons: a stop sequence of the request the service names
// is stop_sequence with the sequence (the other finish reasons are the
// conformance suite's).
func TestStreamStopReasons(t *testing.T) {
	withStops := sonnet
	withStops.StopSequences = []string{"END", "STOP"}
	matched := translatetest.Finish("stop")
	matched.Choices[0].StopReason = "STOP"
	cases := []struct {
		name string
		meta Meta
		c    *chat.Chunk
		want string
		seq  any
	}{
		{"a stop sequence the service names", withStops, matched, "stop_sequence", "STOP"},
		{"a stop string the request did not send", sonnet, matched, "end_turn", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _ := translate(t, c.meta, []*chat.Chunk{translatetest.Text("x"), c.c}, nil)
			if a.stopReason != c.want || a.stopSeq != c.seq {
				t.Errorf("stop_reason %s / %v, want %s / %v", a.stopReason, a.stopSeq, c.want, c.seq)
			}
		})
	}
}

// Arguments that are not a JSON object still make a tool_use block whose
// input is an object: Claude Code then tells the model what it sent.
func TestStreamBrokenArgumentsKeptAsString(t *testing.T) {
	a, _ := translate(t, sonnet, []*chat.Chunk{translatetest.Tool(0, "a", "Read", `{"file_path": "/x"`), translatetest.Finish("tool_calls")}, nil)
	if tools := a.tools(); len(tools) != 1 || tools[0].input != `{"arguments":"{\"file_path\": \"/x\""}` {
		t.Fatalf("tools %+v", tools)
	}
}

// TestFromResponse: a whole answer's arguments that are not a JSON object
// are an object still; an empty answer has no blocks (the conformance suite
// checks the rest, the thinking goldens the bytes).
func TestFromResponse(t *testing.T) {
	empty := ""
	b, err := FromResponse(sonnet, &chat.Response{Choices: []chat.Choice{{FinishReason: "tool_calls", Message: chat.ResponseMsg{Content: &empty,
		ToolCalls: []chat.ToolCall{{ID: "call_3", Type: "function", Function: chat.FunctionCall{Name: "Bash", Arguments: `{"command":`}}}}}}})
	if err != nil || !strings.Contains(string(b), `"content":[{"type":"tool_use","id":"call_3","name":"Bash","input":{"arguments":"{\"command\":"}}],"stop_reason":"tool_use"`) {
		t.Errorf("%v %s", err, b)
	}
	b, _ = FromResponse(sonnet, &chat.Response{Choices: []chat.Choice{{Message: chat.ResponseMsg{Content: &empty}, FinishReason: "length"}}})
	if !strings.Contains(string(b), `"content":[],"stop_reason":"max_tokens"`) {
		t.Errorf("empty answer: %s", b)
	}
}

// TestDeltaEventsAsEncodingJSON: the text and thinking deltas, written
// without reflection, are byte for byte what encoding/json writes for them.
func TestDeltaEventsAsEncodingJSON(t *testing.T) {
	for _, text := range []string{"", "plain", "quote \" backslash \\ newline \n tab \t", "<&> émoji 🙂 \u2028 \x01 bad \xff"} {
		for _, c := range []struct {
			kind string
			v    any
		}{
			{`text_delta","text":`, textDelta{Type: "text_delta", Text: text}},
			{`thinking_delta","thinking":`, thinkingDelta{Type: "thinking_delta", Thinking: text}},
		} {
			var fast StreamWriter
			fast.next = 3
			fast.delta(c.kind, text)
			var want bytes.Buffer
			want.WriteString("event: content_block_delta\ndata: ")
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(evBlockDelta{Type: "content_block_delta", Index: 2, Delta: c.v}); err != nil {
				t.Fatal(err)
			}
			want.WriteString("\n")
			if fast.buf.String() != want.String() {
				t.Errorf("delta %q:\n got %q\nwant %q", text, fast.buf.String(), want.String())
			}
		}
	}
}
