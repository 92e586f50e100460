package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

func ptr[T any](v T) *T { return &v }

func textChunk(s string) *chat.Chunk {
	return &chat.Chunk{ID: "chatcmpl-1", Choices: []chat.ChunkChoice{{Delta: chat.Delta{Content: &s}}}}
}

func reasoningChunk(s string) *chat.Chunk {
	return &chat.Chunk{Choices: []chat.ChunkChoice{{Delta: chat.Delta{ReasoningContent: &s}}}}
}

func toolChunk(index int, id, name, args string) *chat.Chunk {
	d := chat.ToolCallDelta{Index: index, ID: id}
	if id != "" {
		d.Type = "function"
	}
	d.Function.Name, d.Function.Arguments = name, args
	return &chat.Chunk{Choices: []chat.ChunkChoice{{Delta: chat.Delta{ToolCalls: []chat.ToolCallDelta{d}}}}}
}

func finishChunk(reason string) *chat.Chunk {
	return &chat.Chunk{Choices: []chat.ChunkChoice{{FinishReason: &reason}}}
}

func usageChunk(prompt, completion, cached int) *chat.Chunk {
	u := &chat.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	if cached > 0 {
		u.PromptTokensDetails = &chat.PromptTokensDetails{CachedTokens: cached}
	}
	return &chat.Chunk{Choices: []chat.ChunkChoice{}, Usage: u}
}

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

func TestStreamText(t *testing.T) {
	a, raw := translate(t, sonnet, []*chat.Chunk{
		{ID: "chatcmpl-abc", Choices: []chat.ChunkChoice{{Delta: chat.Delta{Role: "assistant", Content: ptr("")}}}},
		textChunk("Hello "), textChunk("from "), textChunk("gw."), finishChunk("stop"), usageChunk(120, 7, 100),
	}, nil)
	if a.text() != "Hello from gw." || len(a.blocks) != 1 || a.stopReason != "end_turn" {
		t.Fatalf("answer %+v", a)
	}
	if a.usage["input_tokens"] != 20.0 || a.usage["cache_read_input_tokens"] != 100.0 || a.usage["output_tokens"] != 7.0 {
		t.Errorf("usage %v: want input 20 (without the 100 cached), cache read 100, output 7", a.usage)
	}
	if !strings.Contains(raw, `"id":"msg_abc"`) || !strings.Contains(raw, `"model":"vendor-a/model-a-sonnet-4.5"`) {
		t.Errorf("message_start lacks the id or the client's model id:\n%s", raw)
	}
}

func TestStreamReasoningThenText(t *testing.T) {
	a, _ := translate(t, sonnet, []*chat.Chunk{
		reasoningChunk("The user "), reasoningChunk("greets."),
		{Choices: []chat.ChunkChoice{{Delta: chat.Delta{Reasoning: ptr(" More.")}}}},
		textChunk("Hi."), finishChunk("stop"),
	}, nil)
	if len(a.blocks) != 2 || a.blocks[0].kind != "thinking" || a.thinking() != "The user greets. More." || a.text() != "Hi." {
		t.Fatalf("blocks %+v", a.blocks)
	}
}

// Arguments arrive whole however the service split them: at every byte
// boundary (also inside a UTF-8 sequence), and byte by byte.
func TestStreamToolArgumentsSplitAnywhere(t *testing.T) {
	args := `{"file_path":"/tmp/a b/ü.txt","limit":10,"nested":{"x":[1,2]}}`
	check := func(t *testing.T, pieces []string) {
		t.Helper()
		chunks := []*chat.Chunk{toolChunk(0, "call_1", "Read", "")}
		for _, p := range pieces {
			chunks = append(chunks, toolChunk(0, "", "", p))
		}
		chunks = append(chunks, finishChunk("tool_calls"))
		a, _ := translate(t, sonnet, chunks, nil)
		tools := a.tools()
		if len(tools) != 1 || tools[0].input != args || tools[0].id != "call_1" || tools[0].name != "Read" || a.stopReason != "tool_use" {
			t.Fatalf("pieces %q → %+v, stop %s", pieces, a.blocks, a.stopReason)
		}
	}
	for k := 0; k <= len(args); k++ {
		check(t, []string{args[:k], args[k:]})
	}
	var bytewise []string
	for i := range len(args) {
		bytewise = append(bytewise, args[i:i+1])
	}
	check(t, bytewise)
}

