package responses

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/translate"
)

// StreamWriter turns the chunks of a streamed chat completion into the
// Responses API's server-sent events, in the order the API defines:
// response.created, response.in_progress, then for each output item
// response.output_item.added, its parts and deltas and their done events,
// response.output_item.done, and exactly one terminal event:
// response.completed (or response.incomplete when the answer hit its token
// limit) with the usage, or response.failed.
//
// Reasoning the service streams, in any dialect (thinking.go), becomes a
// reasoning item with response.reasoning_text.delta events for its text and
// response.reasoning_summary_text.delta events for its summary (the same
// text when the service sends no summary), its encrypted_content on
// response.output_item.done; text a message item; each tool
// call a function_call, custom_tool_call or local_shell_call item, whichever
// the client's tool is. A failed stream ends with response.failed alone:
// items still open are not marked done, so that a client never runs a tool
// call whose arguments were cut off. A StreamWriter is a translate.Stream.
type StreamWriter struct {
	w     io.Writer
	meta  Meta
	asm   chat.Assembler
	seq   int
	buf   bytes.Buffer
	enc   *json.Encoder
	err   error
	state int // 0 not started, 1 started, 2 ended

	next     int                              // output index of the next item
	open     *openItem                        // the open message or reasoning item
	calls    map[*chat.StreamedCall]*openItem // the tool calls' items
	complete []*openItem                      // the complete calls, in the order they began
	final    map[int]any                      // output index → finished item
	done     *responseObject                  // the response of the terminal event, for Response
}

var _ translate.Stream = (*StreamWriter)(nil)

// openItem is an output item being streamed.
type openItem struct {
	kind  string // message | reasoning | call
	index int
	id    string

	// message: its parts; the last one is open.
	parts    []any
	partKind string // text | refusal | "" (no part open)
	text     strings.Builder

	// reasoning: the summary, the parts started
	summary        strings.Builder
	contentStarted bool
	summaryStarted bool
	ownSummary     bool // the service sends a summary of its own

	// call
	call   *chat.StreamedCall
	callID string // the call_id the client is given
	ref    toolRef
	added  bool
}

// NewStreamWriter writes the events of the response meta describes to w.
// The caller flushes w.
func NewStreamWriter(w io.Writer, meta Meta) *StreamWriter {
	s := &StreamWriter{w: w, meta: meta, calls: map[*chat.StreamedCall]*openItem{}, final: map[int]any{}}
	s.asm.On, s.asm.Keep = s.piece, meta.encrypted
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
}

type head struct {
	Type           string `json:"type"`
	SequenceNumber int    `json:"sequence_number"`
}

func (h *head) set(typ string, n int) { h.Type, h.SequenceNumber = typ, n }

type headed interface{ set(string, int) }

type responseEvent struct {
	head
	Response *responseObject `json:"response"`
}

type itemEvent struct {
	head
	OutputIndex int `json:"output_index"`
	Item        any `json:"item"`
}

type partEvent struct {
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Part         any    `json:"part"`
}

type textDelta struct {
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
	Logprobs     []any  `json:"logprobs"`
}

type textDone struct {
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Text         string `json:"text"`
	Logprobs     []any  `json:"logprobs"`
}

type contentDelta struct { // reasoning_text and refusal deltas
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
}

type summaryPartEvent struct {
	head
	ItemID       string   `json:"item_id"`
	OutputIndex  int      `json:"output_index"`
	SummaryIndex int      `json:"summary_index"`
	Part         textPart `json:"part"`
}

type summaryDelta struct {
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Delta        string `json:"delta"`
}

type summaryDone struct {
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Text         string `json:"text"`
}

type reasoningDone struct {
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Text         string `json:"text"`
}

type refusalDone struct {
	head
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Refusal      string `json:"refusal"`
}

type callDelta struct { // function_call_arguments and custom_tool_call_input deltas
	head
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Delta       string `json:"delta"`
}

type argsDone struct {
	head
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Name        string `json:"name,omitempty"`
	Arguments   string `json:"arguments"`
}

