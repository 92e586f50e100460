package chat

import "strings"

// StreamedCall is one tool call of a streamed answer, assembled from its
// deltas by ToolCalls.
type StreamedCall struct {
	Index int    // the service's index of the call
	N     int    // its place among the answer's calls, from 0
	ID    string // the service's id of it; "" until one is sent
	// Name is the first name sent: a service that repeats the name in
	// later deltas does not double it.
	Name string
	// Signature is the call's thought signature (Gemini's), the latest sent.
	Signature string
	Args      strings.Builder // the arguments, as sent

	named bool // Assembler said it began
}

// ToolCalls assembles the tool calls of one streamed answer from the
// chunks' deltas: the one place the translators turn them into calls. The
// zero value is ready to use; it is not safe for concurrent use.
type ToolCalls struct {
	byIndex map[int]*StreamedCall
	// List holds the calls in the order they began.
	List []*StreamedCall
	n    int // calls begun
}

// Add adds a delta to its call and returns the call; began is true when
// the delta began it: a new index, or another id under an index in use
// (some gateways number every call 0).
func (t *ToolCalls) Add(d ToolCallDelta) (c *StreamedCall, began bool) {
	c = t.byIndex[d.Index]
	if c == nil || d.ID != "" && c.ID != "" && d.ID != c.ID {
		if t.byIndex == nil {
			t.byIndex = map[int]*StreamedCall{}
		}
		c, began = &StreamedCall{Index: d.Index, N: t.n}, true
		t.n++
		t.byIndex[d.Index] = c
		t.List = append(t.List, c)
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
	return c, began
}

// Reset forgets every call (once they are written); N goes on counting.
func (t *ToolCalls) Reset() {
	clear(t.byIndex)
	t.List = t.List[:0]
}