func TestStreamSeveralToolCalls(t *testing.T) {
	two := &chat.Chunk{Choices: []chat.ChunkChoice{{Delta: chat.Delta{ToolCalls: []chat.ToolCallDelta{
		toolChunk(1, "call_b", "Read", `{"file_path":"b"}`).Choices[0].Delta.ToolCalls[0],
		toolChunk(2, "call_c", "Bash", `{"command":"ls"}`).Choices[0].Delta.ToolCalls[0],
	}}}}}
	a, _ := translate(t, sonnet, []*chat.Chunk{
		textChunk("Reading both."),
		toolChunk(0, "call_a", "Read", `{"file_pa`), toolChunk(0, "", "", `th":"a"}`),
		two, finishChunk("tool_calls"), usageChunk(10, 5, 0),
	}, nil)
	tools := a.tools()
	if len(a.blocks) != 4 || a.blocks[0].text != "Reading both." || len(tools) != 3 {
		t.Fatalf("blocks %+v", a.blocks)
	}
	for i, want := range []answerBlock{
		{id: "call_a", name: "Read", input: `{"file_path":"a"}`},
		{id: "call_b", name: "Read", input: `{"file_path":"b"}`},
		{id: "call_c", name: "Bash", input: `{"command":"ls"}`},
	} {
		if tools[i].id != want.id || tools[i].name != want.name || tools[i].input != want.input {
			t.Errorf("tool %d: %+v, want %+v", i, tools[i], want)
		}
	}
}

// Some gateways number every call 0 and tell them apart by id.
func TestStreamToolCallsWithReusedIndex(t *testing.T) {
	a, _ := translate(t, sonnet, []*chat.Chunk{
		toolChunk(0, "call_a", "Read", `{"file_path":"a"}`),
		toolChunk(0, "call_b", "Read", `{"file_path":"b"}`),
		finishChunk("stop"),
	}, nil)
	if tools := a.tools(); len(tools) != 2 || tools[1].id != "call_b" || a.stopReason != "tool_use" {
		t.Fatalf("blocks %+v stop %s", a.blocks, a.stopReason)
	}
}

func TestStreamToolCallWithoutArgumentsHasEmptyObject(t *testing.T) {
	a, _ := translate(t, sonnet, []*chat.Chunk{toolChunk(0, "", "ListAgents", ""), finishChunk("tool_calls")}, nil)
	tools := a.tools()
	if len(tools) != 1 || tools[0].input != "{}" || tools[0].id != "toolu_gw_0" {
		t.Fatalf("tools %+v", tools)
	}
}

func TestStreamMapsToolNamesBack(t *testing.T) {
	req, meta := parse(t, []byte(`{"model":"m","max_tokens":1,"stream":true,"tools":[{"name":"mcp.fs/read","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"x"}]}`))
	a, _ := translate(t, meta, []*chat.Chunk{toolChunk(0, "c", req.Tools[0].Function.Name, "{}"), finishChunk("tool_calls")}, nil)
	if tools := a.tools(); len(tools) != 1 || tools[0].name != "mcp.fs/read" {
		t.Fatalf("tools %+v", tools)
	}
}

func TestStreamStopReasons(t *testing.T) {
	withStops := sonnet
	withStops.StopSequences = []string{"END", "STOP"}
	matched := finishChunk("stop")
	matched.Choices[0].StopReason = "STOP"
	cases := []struct {
		name string
		meta Meta
		c    *chat.Chunk
		want string
		seq  any
	}{
		{"length", sonnet, finishChunk("length"), "max_tokens", nil},
		{"content filter", sonnet, finishChunk("content_filter"), "refusal", nil},
		{"stop", sonnet, finishChunk("stop"), "end_turn", nil},
		{"no finish reason", sonnet, textChunk(""), "end_turn", nil},
		{"a stop sequence the service names", withStops, matched, "stop_sequence", "STOP"},
		{"a stop string the request did not send", sonnet, matched, "end_turn", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _ := translate(t, c.meta, []*chat.Chunk{textChunk("x"), c.c}, nil)
			if a.stopReason != c.want || a.stopSeq != c.seq {
				t.Errorf("stop_reason %s / %v, want %s / %v", a.stopReason, a.stopSeq, c.want, c.seq)
			}
		})
	}
}