type inputDone struct {
	head
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Input       string `json:"input"`
}

// emit adds one event to what the next write sends (see send).
func (s *StreamWriter) emit(typ string, ev headed) {
	if s.err != nil {
		return
	}
	ev.set(typ, s.seq)
	s.seq++
	s.buf.WriteString("event: ")
	s.buf.WriteString(typ)
	s.buf.WriteString("\ndata: ")
	if b, ok := appendDelta(s.buf.AvailableBuffer(), ev); ok {
		s.buf.Write(b)
	} else if err := s.enc.Encode(ev); err != nil {
		s.err = err
		return
	}
	s.buf.WriteByte('\n')
}

// send writes the events emitted since the last send, in one write.
func (s *StreamWriter) send() error {
	if s.err == nil && s.buf.Len() > 0 {
		_, s.err = s.w.Write(s.buf.Bytes())
	}
	s.buf.Reset()
	return s.err
}

// appendDelta appends the deltas of text, reasoning, refusals and tool
// arguments, with the newline that ends the data line, as encoding/json
// writes them (TestDeltaEventsAsEncodingJSON) but without reflection: they
// are the events of every piece of an answer. ok is false for any other
// event.
func appendDelta(b []byte, ev headed) (_ []byte, ok bool) {
	var h *head
	var item, delta string
	var output, content int
	var logprobs, hasContent bool
	switch e := ev.(type) {
	case *textDelta:
		h, item, output, content, delta, hasContent, logprobs = &e.head, e.ItemID, e.OutputIndex, e.ContentIndex, e.Delta, true, true
		if len(e.Logprobs) != 0 {
			return b, false
		}
	case *contentDelta:
		h, item, output, content, delta, hasContent = &e.head, e.ItemID, e.OutputIndex, e.ContentIndex, e.Delta, true
	case *callDelta:
		h, item, output, delta = &e.head, e.ItemID, e.OutputIndex, e.Delta
	default:
		return b, false
	}
	b = append(b, `{"type":`...)
	b = chat.AppendString(b, h.Type)
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(h.SequenceNumber), 10)
	b = append(b, `,"item_id":`...)
	b = chat.AppendString(b, item)
	b = append(b, `,"output_index":`...)
	b = strconv.AppendInt(b, int64(output), 10)
	if hasContent {
		b = append(b, `,"content_index":`...)
		b = strconv.AppendInt(b, int64(content), 10)
	}
	b = append(b, `,"delta":`...)
	b = chat.AppendString(b, delta)
	if logprobs {
		b = append(b, `,"logprobs":[]`...)
	}
	return append(b, "}\n"...), true
}

func (s *StreamWriter) start() {
	if s.state != 0 {
		return
	}
	s.state = 1
	r := s.meta.newResponse("in_progress")
	// The service counts the prompt only at the end; until then clients
	// that read usage here get the estimate, which response.completed
	// replaces with the real counts.
	r.Usage = estimatedUsage(s.meta.InputTokens)
	s.emit("response.created", &responseEvent{Response: r})
	s.emit("response.in_progress", &responseEvent{Response: r})
}

// Chunk translates one chunk of the chat stream.
func (s *StreamWriter) Chunk(c *chat.Chunk) error {
	if s.state == 2 {
		return translate.ErrEnded
	}
	s.start()
	s.asm.Chunk(c)
	return s.send()
}

// Usage is the usage the service reported, nil when it reported none.
func (s *StreamWriter) Usage() *chat.Usage { return s.asm.Usage() }

