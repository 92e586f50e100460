package standin

import (
	"container/list"
	"crypto/sha256"
	"sync"
	"time"
)

// The prompt cache of the stand-in, modelled on what gateways that sell
// Anthropic and OpenAI models over chat completions report:
//
//   - Breakpoints (Anthropic's explicit caching, as OpenRouter and LiteLLM
//     accept it: cache_control on a content part or a function tool). The
//     prompt is read in Anthropic's order, tools first, then the messages.
//     Each breakpoint writes the prefix up to it into the cache; a later
//     request reads the longest prefix found at a breakpoint or at one of the
//     20 segment boundaries before it. Tokens from the prefix read to the
//     last breakpoint are written (cache_creation_input_tokens).
//   - prompt_cache_key (OpenAI's automatic caching, routed by the key): a
//     request under a key reads the longest prefix it shares with the last
//     request under that key, floored to a multiple of 128 tokens. Nothing
//     is billed for writing.
//
// Prefixes shorter than MinCacheTokens are not cached, as with the real
// services. Entries live 5 minutes (1 hour with ttl "1h"), refreshed when
// read, and each account keeps at most cacheEntries of them (least recently
// used dropped first), so memory stays bounded however long the stand-in
// runs. A request with neither breakpoints nor a key caches nothing.

// MinCacheTokens is the shortest prefix the stand-in caches.
const MinCacheTokens = 1024

const (
	cacheEntries = 512  // per account
	lookback     = 20   // boundaries before a breakpoint checked for a hit
	keyStep      = 128  // prompt_cache_key hits come in steps of this many tokens
	maxKeyBounds = 1024 // prefixes remembered per prompt_cache_key: 32 KiB
)

// Segment is one piece of a prompt, in the order the model reads it: a
// tool, a content part, a tool call.
type Segment struct {
	Key    string // the piece's content; prefixes are recognised by it
	Tokens int
	// Breakpoint is the cache_control ttl of a breakpoint after this
	// segment: "5m" or "1h"; "" when there is none.
	Breakpoint string
}

// CacheUse is how a prompt's tokens were billed.
type CacheUse struct {
	Prompt int // all prompt tokens, cached ones included
	Read   int // read from the cache
	Write  int // written to the cache (breakpoints only)
}

// PromptCache remembers prompt prefixes per account. It is safe for
// concurrent use.
type PromptCache struct {
	now func() time.Time

	mu       sync.Mutex
	accounts map[string]*accountCache
}

type accountCache struct {
	lru     *list.List // of *cacheEntry, most recent first
	entries map[[32]byte]*list.Element
}

type cacheEntry struct {
	id      [32]byte
	expires time.Time
	// bounds and tokens are the prefix hashes and cumulative tokens of the
	// last prompt under a prompt_cache_key; nil for a breakpoint entry.
	bounds []([32]byte)
	tokens []int
}

// NewPromptCache returns an empty cache; now is the clock (nil: time.Now).
func NewPromptCache(now func() time.Time) *PromptCache {
	if now == nil {
		now = time.Now
	}
	return &PromptCache{now: now, accounts: map[string]*accountCache{}}
}

// Use bills a prompt of account for model: cacheKey is its
// prompt_cache_key ("" when none). It records what the prompt writes.
func (c *PromptCache) Use(account, model, cacheKey string, segs []Segment) CacheUse {
	u := CacheUse{}
	last := -1
	for i, s := range segs {
		u.Prompt += s.Tokens
		if s.Breakpoint != "" {
			last = i
		}
	}
	if last < 0 && cacheKey == "" {
		return u // nothing to cache: spare hashing the prompt
	}
	bounds, cum := prefixes(model, segs)
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.accounts[account]
	if a == nil {
		a = &accountCache{lru: list.New(), entries: map[[32]byte]*list.Element{}}
		c.accounts[account] = a
	}
	switch {
	case last >= 0:
		hit := -1
		for i, s := range segs {
			if s.Breakpoint == "" {
				continue
			}
			for j := i; j >= max(0, i-lookback) && j > hit; j-- {
				if a.get(bounds[j], now, ttl(s.Breakpoint)) != nil {
					hit = j
					break
				}
			}
		}
		if hit >= 0 {
			u.Read = cum[hit]
		}
		for i, s := range segs {
			if s.Breakpoint != "" && cum[i] >= MinCacheTokens {
				a.put(&cacheEntry{id: bounds[i], expires: now.Add(ttl(s.Breakpoint))})
			}
		}
		if cum[last] >= MinCacheTokens {
			u.Write = cum[last] - u.Read
		}
	case cacheKey != "":
		id := sha256.Sum256([]byte("prompt_cache_key\x00" + model + "\x00" + cacheKey))
		if e := a.get(id, now, 5*time.Minute); e != nil {
			n := 0
			for n < len(e.bounds) && n < len(bounds) && e.bounds[n] == bounds[n] {
				n++
			}
			if n > 0 && e.tokens[n-1] >= MinCacheTokens {
				u.Read = e.tokens[n-1] / keyStep * keyStep
			}
		}
		if len(bounds) > maxKeyBounds {
			bounds, cum = bounds[:maxKeyBounds], cum[:maxKeyBounds]
		}
		a.put(&cacheEntry{id: id, expires: now.Add(5 * time.Minute), bounds: bounds, tokens: cum})
	}
	return u
}

// prefixes returns, for each segment, a hash of the prompt up to and
// including it, and the tokens up to and including it.
func prefixes(model string, segs []Segment) ([][32]byte, []int) {
	bounds := make([][32]byte, len(segs))
	cum := make([]int, len(segs))
	h := sha256.Sum256([]byte(model))
	total := 0
	buf := make([]byte, 0, 256)
	for i, s := range segs {
		buf = append(append(buf[:0], h[:]...), s.Key...)
		h = sha256.Sum256(buf)
		total += s.Tokens
		bounds[i], cum[i] = h, total
	}
	return bounds, cum
}

func ttl(breakpoint string) time.Duration {
	if breakpoint == "1h" {
		return time.Hour
	}
	return 5 * time.Minute
}

// get returns the live entry id, refreshing it for d; nil when absent or expired.
func (a *accountCache) get(id [32]byte, now time.Time, d time.Duration) *cacheEntry {
	el := a.entries[id]
	if el == nil {
		return nil
	}
	e := el.Value.(*cacheEntry)
	if now.After(e.expires) {
		a.lru.Remove(el)
		delete(a.entries, id)
		return nil
	}
	if exp := now.Add(d); exp.After(e.expires) {
		e.expires = exp
	}
	a.lru.MoveToFront(el)
	return e
}

func (a *accountCache) put(e *cacheEntry) {
	if el := a.entries[e.id]; el != nil {
		old := el.Value.(*cacheEntry)
		if old.expires.After(e.expires) {
			e.expires = old.expires
		}
		el.Value = e
		a.lru.MoveToFront(el)
		return
	}
	a.entries[e.id] = a.lru.PushFront(e)
	for a.lru.Len() > cacheEntries {
		el := a.lru.Back()
		a.lru.Remove(el)
		delete(a.entries, el.Value.(*cacheEntry).id)
	}
}

// Len is the number of entries kept for account (for tests of the bound).
func (c *PromptCache) Len(account string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.accounts[account]; a != nil {
		return a.lru.Len()
	}
	return 0
}