// A stream the service cut is never taken for a whole answer: the open
// block is stopped and an error event follows, with the spec's message.
func TestStreamCutEndsWithErrorEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		typ  string
		msg  string
	}{
		{"cut", io.ErrUnexpectedEOF, TypeAPI, "unable to connect to API: the service's stream broke off before the answer was complete"},
		{"reset", &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindReset, Cause: "the connection was reset", Fix: remedy.Remedy{Do: remedy.RetryCut}}, TypeAPI, "unable to connect to API: the connection was reset — retry; if it keeps happening, a firewall or proxy is cutting the connection — run: gw doctor"},
		{"service error mid-stream", &api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "the service is rate limiting this key (429)", Fix: remedy.Remedy{Do: remedy.Wait}}, TypeRateLimit, "the service is rate limiting this key (429) — wait a minute and retry"},
		{"other", errors.New("read tcp: boom"), TypeAPI, "unable to connect to API: the service's stream broke off: "},
		{"connection reset mid-answer", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, TypeAPI,
			"unable to connect to API: the service's stream broke off: the connection was cut before the answer was complete — retry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, raw := translate(t, sonnet, []*chat.Chunk{textChunk("Hal"), toolChunk(0, "c", "Read", `{"fi`)}, tc.err)
			if len(a.blocks) != 1 || a.text() != "Hal" {
				t.Errorf("blocks %+v: want the text only, not the tool call cut off", a.blocks)
			}
			if a.errType != tc.typ || !strings.HasPrefix(a.errMessage, tc.msg) {
				t.Errorf("error %s %q\nwant %s %q", a.errType, a.errMessage, tc.typ, tc.msg)
			}
			if strings.Contains(raw, "message_stop") || strings.Contains(raw, "message_delta") {
				t.Errorf("a cut stream ends like a whole one:\n%s", raw)
			}
		})
	}
}

// The cut is reported even before the first chunk.
func TestStreamCutBeforeAnyChunk(t *testing.T) {
	a, _ := translate(t, sonnet, nil, io.ErrUnexpectedEOF)
	if a.errType != TypeAPI || len(a.blocks) != 0 {
		t.Fatalf("answer %+v", a)
	}
}

// Arguments of several calls may come mixed; each call gets its own.
func TestStreamInterleavedToolCalls(t *testing.T) {
	a, _ := translate(t, sonnet, []*chat.Chunk{
		toolChunk(0, "a", "Read", `{"x":`), toolChunk(1, "b", "Read", `{}`), toolChunk(0, "", "", `1}`), finishChunk("tool_calls"),
	}, nil)
	tools := a.tools()
	if len(tools) != 2 || tools[0].input != `{"x":1}` || tools[1].input != `{}` {
		t.Fatalf("tools %+v", tools)
	}
}

// Arguments that are not a JSON object still make a tool_use block whose
// input is an object: Claude Code then tells the model what it sent.
func TestStreamBrokenArgumentsKeptAsString(t *testing.T) {
	a, _ := translate(t, sonnet, []*chat.Chunk{toolChunk(0, "a", "Read", `{"file_path": "/x"`), finishChunk("tool_calls")}, nil)
	if tools := a.tools(); len(tools) != 1 || tools[0].input != `{"arguments":"{\"file_path\": \"/x\""}` {
		t.Fatalf("tools %+v", tools)
	}
}

func TestStreamPingsAndSingleTerminal(t *testing.T) {
	var buf bytes.Buffer
	w := NewStreamWriter(&buf, sonnet)
	if err := w.Ping(); err != nil { // before anything: message_start comes first
		t.Fatal(err)
	}
	_ = w.Ping()
	_ = w.Chunk(textChunk("a"))
	_ = w.Ping()
	_ = w.Chunk(finishChunk("stop"))
	_ = w.End(nil)
	_ = w.End(io.ErrUnexpectedEOF) // no second terminal event
	_ = w.Ping()
	if err := w.Chunk(textChunk("late")); !errors.Is(err, tr.ErrEnded) {
		t.Errorf("Chunk after End: %v, want ErrEnded", err)
	}
	a, err := checkStream(buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if a.pings != 2 || a.text() != "a" || a.errType != "" {
		t.Errorf("answer %+v\n%s", a, buf.String())
	}
}

// A client gone: the first failed write stops the writer.
func TestStreamStopsAfterWriteError(t *testing.T) {
	w := NewStreamWriter(failingWriter{}, sonnet)
	if err := w.Chunk(textChunk("a")); err == nil {
		t.Fatal("no error from a failing writer")
	}
	if err := w.End(nil); err == nil {
		t.Error("End reported success after the writer failed")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestFromResponse(t *testing.T) {
	content := "Let me look."
	resp := &chat.Response{ID: "chatcmpl-9", Choices: []chat.Choice{{
		Message: chat.ResponseMsg{Role: "assistant", Content: &content, ReasoningContent: "thinking…",
			ToolCalls: []chat.ToolCall{
				{ID: "call_1", Type: "function", Function: chat.FunctionCall{Name: "Read", Arguments: `{"file_path": "/a"}`}},
				{ID: "", Type: "function", Function: chat.FunctionCall{Name: "Bash", Arguments: ``}},
				{ID: "call_3", Type: "function", Function: chat.FunctionCall{Name: "Bash", Arguments: `{"command":`}},
			}},
		FinishReason: "tool_calls",
	}}, Usage: &chat.Usage{PromptTokens: 50, CompletionTokens: 9}}
	b, err := FromResponse(sonnet, resp)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"msg_9","type":"message","role":"assistant","model":"vendor-a/model-a-sonnet-4.5","content":[` +
		`{"type":"thinking","thinking":"thinking…","signature":""},{"type":"text","text":"Let me look."},` +
		`{"type":"tool_use","id":"call_1","name":"Read","input":{"file_path":"/a"}},` +
		`{"type":"tool_use","id":"toolu_gw_1","name":"Bash","input":{}},` +
		`{"type":"tool_use","id":"call_3","name":"Bash","input":{"arguments":"{\"command\":"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":50,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}}` + "\n"
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if !json.Valid(b) {
		t.Error("not JSON")
	}
	if _, err := FromResponse(sonnet, &chat.Response{}); !errors.Is(err, ErrNoChoices) {
		t.Errorf("no choices: %v", err)
	}
	empty := ""
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
