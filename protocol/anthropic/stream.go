package anthropic

import (
	"bytes"
	"errors"
	tr "github.com/modelgateway/gw/protocol/translate"
	"io"
	"net/http"
	"strconv"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
)

// StreamWriter turns the service's chat chunks into the Messages API's
// server-sent events, written to w (the caller flushes):
//
//	message_start
//	content_block_start / content_block_delta… / content_block_stop   per block
//	message_delta (stop_reason, usage)
//	message_stop                                   or, when the stream broke: error
//
// Reasoning becomes thinking blocks (thinking_delta, then signature_delta
// before the block stops when the service signed it) and redacted_thinking
// blocks, in the dialect the service used (thinking.go), and text a text
// block (text_delta), both streamed as they come. A tool call becomes
// a tool_use block once its arguments are complete, however the service
// split them: at the finish reason, or at the end of the stream. Claude Code
// must never see a tool_use block stopped with arguments that are not a JSON
// object: it then repeats the request without end. So a call cut off by a
// broken stream is not shown at all, and arguments that are not a JSON
// object are passed as {"arguments": "<what the model wrote>"}, which Claude
// Code's validation reports back to the model.
//
// Every block started is stopped, and exactly one terminal event is
// written. A StreamWriter is not safe for concurrent use; a caller sending
// pings from a timer serialises them with the chunks.
type StreamWriter struct {
	w    io.Writer
	meta Meta
	buf  bytes.Buffer
	enc  *json.Encoder // writes to buf

	started bool
	done    bool
	err     error // the first write error; nothing is written after it

	id    string
	next  int            // index of the next block
	open  string         // kind of the open block: "", text, thinking
	think thinkState     // of the open thinking block
	calls chat.ToolCalls // the calls not yet written
	nUsed int            // tool_use blocks written

	finish  string
	matched any
	usage   *chat.Usage
}

// thinkState is what the open thinking block came from: its dialect (""
// plain text, chat.DialectOpenRouter, chat.DialectLiteLLM, or "summary"
// for OpenRouter's unsigned summaries), the reasoning_details index it
// collects, and the signature to send before it stops.
type thinkState struct {
	dialect    string
	index      *int
	sig        string
	format, id string
}

// NewStreamWriter writes the answer to the request meta describes.
func NewStreamWriter(w io.Writer, meta Meta) *StreamWriter {
	return &StreamWriter{w: w, meta: meta}
}

// Usage is the usage the service reported, nil when it reported none.
func (s *StreamWriter) Usage() *chat.Usage { return s.usage }

// Start writes message_start, once; Chunk and Ping call it when needed.
func (s *StreamWriter) Start() error {
	if s.started || s.err != nil {
		return s.err
	}
	s.started = true
	if s.id == "" {
		s.id = "msg_gw"
	}
	// The service counts the prompt only at the end; until then clients
	// (Claude Code's context meter, SDKs that read usage here) get the
	// estimate, which message_delta replaces with the real counts.
	s.event("message_start", evMessageStart{Type: "message_start", Message: messageOut{
		ID: s.id, Type: "message", Role: "assistant", Model: s.meta.Model, Content: []blockOut{},
		Usage: usageOut{InputTokens: s.meta.InputTokens},
	}})
	return s.flush()
}

// Ping writes a ping event: traffic on an idle stream, as Anthropic sends.
func (s *StreamWriter) Ping() error {
	if s.done || s.err != nil {
		return s.err
	}
	if !s.started {
		return s.Start()
	}
	s.event("ping", evType{Type: "ping"})
	return s.flush()
}

// ErrEnded is returned by Chunk after the answer ended.
var ErrEnded = errors.New("the answer has ended")

// Chunk translates one chunk of the service's stream. An error means the
// caller stops: writing failed (the client is gone), or the answer ended.
func (s *StreamWriter) Chunk(c *chat.Chunk) error {
	if s.err != nil {
		return s.err
	}
	if s.done {
		return ErrEnded
	}
	if !s.started {
		if c.ID != "" {
			s.id = messageID(c.ID)
		}
		if err := s.Start(); err != nil {
			return err
		}
	}
	if c.Usage != nil {
		u := *c.Usage
		s.usage = &u
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // gw asks for one choice
		}
		d := ch.Delta
		details, blocks, plain := d.ReasoningIn()
		for _, rd := range details {
			s.detail(rd)
		}
		for _, tb := range blocks {
			s.thinkingBlock(tb)
		}
		if plain != "" {
			s.thinking("", nil)
			s.delta(`thinking_delta","thinking":`, plain)
		}
		text := ""
		if d.Content != nil {
			text = *d.Content
		}
		if d.Refusal != nil {
			text += *d.Refusal
		}
		if text != "" {
			s.ensure("text")
			s.delta(`text_delta","text":`, text)
		}
		for _, tc := range d.ToolCalls {
			s.calls.Add(tc)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = *ch.FinishReason
			s.matched = ch.StopReason
			s.writeCalls()
		}
	}
	return s.flush()
}