// piece writes what the service said.
func (s *StreamWriter) piece(p chat.Piece) {
	switch p.Kind {
	case chat.PieceSegment, chat.PieceSealed:
		s.reasoningItem()
	case chat.PieceReasoning:
		if p.Segment.Dialect != chat.DialectSummary {
			s.reasoning(p.Text)
			break
		}
		it := s.reasoningItem()
		it.ownSummary = true
		s.summaryPiece(it, p.Text)
	case chat.PieceText:
		s.content("text", p.Text)
	case chat.PieceRefusal:
		s.content("refusal", p.Text)
	case chat.PieceCall:
		s.closeOpen()
		it := &openItem{kind: "call", call: p.Call, index: -1}
		s.calls[p.Call] = it
		s.addCall(it)
	case chat.PieceArgs:
		if it := s.calls[p.Call]; it.ref.kind == "function" {
			s.emit("response.function_call_arguments.delta", &callDelta{ItemID: it.id, OutputIndex: it.index, Delta: p.Text})
		}
	case chat.PieceCallDone:
		it := s.calls[p.Call]
		if it == nil { // a call whose name never came
			it = &openItem{kind: "call", call: p.Call, index: -1}
		}
		s.complete = append(s.complete, it)
	}
}

func (s *StreamWriter) newItem(kind, prefix string) *openItem {
	it := &openItem{kind: kind, index: s.next, id: s.meta.itemID(prefix, s.next)}
	s.next++
	return it
}

// reasoningItem is the open reasoning item, opened if need be.
func (s *StreamWriter) reasoningItem() *openItem {
	if s.open == nil || s.open.kind != "reasoning" {
		s.closeOpen()
		it := s.newItem("reasoning", "rs")
		s.open = it
		s.emit("response.output_item.added", &itemEvent{OutputIndex: it.index,
			Item: reasoningItem{Type: "reasoning", ID: it.id, Status: "in_progress", Summary: []any{}, Content: []textPart{}}})
	}
	return s.open
}

// reasoning streams a piece of reasoning text, and the same as summary
// while the service has sent no summary of its own.
func (s *StreamWriter) reasoning(delta string) {
	it := s.reasoningItem()
	if !it.contentStarted {
		it.contentStarted = true
		s.emit("response.content_part.added", &partEvent{ItemID: it.id, OutputIndex: it.index, Part: textPart{Type: "reasoning_text"}})
	}
	it.text.WriteString(delta)
	s.emit("response.reasoning_text.delta", &contentDelta{ItemID: it.id, OutputIndex: it.index, Delta: delta})
	if !it.ownSummary {
		s.summaryPiece(it, delta)
	}
}

func (s *StreamWriter) summaryPiece(it *openItem, delta string) {
	if !it.summaryStarted {
		it.summaryStarted = true
		s.emit("response.reasoning_summary_part.added", &summaryPartEvent{ItemID: it.id, OutputIndex: it.index, Part: textPart{Type: "summary_text"}})
	}
	it.summary.WriteString(delta)
	s.emit("response.reasoning_summary_text.delta", &summaryDelta{ItemID: it.id, OutputIndex: it.index, Delta: delta})
}

func (s *StreamWriter) content(kind, delta string) {
	if s.open == nil || s.open.kind != "message" {
		s.closeOpen()
		it := s.newItem("message", "msg")
		s.open = it
		s.emit("response.output_item.added", &itemEvent{OutputIndex: it.index,
			Item: messageItem{Type: "message", ID: it.id, Status: "in_progress", Role: "assistant", Content: []any{}}})
	}
	it := s.open
	if it.partKind != kind {
		s.closePart(it)
		it.partKind = kind
		var p any = outputText{Type: "output_text", Annotations: []any{}}
		if kind == "refusal" {
			p = refusalPart{Type: "refusal"}
		}
		s.emit("response.content_part.added", &partEvent{ItemID: it.id, OutputIndex: it.index, ContentIndex: len(it.parts), Part: p})
	}
	it.text.WriteString(delta)
	if kind == "refusal" {
		s.emit("response.refusal.delta", &contentDelta{ItemID: it.id, OutputIndex: it.index, ContentIndex: len(it.parts), Delta: delta})
		return
	}
	s.emit("response.output_text.delta", &textDelta{ItemID: it.id, OutputIndex: it.index, ContentIndex: len(it.parts), Delta: delta, Logprobs: []any{}})
}

