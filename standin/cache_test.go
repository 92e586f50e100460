package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// post sends a chat request with extra headers and returns status, headers and body.
func post(t *testing.T, rs *Running, key string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", rs.BaseURL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := rs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// usageJSON is every usage field the stand-in may send.
type usageJSON struct {
	Prompt  int `json:"prompt_tokens"`
	Details *struct {
		Cached int  `json:"cached_tokens"`
		Write  *int `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CacheCreation *int `json:"cache_creation_input_tokens"`
	CacheRead     *int `json:"cache_read_input_tokens"`
}

func wholeUsage(t *testing.T, body string) usageJSON {
	t.Helper()
	var r struct {
		Usage usageJSON `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Usage.Details == nil {
		t.Fatalf("no usage with prompt_tokens_details in %s (%v)", body, err)
	}
	return r.Usage
}

// bigText is n tokens of text by the stand-in's estimate (4 bytes a token).
func bigText(word string, n int) string {
	return strings.Repeat(word[:4], n)
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// session builds a Claude Code-like chat request: a long system prompt and
// the last message each marked as a breakpoint, after turns earlier turns.
func session(model string, turns int, ttl string) string {
	cc := map[string]any{"type": "ephemeral"}
	if ttl != "" {
		cc["ttl"] = ttl
	}
	msgs := []any{map[string]any{"role": "system", "content": []any{
		map[string]any{"type": "text", "text": bigText("syst", 2000), "cache_control": cc},
	}}}
	for i := range turns {
		if i > 0 {
			msgs = append(msgs, map[string]any{"role": "assistant", "content": fmt.Sprintf("answer %d %s", i, bigText("answ", 100))})
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": fmt.Sprintf("question %d %s", i, bigText("ques", 100))},
		}})
	}
	last := msgs[len(msgs)-1].(map[string]any)["content"].([]any)[0].(map[string]any)
	last["cache_control"] = cc
	b, _ := json.Marshal(map[string]any{"model": model, "messages": msgs})
	return string(b)
}

func TestCache_BreakpointsReadWhatEarlierTurnsWrote(t *testing.T) {
	rs := start(t, Options{})
	const model = "vendor-a/model-a-sonnet-4.5"
	var prev usageJSON
	for turn := 1; turn <= 3; turn++ {
		status, _, body := post(t, rs, DemoKeyFull, nil, session(model, turn, ""))
		if status != 200 {
			t.Fatalf("turn %d: %d %s", turn, status, body)
		}
		u := wholeUsage(t, body)
		if u.Details.Write == nil {
			t.Fatalf("turn %d: no cache_write_tokens: %s", turn, body)
		}
		switch turn {
		case 1:
			if u.Details.Cached != 0 || *u.Details.Write != u.Prompt {
				t.Errorf("turn 1: cached %d written %d of %d; want nothing read and the whole prompt (up to the last breakpoint) written", u.Details.Cached, *u.Details.Write, u.Prompt)
			}
		default:
			// The previous turn's last breakpoint is found among the 20
			// boundaries before this turn's: its whole prompt is read.
			if u.Details.Cached != prev.Prompt || *u.Details.Write != u.Prompt-prev.Prompt {
				t.Errorf("turn %d: cached %d written %d of %d; want the previous prompt (%d) read and the rest written", turn, u.Details.Cached, *u.Details.Write, u.Prompt, prev.Prompt)
			}
		}
		prev = u
	}
	seen := rs.Seen()
	last := seen[len(seen)-1]
	want := []Breakpoint{{Where: "messages[0].content[0]", TTL: "5m"}, {Where: "messages[5].content[0]", TTL: "5m"}}
	if !reflect.DeepEqual(last.Breakpoints, want) || last.CachedTokens != prev.Details.Cached || last.PromptTokens != prev.Prompt {
		t.Errorf("Seen recorded breakpoints %+v, cached %d of %d; want %+v, %d of %d", last.Breakpoints, last.CachedTokens, last.PromptTokens, want, prev.Details.Cached, prev.Prompt)
	}

	// Another account shares nothing; another model neither.
	_, _, body := post(t, rs, DemoKeyPartial, nil, session("vendor-a/model-a-sonnet-4.5", 3, ""))
	if u := wholeUsage(t, body); u.Details.Cached != 0 {
		t.Errorf("another account read %d cached tokens", u.Details.Cached)
	}
	_, _, body = post(t, rs, DemoKeyFull, nil, session("vendor-a/model-a-haiku-4.5", 3, ""))
	if u := wholeUsage(t, body); u.Details.Cached != 0 {
		t.Errorf("another model read %d cached tokens", u.Details.Cached)
	}
}

// A tool marked with cache_control caches the tools before it, read first.
func TestCache_ToolBreakpointAndLiteLLMFields(t *testing.T) {
	rs := start(t, Options{Dialect: DialectLiteLLM})
	body := func(question string) string {
		return `{"model":"vendor-a/model-a-haiku-4.5","tools":[
		  {"type":"function","function":{"name":"read","description":"` + bigText("tool", 1500) + `","parameters":{}},"cache_control":{"type":"ephemeral","ttl":"1h"}}],
		  "messages":[{"role":"user","content":"` + question + `"}]}`
	}
	_, _, first := post(t, rs, DemoKeyFull, nil, body("one"))
	_, _, second := post(t, rs, DemoKeyFull, nil, body("two"))
	u1, u2 := wholeUsage(t, first), wholeUsage(t, second)
	if u1.CacheCreation == nil || u1.CacheRead == nil || u2.CacheRead == nil {
		t.Fatalf("LiteLLM dialect: want cache_creation_input_tokens and cache_read_input_tokens: %s", first)
	}
	if *u1.CacheCreation < 1500 || *u1.CacheRead != 0 || *u2.CacheRead != *u1.CacheCreation || u2.Details.Cached != *u2.CacheRead || *u2.CacheCreation != 0 {
		t.Errorf("first %s\nsecond %s\nwant the tool written once, then read", first, second)
	}
	if u2.Prompt <= *u2.CacheRead {
		t.Errorf("prompt_tokens %d must count the cached %d and the new message", u2.Prompt, *u2.CacheRead)
	}
}

func TestCache_PromptCacheKey(t *testing.T) {
	rs := start(t, Options{})
	req := func(key string, turns int) string {
		msgs := []any{map[string]any{"role": "system", "content": bigText("inst", 3000)}}
		for i := range turns {
			msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("turn %d %s", i, bigText("turn", 200))})
		}
		return mustMarshal(t, map[string]any{"model": "vendor-a/model-a-sonnet-4.5", "prompt_cache_key": key, "user": "u1", "messages": msgs})
	}
	_, _, b1 := post(t, rs, DemoKeyFull, nil, req("session-1", 1))
	_, _, b2 := post(t, rs, DemoKeyFull, nil, req("session-1", 2))
	_, _, b3 := post(t, rs, DemoKeyFull, nil, req("session-2", 3))
	_, _, b4 := post(t, rs, DemoKeyFull, nil, req("", 4))
	u1, u2, u3, u4 := wholeUsage(t, b1), wholeUsage(t, b2), wholeUsage(t, b3), wholeUsage(t, b4)
	if u1.Details.Cached != 0 || u1.Details.Write != nil {
		t.Errorf("first request under a key: %s; want nothing cached and no write count", b1)
	}
	if want := u1.Prompt / 128 * 128; u2.Details.Cached != want {
		t.Errorf("second request under the key: cached %d, want the shared prefix %d floored to 128s (%d)", u2.Details.Cached, u1.Prompt, want)
	}
	if u3.Details.Cached != 0 || u4.Details.Cached != 0 {
		t.Errorf("another key read %d, no key read %d; want 0", u3.Details.Cached, u4.Details.Cached)
	}
	seen := rs.Seen()
	if s := seen[1]; s.PromptCacheKey != "session-1" || s.User != "u1" || s.CachedTokens != u2.Details.Cached {
		t.Errorf("Seen %+v: want the key, the user and the cached count recorded", s)
	}
}

