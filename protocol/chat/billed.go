package chat

import (
	"container/list"
	"encoding/binary"
	"hash/maphash"
	"sync"
)

// BilledPrompts remembers what the service billed for the prompts of
// recent requests, so that the next turn of a conversation, which repeats
// the last one's prompt and adds to it, can say its size before the
// service has counted it: the prompt tokens billed for the part it shares
// with an earlier request, plus the estimate of what it adds
// (EstimateTokens). A client reads that size at the start of the answer
// (Anthropic's message_start): the estimate alone is off by as much as the
// tokenizer differs from four bytes a token, the billed count is not.
//
// A prompt is known by a hash of its tools and messages, without cache
// breakpoints (which an agent moves every turn): the model, each tool's
// name, description and parameters, each message's role, text, images,
// files, tool calls and reasoning (maphash, seeded per BilledPrompts: a
// collision costs only an estimate off, and hashing a 50 KB prompt takes
// microseconds). It keeps at most MaxBilledPrompts prompts, the least
// recently used going first: a fixed 24 bytes each (plus the map's and
// the list's few words), some 64 KB at most whatever the prompts' size.
// It is safe for concurrent use; the zero value is ready.
type BilledPrompts struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[uint64]*list.Element
	l    list.List // of *billedPrompt, the most recent first
}

// MaxBilledPrompts bounds what BilledPrompts keeps: one entry per request
// remembered, so hundreds of conversations (an agent's main loop and its
// sub-agents are a few each).
const MaxBilledPrompts = 512

type billedPrompt struct {
	key      uint64
	billed   int // prompt tokens, as the service billed them
	estimate int // EstimateTokens of the same prompt
}

// Remember records that the service billed billed prompt tokens for req.
func (b *BilledPrompts) Remember(req *Request, billed int) {
	if b == nil || req == nil || billed <= 0 {
		return
	}
	keys := prefixKeys(req, b.seedOf())
	e := billedPrompt{key: keys[len(keys)-1], billed: billed, estimate: EstimateTokens(req)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[uint64]*list.Element{}
	}
	if el, ok := b.m[e.key]; ok {
		*el.Value.(*billedPrompt) = e
		b.l.MoveToFront(el)
		return
	}
	b.m[e.key] = b.l.PushFront(&e)
	for b.l.Len() > MaxBilledPrompts {
		last := b.l.Back()
		delete(b.m, last.Value.(*billedPrompt).key)
		b.l.Remove(last)
	}
}

// InputTokens is the size of req's prompt: the billed tokens of the
// longest earlier prompt it starts with plus the estimate of the rest;
// estimate (EstimateTokens of req) when no earlier prompt is known.
func (b *BilledPrompts) InputTokens(req *Request, estimate int) int {
	if b == nil || req == nil {
		return estimate
	}
	keys := prefixKeys(req, b.seedOf())
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := len(keys) - 1; k > 0; k-- { // a prefix of at least one message
		el, ok := b.m[keys[k]]
		if !ok {
			continue
		}
		b.l.MoveToFront(el)
		e := el.Value.(*billedPrompt)
		return max(e.billed, e.billed+estimate-e.estimate)
	}
	return estimate
}

// seedOf is b's hash seed, made at first use.
func (b *BilledPrompts) seedOf() maphash.Seed {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.seed = maphash.MakeSeed()
		b.m = map[uint64]*list.Element{}
	}
	return b.seed
}

// prefixKeys are the hashes of req's prompt up to each message: keys[0]
// of the model and the tools, keys[k] of those and the first k messages.
func prefixKeys(req *Request, seed maphash.Seed) []uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	w := keyWriter{h: &h}
	w.str(req.Model)
	for _, t := range req.Tools {
		w.str(t.Type)
		w.str(t.Function.Name)
		w.str(t.Function.Description)
		w.bytes(t.Function.Parameters)
	}
	keys := make([]uint64, 0, len(req.Messages)+1)
	keys = append(keys, h.Sum64())
	for i := range req.Messages {
		m := &req.Messages[i]
		w.str(m.Role)
		w.str(m.Name)
		w.str(m.ToolCallID)
		w.str(m.ReasoningContent)
		// A text is one text part: a message's content is a string or
		// parts as it carries a breakpoint or not.
		switch c := m.Content.(type) {
		case string:
			w.str("text")
			w.str(c)
		case []Part:
			for _, p := range c {
				w.str(p.Type)
				w.str(p.Text)
				if p.ImageURL != nil {
					w.str(p.ImageURL.URL)
				}
				if p.File != nil {
					w.str(p.File.FileData)
				}
			}
		}
		w.str("")
		for _, tc := range m.ToolCalls {
			w.str(tc.ID)
			w.str(tc.Function.Name)
			w.str(tc.Function.Arguments)
		}
		for _, d := range m.ReasoningDetails {
			w.str(d.Text)
			w.str(d.Data)
		}
		for _, tb := range m.ThinkingBlocks {
			w.str(tb.Thinking)
			w.str(tb.Data)
		}
		keys = append(keys, h.Sum64())
	}
	return keys
}

// keyWriter writes strings into a hash, each after its length, so that no
// two sequences of strings hash alike by their concatenation.
type keyWriter struct {
	h   *maphash.Hash
	buf [binary.MaxVarintLen64]byte
}

func (w *keyWriter) str(s string) {
	n := binary.PutUvarint(w.buf[:], uint64(len(s)))
	w.h.Write(w.buf[:n])
	w.h.WriteString(s)
}

func (w *keyWriter) bytes(b []byte) {
	n := binary.PutUvarint(w.buf[:], uint64(len(b)))
	w.h.Write(w.buf[:n])
	w.h.Write(b)
}
