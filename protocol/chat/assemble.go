package chat

import "strings"

// Assembler reads the chunks of one streamed answer and says what they
// mean, once, for every translator: the answer's text and refusal as they
// come; its reasoning as segments, each one entry of the dialect it came in,
// with the signature it ends with; the entries only the service can read,
// whole; each tool call once its name is known, its arguments as they come,
// and complete; the finish reason and the usage. A translator maps the
// pieces (On) to its protocol's events and knows nothing of the service's
// dialects. It is not safe for concurrent use.
//
// Only the first choice is read (gw asks for one). Within a chunk the
// reasoning comes first, then text, refusal and tool calls. The rules:
//
//   - Reasoning is read in one dialect per delta (Delta.ReasoningIn): a
//     service that sends a structured dialect repeats its text as plain
//     text, which is then not read.
//   - A segment goes on while the same dialect (and OpenRouter's index)
//     does; a LiteLLM thinking block ends once signed. Anything else in
//     between — text, a refusal, a sealed entry, another segment, the calls
//     completing — ends it first. A tool call beginning does not: a model
//     may go on reasoning (and sign it) while the call is collected, and
//     the signature signs the whole segment.
//   - Plain text first, then structured reasoning of the same segment (a
//     service that sent the text alone, then its signature): the signature
//     signs that text, so the plain segment becomes the structured one.
//   - A tool call begins with a new index, or another id under an index in
//     use (gateways that number every call 0); a name sent again is not
//     doubled. It is complete at the finish reason, or at the end of a
//     stream that had none; a stream that broke off (Cut) completes none.
type Assembler struct {
	// On is given each piece, in order, as Chunk, End and Cut find it.
	On func(Piece)

	// Keep keeps the structured reasoning whole in Reasoning, for a
	// translator that seals it for the client.
	Keep bool
	// Reasoning holds, with Keep, the whole entries of structured reasoning
	// read since the translator last reset it (plain text that a signature
	// came for after it among them).
	Reasoning ReasoningCollector

	// FinishReason is the service's finish reason, "" until one came;
	// StopReason the stop it matched (vLLM's stop_reason), sent with it.
	FinishReason string
	StopReason   any

	calls    []*StreamedCall // not yet complete, in the order they began
	byIndex  map[int]*StreamedCall
	began    int     // calls begun
	open     bool    // a segment is open: seg
	seg      Segment // Signature, Format and ID so far
	index    int     // OpenRouter's index of seg, when indexed
	indexed  bool
	plain    strings.Builder // the open plain segment's text, with Keep
	usage    Usage
	hasUsage bool
}

// PieceKind is what a Piece says.
type PieceKind uint8

// The kinds of Piece, and the fields each sets.
const (
	PieceText       PieceKind = iota + 1 // Text: more of the answer's text
	PieceRefusal                         // Text: more of its refusal
	PieceSegment                         // Segment: a segment of reasoning begins
	PieceReasoning                       // Text: more of the open segment's text; Segment: its dialect
	PieceSegmentEnd                      // Segment: the open segment ends, with its Signature, Format, ID
	PieceSealed                          // Segment: a whole entry only the service can read: its Data, Format, ID
	PieceCall                            // Call: a tool call whose name is now known, its arguments so far in Call.Args
	PieceArgs                            // Call, Text: more of a begun call's arguments
	PieceCallDone                        // Call: a complete call (one that never got a name too), in the order calls began
)

// Piece is one thing the service's stream said.
type Piece struct {
	Kind    PieceKind
	Text    string
	Segment Segment
	Call    *StreamedCall
}

// Segment is one entry of reasoning: its dialect, and what only the
// service can read back.
type Segment struct {
	// Dialect is DialectPlain, DialectOpenRouter (reasoning.text, or
	// reasoning.encrypted when sealed), DialectSummary or DialectLiteLLM
	// (thinking, or redacted_thinking when sealed).
	Dialect   string
	Signature string // the last one sent; "" unsigned
	// Format and ID are OpenRouter's: the first ones sent.
	Format, ID string
	Data       string // a sealed entry's data
}

// The dialects of reasoning besides those a sealed value names.
const (
	DialectPlain   = ""        // reasoning_content or reasoning
	DialectSummary = "summary" // OpenRouter's reasoning.summary, never signed
)

// Chunk reads one chunk.
func (a *Assembler) Chunk(c *Chunk) {
	if c.Usage != nil {
		a.usage, a.hasUsage = *c.Usage, true
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // gw asks for one choice
		}
		d := &ch.Delta
		details, blocks, plain := d.ReasoningIn()
		for j := range details {
			a.detail(&details[j])
		}
		for j := range blocks {
			a.block(&blocks[j])
		}
		if plain != "" {
			a.reason(DialectPlain, nil, plain)
		}
		if d.Content != nil && *d.Content != "" {
			a.endSegment()
			a.On(Piece{Kind: PieceText, Text: *d.Content})
		}
		if d.Refusal != nil && *d.Refusal != "" {
			a.endSegment()
			a.On(Piece{Kind: PieceRefusal, Text: *d.Refusal})
		}
		for j := range d.ToolCalls {
			a.call(&d.ToolCalls[j])
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.FinishReason, a.StopReason = *ch.FinishReason, ch.StopReason
			a.complete()
		}
	}
}

// End ends a whole answer (the service's stream ended normally): the open
// segment ends, and the calls not yet complete are.
func (a *Assembler) End() {
	a.complete()
	a.endSegment()
}

// Cut ends an answer that broke off: the open segment ends, and the calls
// not yet complete are dropped.
func (a *Assembler) Cut() {
	a.endSegment()
	a.calls = a.calls[:0]
}