func TestCache_ShortPrefixesAndExpiry(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	rs := start(t, Options{Now: clock})
	short := `{"model":"vendor-a/model-a-haiku-4.5","messages":[{"role":"user","content":[{"type":"text","text":"short","cache_control":{"type":"ephemeral"}}]}]}`
	post(t, rs, DemoKeyFull, nil, short)
	_, _, body := post(t, rs, DemoKeyFull, nil, short)
	if u := wholeUsage(t, body); u.Details.Cached != 0 || *u.Details.Write != 0 {
		t.Errorf("a prompt under %d tokens: %s; want nothing cached or written", MinCacheTokens, body)
	}

	for _, tc := range []struct {
		ttl    string
		wait   time.Duration
		cached bool
	}{
		{"", 4 * time.Minute, true},
		{"", 6 * time.Minute, false},
		{"1h", 50 * time.Minute, true},
		{"1h", 61 * time.Minute, false},
	} {
		body := session("vendor-a/model-a-opus-4.6", 1, tc.ttl)
		body = strings.Replace(body, "syst", tc.ttl+tc.wait.String()[:2], 1) // a prompt of its own per case
		post(t, rs, DemoKeyFull, nil, body)
		advance(tc.wait)
		_, _, again := post(t, rs, DemoKeyFull, nil, body)
		if u := wholeUsage(t, again); (u.Details.Cached > 0) != tc.cached {
			t.Errorf("ttl %q, repeated after %s: cached %d; want cached %v", tc.ttl, tc.wait, u.Details.Cached, tc.cached)
		}
	}
}