// closePart finishes the message's open content part.
func (s *StreamWriter) closePart(it *openItem) {
	if it.partKind == "" {
		return
	}
	text, ci := it.text.String(), len(it.parts)
	var p any
	if it.partKind == "refusal" {
		p = refusalPart{Type: "refusal", Refusal: text}
		s.emit("response.refusal.done", &refusalDone{ItemID: it.id, OutputIndex: it.index, ContentIndex: ci, Refusal: text})
	} else {
		p = outputText{Type: "output_text", Text: text, Annotations: []any{}}
		s.emit("response.output_text.done", &textDone{ItemID: it.id, OutputIndex: it.index, ContentIndex: ci, Text: text, Logprobs: []any{}})
	}
	s.emit("response.content_part.done", &partEvent{ItemID: it.id, OutputIndex: it.index, ContentIndex: ci, Part: p})
	it.parts = append(it.parts, p)
	it.partKind = ""
	it.text.Reset()
}

// closeOpen finishes the open message or reasoning item.
func (s *StreamWriter) closeOpen() {
	it := s.open
	if it == nil {
		return
	}
	s.open = nil
	var done any
	switch it.kind {
	case "message":
		s.closePart(it)
		done = messageItem{Type: "message", ID: it.id, Status: "completed", Role: "assistant", Content: it.parts}
	case "reasoning":
		rs := reasoningItem{Type: "reasoning", ID: it.id, Status: "completed", Summary: []any{}, Content: []textPart{}}
		if it.summaryStarted {
			text := it.summary.String()
			s.emit("response.reasoning_summary_text.done", &summaryDone{ItemID: it.id, OutputIndex: it.index, Text: text})
			s.emit("response.reasoning_summary_part.done", &summaryPartEvent{ItemID: it.id, OutputIndex: it.index, Part: textPart{Type: "summary_text", Text: text}})
			rs.Summary = append(rs.Summary, textPart{Type: "summary_text", Text: text})
		}
		if it.contentStarted {
			text := it.text.String()
			part := textPart{Type: "reasoning_text", Text: text}
			s.emit("response.reasoning_text.done", &reasoningDone{ItemID: it.id, OutputIndex: it.index, Text: text})
			s.emit("response.content_part.done", &partEvent{ItemID: it.id, OutputIndex: it.index, Part: part})
			rs.Content = append(rs.Content, part)
		}
		if s.meta.encrypted && s.asm.Reasoning.Signed() {
			sealed := sealReasoning(&s.asm.Reasoning)
			rs.EncryptedContent = &sealed
		}
		s.asm.Reasoning.Reset()
		done = rs
	}
	s.final[it.index] = done
	s.emit("response.output_item.done", &itemEvent{OutputIndex: it.index, Item: done})
}

// addCall starts a tool call's item once its name tells which kind it is.
// A local_shell call is only started when complete: its item carries the
// parsed command.
func (s *StreamWriter) addCall(it *openItem) {
	it.added = true
	ref, ok := s.meta.tools[it.call.Name]
	if !ok {
		ref = toolRef{kind: "function", name: it.call.Name}
	}
	it.ref = ref
	if ref.kind == "local_shell" {
		return
	}
	it.index = s.next
	s.next++
	it.callID = chat.ToolCallID(callIDOf(s.meta, it.call.ID, it.call.N), it.call.Signature)
	switch ref.kind {
	case "custom":
		it.id = s.meta.itemID("ctc", it.index)
		s.emit("response.output_item.added", &itemEvent{OutputIndex: it.index, Item: customCallItem{Type: "custom_tool_call",
			ID: it.id, Status: "in_progress", CallID: it.callID, Name: ref.name, Namespace: ref.namespace}})
	default:
		it.id = s.meta.itemID("fc", it.index)
		s.emit("response.output_item.added", &itemEvent{OutputIndex: it.index, Item: functionCallItem{Type: "function_call",
			ID: it.id, Status: "in_progress", CallID: it.callID, Name: ref.name, Namespace: ref.namespace}})
		if a := it.call.Args.String(); a != "" {
			s.emit("response.function_call_arguments.delta", &callDelta{ItemID: it.id, OutputIndex: it.index, Delta: a})
		}
	}
}