// Usage is the usage the service reported, nil when none.
func (a *Assembler) Usage() *Usage {
	if !a.hasUsage {
		return nil
	}
	return &a.usage
}

// detail reads a piece of an OpenRouter reasoning_details entry.
func (a *Assembler) detail(d *ReasoningDetail) {
	switch d.Type {
	case DetailText:
		if d.Text == "" && d.Signature == "" {
			return
		}
		if a.reason(DialectOpenRouter, d.Index, d.Text) && a.Keep && a.plain.Len() > 0 {
			a.Reasoning.AddDetail(ReasoningDetail{Type: DetailText, Text: a.plain.String(), Index: d.Index, Format: d.Format})
		}
		if d.Signature != "" {
			a.seg.Signature = d.Signature
		}
		if a.seg.Format == "" {
			a.seg.Format = d.Format
		}
		if a.seg.ID == "" {
			a.seg.ID = d.ID
		}
	case DetailSummary:
		if d.Summary == "" {
			return
		}
		a.reason(DialectSummary, d.Index, d.Summary)
	case DetailEncrypted:
		if d.Data == "" {
			return
		}
		a.endSegment()
		a.On(Piece{Kind: PieceSealed, Segment: Segment{Dialect: DialectOpenRouter, Data: d.Data, Format: d.Format, ID: d.ID}})
	default:
		return
	}
	if a.Keep {
		a.Reasoning.AddDetail(*d)
	}
}

// block reads a piece of a LiteLLM thinking_blocks entry.
func (a *Assembler) block(b *ThinkingBlock) {
	switch b.Type {
	case "thinking":
		if b.Thinking == "" && b.Signature == "" {
			return
		}
		if a.open && a.seg.Dialect == DialectLiteLLM && a.seg.Signature != "" {
			a.endSegment() // signed: what follows is another block
		}
		if a.reason(DialectLiteLLM, nil, b.Thinking) && a.Keep && a.plain.Len() > 0 {
			a.Reasoning.AddBlock(ThinkingBlock{Type: "thinking", Thinking: a.plain.String()})
		}
		if b.Signature != "" {
			a.seg.Signature = b.Signature
		}
	case "redacted_thinking":
		if b.Data == "" {
			return
		}
		a.endSegment()
		a.On(Piece{Kind: PieceSealed, Segment: Segment{Dialect: DialectLiteLLM, Data: b.Data}})
	default:
		return
	}
	if a.Keep {
		a.Reasoning.AddBlock(*b)
	}
}

// reason reads a piece of reasoning of dialect (and OpenRouter index):
// more of the open segment, or a new one. adopted: the open segment was
// plain, and this structured piece signs its text (in a.plain, with Keep,
// until the next piece).
func (a *Assembler) reason(dialect string, index *int, text string) (adopted bool) {
	switch {
	case a.open && a.seg.Dialect == dialect && a.sameIndex(index):
	case a.open && a.seg.Dialect == DialectPlain && dialect != DialectSummary:
		a.seg.Dialect, adopted = dialect, true
		a.setIndex(index)
	default:
		a.endSegment()
		a.open, a.seg = true, Segment{Dialect: dialect}
		a.setIndex(index)
		a.On(Piece{Kind: PieceSegment, Segment: a.seg})
	}
	if a.Keep && dialect == DialectPlain {
		a.plain.WriteString(text)
	}
	if text != "" {
		a.On(Piece{Kind: PieceReasoning, Text: text, Segment: Segment{Dialect: dialect}})
	}
	return adopted
}

func (a *Assembler) setIndex(index *int) {
	a.indexed = index != nil
	if index != nil {
		a.index = *index
	}
}

func (a *Assembler) sameIndex(index *int) bool {
	return !a.indexed && index == nil || a.indexed && index != nil && a.index == *index
}

// endSegment ends the open segment.
func (a *Assembler) endSegment() {
	if !a.open {
		return
	}
	a.open = false
	a.plain.Reset()
	a.On(Piece{Kind: PieceSegmentEnd, Segment: a.seg})
}

// StreamedCall is one tool call of a streamed answer.
type StreamedCall struct {
	Index     int    // the service's index of the call
	N         int    // its place among the answer's calls, from 0
	ID        string // the service's id of it; "" until one is sent
	Name      string // the first name sent
	Signature string // its thought signature (Gemini's), the latest sent
	Args      strings.Builder
	named     bool // PieceCall said it
}

// call reads a piece of a tool call.
func (a *Assembler) call(d *ToolCallDelta) {
	c := a.byIndex[d.Index]
	if c == nil || d.ID != "" && c.ID != "" && d.ID != c.ID {
		if a.byIndex == nil {
			a.byIndex = map[int]*StreamedCall{}
		}
		c = &StreamedCall{Index: d.Index, N: a.began}
		a.began++
		a.byIndex[d.Index] = c
		a.calls = append(a.calls, c)
	}
	if c.ID == "" {
		c.ID = d.ID
	}
	if c.Name == "" {
		c.Name = d.Function.Name
	}
	if sig := d.ExtraContent.ThoughtSignature(); sig != "" {
		c.Signature = sig
	}
	c.Args.WriteString(d.Function.Arguments)
	switch {
	case !c.named && c.Name != "":
		c.named = true
		a.On(Piece{Kind: PieceCall, Call: c})
	case c.named && d.Function.Arguments != "":
		a.On(Piece{Kind: PieceArgs, Call: c, Text: d.Function.Arguments})
	}
}

// complete completes the calls so far.
func (a *Assembler) complete() {
	if len(a.calls) == 0 {
		return
	}
	a.endSegment()
	for _, c := range a.calls {
		a.On(Piece{Kind: PieceCallDone, Call: c})
	}
	a.calls = a.calls[:0]
	clear(a.byIndex)
}