// detail streams a piece of a reasoning_details entry.
func (s *StreamWriter) detail(d chat.ReasoningDetail) {
	switch d.Type {
	case chat.DetailText:
		if d.Text == "" && d.Signature == "" {
			return
		}
		s.thinking(chat.DialectOpenRouter, d.Index)
		if d.Text != "" {
			s.delta(`thinking_delta","thinking":`, d.Text)
		}
		if d.Signature != "" {
			s.think.sig = d.Signature
		}
		if s.think.format == "" {
			s.think.format = d.Format
		}
		if s.think.id == "" {
			s.think.id = d.ID
		}
	case chat.DetailSummary:
		if d.Summary != "" {
			s.thinking("summary", d.Index)
			s.delta(`thinking_delta","thinking":`, d.Summary)
		}
	case chat.DetailEncrypted:
		if b, ok := detailBlock(d); ok {
			s.wholeBlock(b)
		}
	}
}

// thinkingBlock streams a piece of a thinking_blocks entry: more of the
// open thinking block until it is signed.
func (s *StreamWriter) thinkingBlock(tb chat.ThinkingBlock) {
	switch tb.Type {
	case "thinking":
		if tb.Thinking == "" && tb.Signature == "" {
			return
		}
		if s.open == "thinking" && s.think.dialect == chat.DialectLiteLLM && s.think.sig != "" {
			s.closeBlock() // signed: what follows is another block
		}
		s.thinking(chat.DialectLiteLLM, nil)
		if tb.Thinking != "" {
			s.delta(`thinking_delta","thinking":`, tb.Thinking)
		}
		if tb.Signature != "" {
			s.think.sig = tb.Signature
		}
	case "redacted_thinking":
		if b, ok := liteLLMBlock(tb); ok {
			s.wholeBlock(b)
		}
	}
}

// thinking opens a thinking block for reasoning of dialect (and
// reasoning_details index), unless one is open for it.
func (s *StreamWriter) thinking(dialect string, index *int) {
	if s.open == "thinking" {
		if s.think.dialect == dialect && sameIndex(s.think.index, index) {
			return
		}
		if s.think.dialect == "" && (dialect == chat.DialectOpenRouter || dialect == chat.DialectLiteLLM) {
			// Structured reasoning after plain text of the same block (a
			// service that sent the text alone, then its signature): it
			// signs the text before it.
			s.think.dialect, s.think.index = dialect, index
			return
		}
		s.closeBlock() // another entry: another block
	}
	s.ensure("thinking")
	s.think = thinkState{dialect: dialect, index: index}
}

func sameIndex(a, b *int) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// wholeBlock writes a block that comes whole (redacted_thinking).
func (s *StreamWriter) wholeBlock(b blockOut) {
	s.closeBlock()
	s.event("content_block_start", evBlockStart{Type: "content_block_start", Index: s.next, ContentBlock: b})
	s.event("content_block_stop", evBlockStop{Type: "content_block_stop", Index: s.next})
	s.next++
}

// writeCalls writes the collected tool calls as tool_use blocks, in the
// order the service started them.
func (s *StreamWriter) writeCalls() {
	if len(s.calls.List) == 0 {
		return
	}
	s.closeBlock()
	for _, c := range s.calls.List {
		s.event("content_block_start", evBlockStart{Type: "content_block_start", Index: s.next, ContentBlock: blockOut{
			Type: "tool_use", ID: chat.ToolCallID(toolUseID(c.ID, s.nUsed), c.Signature), Name: s.meta.toolName(c.Name), Input: json.RawMessage("{}"),
		}})
		s.event("content_block_delta", evBlockDelta{Type: "content_block_delta", Index: s.next,
			Delta: jsonDelta{Type: "input_json_delta", PartialJSON: string(toolInput(c.Args.String()))}})
		s.event("content_block_stop", evBlockStop{Type: "content_block_stop", Index: s.next})
		s.next++
		s.nUsed++
	}
	s.calls.Reset()
}

// ensure opens a block of kind, closing another open one.
func (s *StreamWriter) ensure(kind string) {
	if s.open == kind {
		return
	}
	s.closeBlock()
	s.think = thinkState{}
	var b blockOut
	empty := ""
	switch kind {
	case "thinking":
		b = blockOut{Type: "thinking", Thinking: &empty, Signature: &empty}
	case "text":
		b = blockOut{Type: "text", Text: &empty}
	}
	s.event("content_block_start", evBlockStart{Type: "content_block_start", Index: s.next, ContentBlock: b})
	s.open = kind
	s.next++
}

