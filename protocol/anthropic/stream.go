package anthropic

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
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
// written. A StreamWriter is a translate.Stream: not safe for concurrent
// use; a caller sending pings from a timer serialises them with the chunks.
type StreamWriter struct {
	w    io.Writer
	meta Meta
	asm  chat.Assembler
	buf  bytes.Buffer
	enc  *json.Encoder // writes to buf

	started bool
	ended   bool
	err     error // the first write error; nothing is written after it

	id     string
	next   int    // index of the next block
	open   string // kind of the open block: "", text, thinking
	called bool   // a tool_use block was written
}

var _ tr.Stream = (*StreamWriter)(nil)

// NewStreamWriter writes the answer to the request meta describes.
func NewStreamWriter(w io.Writer, meta Meta) *StreamWriter {
	s := &StreamWriter{w: w, meta: meta}
	s.asm.On = s.piece
	return s
}

// Usage is the usage the service reported, nil when it reported none.
func (s *StreamWriter) Usage() *chat.Usage { return s.asm.Usage() }

// start writes message_start, once; Chunk, Ping and End call it when
// needed.
func (s *StreamWriter) start() error {
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

// Ping writes a ping event: traffic on an idle stream, as Anthropic sends
// (message_start when nothing was written yet).
func (s *StreamWriter) Ping() error {
	if s.ended {
		return tr.ErrEnded
	}
	if s.err != nil || !s.started {
		return s.start()
	}
	s.event("ping", evType{Type: "ping"})
	return s.flush()
}

// Chunk translates one chunk of the service's stream.
func (s *StreamWriter) Chunk(c *chat.Chunk) error {
	if s.ended {
		return tr.ErrEnded
	}
	if !s.started && c.ID != "" {
		s.id = messageID(c.ID)
	}
	if err := s.start(); err != nil {
		return err
	}
	s.asm.Chunk(c)
	return s.flush()
}

// piece writes what the service said.
func (s *StreamWriter) piece(p chat.Piece) {
	switch p.Kind {
	case chat.PieceText, chat.PieceRefusal:
		s.ensure("text")
		s.delta(`text_delta","text":`, p.Text)
	case chat.PieceSegment:
		s.ensure("thinking")
	case chat.PieceReasoning:
		s.delta(`thinking_delta","thinking":`, p.Text)
	case chat.PieceSegmentEnd:
		if p.Segment.Signature != "" {
			s.event("content_block_delta", evBlockDelta{Type: "content_block_delta", Index: s.next - 1,
				Delta: signatureDelta{Type: "signature_delta", Signature: sealSig(p.Segment)}})
		}
		s.closeBlock()
	case chat.PieceSealed:
		s.closeBlock()
		s.event("content_block_start", evBlockStart{Type: "content_block_start", Index: s.next, ContentBlock: redactedBlock(sealData(p.Segment))})
		s.event("content_block_stop", evBlockStop{Type: "content_block_stop", Index: s.next})
		s.next++
	case chat.PieceCallDone:
		// A tool call goes out whole, once its arguments are complete.
		c := p.Call
		s.closeBlock()
		s.event("content_block_start", evBlockStart{Type: "content_block_start", Index: s.next, ContentBlock: blockOut{
			Type: "tool_use", ID: chat.ToolCallID(toolUseID(c.ID, c.N), c.Signature), Name: s.meta.toolName(c.Name), Input: json.RawMessage("{}"),
		}})
		s.event("content_block_delta", evBlockDelta{Type: "content_block_delta", Index: s.next,
			Delta: jsonDelta{Type: "input_json_delta", PartialJSON: string(toolInput(c.Args.String()))}})
		s.event("content_block_stop", evBlockStop{Type: "content_block_stop", Index: s.next})
		s.next++
		s.called = true
	}
}

// ensure opens a block of kind, closing another open one.
func (s *StreamWriter) ensure(kind string) {
	if s.open == kind {
		return
	}
	s.closeBlock()
	b := blockOut{Type: "text", Text: new(string)}
	if kind == "thinking" {
		b = thinkingBlock("", "")
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
	if s.ended {
		return nil
	}
	if e := s.start(); e != nil {
		return e
	}
	s.ended = true
	if err != nil {
		s.asm.Cut()
		s.closeBlock()
		var ae *api.Error
		if errors.As(err, &ae) {
			err = ForClaudeCode(withPromptSize(ae, s.meta.InputTokens), s.meta.Model)
		}
		e := streamError(err)
		s.event("error", errorOut{Type: "error", Error: errorDetail{Type: e.Type, Message: e.Message}})
		return s.flush()
	}
	s.asm.End()
	s.closeBlock()
	reason, seq := stopReason(s.meta, s.asm.FinishReason, s.asm.StopReason, s.called)
	md := evMessageDelta{Type: "message_delta", Usage: usageOf(s.asm.Usage(), s.meta.InputTokens)}
	md.Delta.StopReason, md.Delta.StopSequence = reason, seq
	s.event("message_delta", md)
	s.event("message_stop", evType{Type: "message_stop"})
	return s.flush()
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
