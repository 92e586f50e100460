package gemini

import (
	"bytes"
	"io"
	"net/http"

	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// StreamWriter turns the service's chat chunks into :streamGenerateContent's
// server-sent events (alt=sse), written to w (the caller flushes): one
// GenerateContentResponse per event.
//
//	data: {"candidates":[{"content":{"role":"model","parts":[{"text":"…"}]},"index":0}],…}
//
// Text and (when the request asked for them) thoughts are streamed as they
// come, as text parts and thought parts. A function call is one whole part
// in the Gemini API, so a tool call is collected until its arguments are
// complete and written in the last event, with the finish reason and
// usageMetadata. A call cut off by a broken stream is not shown at all.
//
// The last event of a stream that broke or failed is Google's error object
// on its own ({"error":{"code","message","status"}}, not an SSE event):
// that is what @google/genai reads as a failure in the middle of a stream
// (an SSE event would pass as an empty answer). It does so only when the
// object is a read of its own, so what was written before it is flushed
// first; when the client still reads both at once, it fails with its own
// "Incomplete JSON segment" error, which Gemini CLI retries. Pings are a blank line, which
// @google/genai's event reader skips (it would stop at an SSE comment).
type StreamWriter struct {
	w    io.Writer
	meta Meta
	asm  chat.Assembler
	buf  bytes.Buffer

	ended  bool
	err    error // the first write error
	events int   // events written

	thought, text, refusal string               // of the chunk being read
	parts                  [2]outPart           // its parts
	calls                  []*chat.StreamedCall // the complete calls
}

var _ tr.Stream = (*StreamWriter)(nil)

// NewStreamWriter is the stream of the answer meta describes.
func NewStreamWriter(w io.Writer, meta Meta) *StreamWriter {
	s := &StreamWriter{w: w, meta: meta}
	s.asm.On = s.piece
	return s
}

// Chunk translates one chunk of the service's stream: its thought and text
// as one event.
func (s *StreamWriter) Chunk(c *chat.Chunk) error {
	if s.ended {
		return tr.ErrEnded
	}
	if s.err != nil {
		return s.err
	}
	s.thought, s.text, s.refusal = "", "", ""
	s.asm.Chunk(c)
	parts := s.parts[:0]
	if s.thought != "" {
		parts = append(parts, outPart{Text: &s.thought, Thought: true})
	}
	if s.text != "" {
		parts = append(parts, outPart{Text: &s.text})
	}
	if s.refusal != "" { // after the text, as a whole answer shows it
		parts = append(parts, outPart{Text: &s.refusal})
	}
	if len(parts) > 0 {
		s.event(response{Candidates: []candidate{{Content: outContent{Role: "model", Parts: parts}}}})
	}
	return s.err
}

// piece reads what the service said.
func (s *StreamWriter) piece(p chat.Piece) {
	switch p.Kind {
	case chat.PieceReasoning:
		if s.meta.Thoughts {
			s.thought += p.Text
		}
	case chat.PieceText:
		s.text += p.Text
	case chat.PieceRefusal:
		s.refusal += p.Text
	case chat.PieceCallDone:
		if p.Call.Name != "" { // a call without a name cannot be answered
			s.calls = append(s.calls, p.Call)
		}
	}
}

// End ends the answer: err nil, the last event with the complete calls,
// the finish reason and the usage; otherwise Google's error object.
func (s *StreamWriter) End(err error) error {
	if s.ended {
		return nil
	}
	s.ended = true
	if s.err != nil {
		return s.err
	}
	if err != nil {
		s.asm.Cut()
		// @google/genai reads the error object only when it is a read of
		// its own: what was written before it goes out first.
		if rw, ok := s.w.(http.ResponseWriter); ok && s.events > 0 {
			_ = http.NewResponseController(rw).Flush()
		}
		s.buf.Reset()
		s.buf.Write(errorBody(streamError(err)))
		_, s.err = s.w.Write(s.buf.Bytes())
		return s.err
	}
	s.asm.End()
	s.event(response{
		Candidates:    lastCandidate(nil, s.calls, s.asm.FinishReason, s.meta.IDs),
		UsageMetadata: usageOf(s.asm.Usage()),
	})
	return s.err
}

// Ping writes a blank line.
func (s *StreamWriter) Ping() error {
	if s.ended {
		return tr.ErrEnded
	}
	if s.err == nil {
		_, s.err = s.w.Write([]byte("\r\n"))
	}
	return s.err
}

// Usage is the usage the service reported so far.
func (s *StreamWriter) Usage() *chat.Usage { return s.asm.Usage() }

func (s *StreamWriter) event(r response) {
	if s.err != nil {
		return
	}
	r.ModelVersion, r.ResponseID = s.meta.Model, s.meta.ResponseID
	s.buf.Reset()
	s.buf.WriteString("data: ")
	s.buf.Write(encode(r))
	s.buf.WriteString("\r\n\r\n")
	_, s.err = s.w.Write(s.buf.Bytes())
	s.events++
}
