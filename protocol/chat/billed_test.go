package chat

import (
	"fmt"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// A later turn (the earlier prompt and more) is sized by what was billed
// for the earlier prompt plus the estimate of what it adds; a prompt that
// starts otherwise by the estimate alone; moving a cache breakpoint
// changes nothing; the memory keeps at most MaxBilledPrompts prompts.
func TestBilledPrompts(t *testing.T) {
	var b BilledPrompts
	first := &Request{Model: "m", Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: []Part{{Type: "text", Text: "hello", CacheControl: &CacheControl{Type: "ephemeral"}}}}}}
	b.Remember(first, 1000)
	next := &Request{Model: "m", Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "hello"},
		{Role: "assistant", Content: "hi there, what now?"}, {Role: "user", Content: "more"}}}
	est := EstimateTokens(next)
	if got, want := b.InputTokens(next, est), 1000+est-EstimateTokens(first); got != want {
		t.Errorf("the next turn is said to be %d tokens, want %d (billed + the estimate of what it adds)", got, want)
	}
	other := &Request{Model: "m", Messages: []Message{{Role: "system", Content: "other"}, {Role: "user", Content: "hello"}}}
	if got := b.InputTokens(other, 7); got != 7 {
		t.Errorf("another prompt is said to be %d tokens, want the estimate 7", got)
	}
	if got := b.InputTokens(&Request{Model: "other", Messages: next.Messages}, 9); got != 9 {
		t.Errorf("the same messages to another model: %d, want the estimate 9", got)
	}
	for i := range 3 * MaxBilledPrompts {
		b.Remember(&Request{Model: "m", Messages: []Message{{Role: "user", Content: fmt.Sprint(i)}}}, 10)
	}
	if n := b.l.Len(); n != MaxBilledPrompts || len(b.m) != MaxBilledPrompts {
		t.Errorf("%d entries (%d in the map), want at most %d", n, len(b.m), MaxBilledPrompts)
	}
	if got := b.InputTokens(next, est); got != est {
		t.Errorf("a prompt pushed out is still known: %d", got)
	}
}

// BenchmarkBilledPrompts: what sizing a turn from what was billed adds to
// a request (hashing its prompt twice: to look it up, and to remember it),
// as a ratio to encoding the same request for the service, which every
// translated request costs anyway. A 20-turn session's last request, some
// 80 KB.
func BenchmarkBilledPrompts(b *testing.B) {
	req := &Request{Model: "m", Tools: make([]Tool, 20)}
	for i := range req.Tools {
		req.Tools[i] = Tool{Type: "function", Function: Function{Name: fmt.Sprint("tool", i), Description: strings.Repeat("does things ", 100),
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	}
	req.Messages = append(req.Messages, Message{Role: "system", Content: strings.Repeat("You are an agent. ", 1000)})
	for i := range 20 {
		req.Messages = append(req.Messages,
			Message{Role: "assistant", ToolCalls: []ToolCall{{ID: fmt.Sprint("c", i), Type: "function", Function: FunctionCall{Name: "Read", Arguments: `{"path":"a.go"}`}}}},
			Message{Role: "tool", ToolCallID: fmt.Sprint("c", i), Content: strings.Repeat("func f() {}\\n", 200)})
	}
	var encode, billed float64
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(req); err != nil {
				b.Fatal(err)
			}
		}
		encode = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("billed", func(b *testing.B) {
		var bp BilledPrompts
		for b.Loop() {
			bp.InputTokens(req, 1)
			bp.Remember(req, 100)
		}
		billed = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if encode > 0 {
			b.ReportMetric(billed/encode, "×encode")
		}
	})
}