// closeCall finishes a tool call's item.
func (s *StreamWriter) closeCall(it *openItem) {
	if !it.added {
		s.addCall(it) // a call whose name never came: a function call without a name
	}
	args := it.call.Args.String()
	if it.index < 0 { // local_shell: started only now
		it.index = s.next
		s.next++
		it.callID = chat.ToolCallID(callIDOf(s.meta, it.call.ID, it.call.N), it.call.Signature)
	}
	final := s.meta.toolCallItem(it.index, it.callID, it.call.Name, args, "completed")
	switch f := final.(type) {
	case localShellItem:
		added := f
		added.Status = "in_progress"
		s.emit("response.output_item.added", &itemEvent{OutputIndex: it.index, Item: added})
	case customCallItem:
		if f.Input != "" {
			s.emit("response.custom_tool_call_input.delta", &callDelta{ItemID: f.ID, OutputIndex: it.index, Delta: f.Input})
		}
		s.emit("response.custom_tool_call_input.done", &inputDone{ItemID: f.ID, OutputIndex: it.index, Input: f.Input})
	case functionCallItem:
		if it.ref.kind == "local_shell" { // arguments that are no command
			added := f
			added.Status, added.Arguments = "in_progress", ""
			s.emit("response.output_item.added", &itemEvent{OutputIndex: it.index, Item: added})
			s.emit("response.function_call_arguments.delta", &callDelta{ItemID: f.ID, OutputIndex: it.index, Delta: f.Arguments})
		} else if args == "" && f.Arguments != "" {
			// No piece came ("{}" stands for none): the deltas add up to what done says.
			s.emit("response.function_call_arguments.delta", &callDelta{ItemID: f.ID, OutputIndex: it.index, Delta: f.Arguments})
		}
		s.emit("response.function_call_arguments.done", &argsDone{ItemID: f.ID, OutputIndex: it.index, Name: f.Name, Arguments: f.Arguments})
	}
	s.final[it.index] = final
	s.emit("response.output_item.done", &itemEvent{OutputIndex: it.index, Item: final})
}

// End finishes the stream with its one terminal event. err nil: the chat
// stream ended normally (after [DONE]); otherwise it failed or was cut off,
// and the response fails with the error's message.
func (s *StreamWriter) End(err error) error {
	if s.state == 2 {
		return nil
	}
	s.start()
	s.state = 2
	if err != nil {
		s.asm.Cut()
		r := s.meta.newResponse("failed")
		code, msg := streamError(err)
		r.Error = &responseError{Code: code, Message: msg}
		r.Output = s.outputSoFar()
		r.Usage = usageOf(s.asm.Usage())
		s.done = r
		s.emit("response.failed", &responseEvent{Response: r})
		return s.send()
	}
	s.asm.End()
	s.closeOpen()
	for _, it := range s.complete {
		s.closeCall(it)
	}
	r := s.meta.newResponse("")
	r.finish(s.asm.FinishReason)
	r.Output = s.outputSoFar()
	r.Usage = usageOf(s.asm.Usage())
	s.done = r
	typ := "response.completed"
	if r.Status == "incomplete" {
		typ = "response.incomplete"
	}
	s.emit(typ, &responseEvent{Response: r})
	return s.send()
}

// outputSoFar lists the finished items in output order.
func (s *StreamWriter) outputSoFar() []any {
	out := []any{}
	for i := 0; i < s.next; i++ {
		if it, ok := s.final[i]; ok {
			out = append(out, it)
		}
	}
	return out
}

// Ping writes an SSE comment that keeps an idle connection open; clients
// ignore it.
func (s *StreamWriter) Ping() error {
	if s.state == 2 {
		return translate.ErrEnded
	}
	s.buf.WriteString(": keep-alive\n\n")
	return s.send()
}