// delta writes a content_block_delta of the open block, as encoding/json
// would write evBlockDelta with a textDelta or thinkingDelta (what
// TestDeltaEventsAsEncodingJSON checks), without reflection: it is the
// event of every piece of an answer. kind is the delta's type and the name
// of its text field, quoted as they stand between the quotes.
func (s *StreamWriter) delta(kind, text string) {
	b := s.buf.AvailableBuffer()
	b = append(b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
	b = strconv.AppendInt(b, int64(s.next-1), 10)
	b = append(b, `,"delta":{"type":"`...)
	b = append(b, kind...)
	b = chat.AppendString(b, text)
	b = append(b, "}}\n\n"...)
	s.buf.Write(b)
}

func (s *StreamWriter) closeBlock() {
	if s.open == "" {
		return
	}
	if s.open == "thinking" && s.think.sig != "" {
		sig := liteLLMSig(s.think.sig)
		if s.think.dialect == chat.DialectOpenRouter {
			sig = openRouterSig(chat.ReasoningDetail{Signature: s.think.sig, Format: s.think.format, ID: s.think.id})
		}
		s.event("content_block_delta", evBlockDelta{Type: "content_block_delta", Index: s.next - 1,
			Delta: signatureDelta{Type: "signature_delta", Signature: sig}})
		s.think.sig = ""
	}
	s.event("content_block_stop", evBlockStop{Type: "content_block_stop", Index: s.next - 1})
	s.open = ""
}

// End finishes the answer. err nil: the service's stream ended normally
// ([DONE]): the tool calls, message_delta with the stop reason and usage,
// then message_stop. Otherwise the stream broke off (io.ErrUnexpectedEOF,
// a transport error, an *api.Error or *tr.Error the service sent mid-stream):
// the open block is stopped, tool calls not yet complete are left out, and
// an error event tells the client, so a cut answer is never taken for a
// whole one. Calls after the first do nothing.
func (s *StreamWriter) End(err error) error {
	if s.done || s.err != nil {
		return s.err
	}
	if !s.started {
		if e := s.Start(); e != nil {
			return e
		}
	}
	s.done = true
	if err != nil {
		s.closeBlock()
		e := streamError(err)
		s.event("error", errorOut{Type: "error", Error: errorDetail{Type: e.Type, Message: e.Message}})
		return s.flush()
	}
	s.writeCalls()
	s.closeBlock()
	reason, seq := stopReason(s.meta, s.finish, s.matched, s.nUsed > 0)
	md := evMessageDelta{Type: "message_delta", Usage: usageOf(s.usage, s.meta.InputTokens)}
	md.Delta.StopReason, md.Delta.StopSequence = reason, seq
	s.event("message_delta", md)
	s.event("message_stop", evType{Type: "message_stop"})
	return s.flush()
}

// streamError is the error event for a stream that broke off. A cut or a
// failed connection is an api_error, which Claude Code retries (and after a
// few attempts reports as a server error mid-response); an error the
// service sent mid-stream keeps its type, and Claude Code shows its message.
func streamError(err error) *tr.Error {
	var pe *tr.Error
	var ae *api.Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.As(err, &ae):
		return FromAPIError(ae)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &tr.Error{Status: http.StatusBadGateway, Type: TypeAPI, Final: true,
			Message: "unable to connect to API: the service's stream ended before the answer was complete — " + retryStream()}
	}
	if ae := api.ClassifyTransport(err); ae != nil && ae.Condition != "" {
		c := *ae
		if c.Kind == api.KindReset {
			// Not "closed before it answered": it had begun to.
			c.Cause = "the connection was cut before the answer was complete"
		}
		c.Cause = "the service's stream broke off: " + c.Cause
		return FromAPIError(&c)
	}
	return &tr.Error{Status: http.StatusBadGateway, Type: TypeAPI, Final: true,
		Message: "unable to connect to API: the service's stream broke off (" + err.Error() + ") — " + retryStream()}
}

func (s *StreamWriter) event(name string, v any) {
	s.buf.WriteString("event: ")
	s.buf.WriteString(name)
	s.buf.WriteString("\ndata: ")
	if s.enc == nil {
		s.enc = json.NewEncoder(&s.buf)
		s.enc.SetEscapeHTML(false)
	}
	_ = s.enc.Encode(v) // ends the line
	s.buf.WriteString("\n")
}

func (s *StreamWriter) flush() error {
	if s.buf.Len() == 0 || s.err != nil {
		return s.err
	}
	_, s.err = s.w.Write(s.buf.Bytes())
	s.buf.Reset()
	return s.err
}