func TestCache_BadCacheControlRefused(t *testing.T) {
	rs := start(t, Options{})
	part := func(cc string) string {
		return `{"type":"text","text":"x","cache_control":` + cc + `}`
	}
	for body, want := range map[string]string{
		`{"model":"vendor-a/model-a-haiku-4.5","messages":[{"role":"user","content":[` + part(`{"type":"ephemeral","ttl":"10m"}`) + `]}]}`:                                           `messages[0].content[0].cache_control.ttl: \"10m\" is not allowed`,
		`{"model":"vendor-a/model-a-haiku-4.5","messages":[{"role":"user","content":[` + part(`{"type":"persistent"}`) + `]}]}`:                                                      `messages[0].content[0].cache_control.type`,
		`{"model":"vendor-a/model-a-haiku-4.5","messages":[{"role":"user","content":[` + strings.Repeat(part(`{"type":"ephemeral"}`)+",", 4) + part(`{"type":"ephemeral"}`) + `]}]}`: "a maximum of 4 blocks with cache_control may be provided; found 5",
	} {
		status, _, got := post(t, rs, DemoKeyFull, nil, body)
		if status != 400 || !strings.Contains(got, want) {
			t.Errorf("%s: %d %s, want 400 naming %s", body, status, got, want)
		}
	}
}

// However many prompts an account sends, it keeps at most cacheEntries.
func TestPromptCache_Bounded(t *testing.T) {
	c := NewPromptCache(nil)
	for i := range 3 * cacheEntries {
		c.Use("acct", "m", "", []Segment{{Key: fmt.Sprint(i), Tokens: MinCacheTokens, Breakpoint: "5m"}})
		c.Use("acct", "m", fmt.Sprint("key", i), []Segment{{Key: "x", Tokens: 1}})
	}
	if n := c.Len("acct"); n != cacheEntries {
		t.Errorf("%d entries kept, want %d", n, cacheEntries)
	}
	// The most recent survive, the oldest are gone.
	last := []Segment{{Key: fmt.Sprint(3*cacheEntries - 1), Tokens: MinCacheTokens, Breakpoint: "5m"}}
	if u := c.Use("acct", "m", "", last); u.Read != MinCacheTokens {
		t.Errorf("the newest prefix: read %d, want %d", u.Read, MinCacheTokens)
	}
	if u := c.Use("acct", "m", "", []Segment{{Key: "0", Tokens: MinCacheTokens, Breakpoint: "5m"}}); u.Read != 0 {
		t.Errorf("the oldest prefix: read %d, want it evicted", u.Read)
	}
}

// Sessions of many accounts at once: each reads what it wrote, none reads
// another's, and the bound holds.
func TestPromptCache_Concurrent(t *testing.T) {
	c := NewPromptCache(nil)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 64 {
		wg.Go(func() {
			acct := fmt.Sprint("acct", g%8)
			session := fmt.Sprint("session", g)
			segs := []Segment{{Key: session, Tokens: MinCacheTokens, Breakpoint: "5m"}}
			for turn := range 20 {
				segs = append(segs, Segment{Key: fmt.Sprint(turn), Tokens: 10})
				segs[len(segs)-1].Breakpoint = "5m"
				u := c.Use(acct, "m", "", segs)
				if want := MinCacheTokens + 10*turn; turn > 0 && u.Read != want {
					errs <- fmt.Sprintf("%s %s turn %d: read %d, want %d", acct, session, turn, u.Read, want)
					return
				}
				segs[len(segs)-1].Breakpoint = ""
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for a := range 8 {
		if n := c.Len(fmt.Sprint("acct", a)); n > cacheEntries {
			t.Errorf("acct%d keeps %d entries, more than %d", a, n, cacheEntries)
		}
	}
}
