package anthropic

import (
	"encoding/json"
	"fmt"
	tr "github.com/modelgateway/gw/protocol/translate"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// textOf is a message content's text: the string, or its text parts
// joined as the translator joins them.
func textOf(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []chat.Part:
		var texts []string
		for _, p := range c {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return ""
}

// breakpoints lists where a chat request carries cache_control, as
// "messages[i].content[j]", "messages[i].tool_calls[j]" or "tools[i]",
// each with its TTL when it has one.
func breakpoints(req *chat.Request) []string {
	var out []string
	at := func(where string, cc *chat.CacheControl) {
		if cc == nil {
			return
		}
		if cc.TTL != "" {
			where += " " + cc.TTL
		}
		out = append(out, where)
	}
	for i, m := range req.Messages {
		if parts, ok := m.Content.([]chat.Part); ok {
			for j, p := range parts {
				at(fmt.Sprintf("messages[%d].content[%d]", i, j), p.CacheControl)
			}
		}
		for j, tc := range m.ToolCalls {
			at(fmt.Sprintf("messages[%d].tool_calls[%d]", i, j), tc.CacheControl)
		}
	}
	for i, tl := range req.Tools {
		at(fmt.Sprintf("tools[%d]", i), tl.CacheControl)
	}
	return out
}

// Claude Code's breakpoints (two on its system prompt, one on the last
// turn) reach the chat request one for one, on the part each block became:
// the system prompt's two blocks, the environment's system turn (a system
// message where Claude Code said it, after the first user message) in a
// first request, the tool result's tool message (or, for an image result,
// the image after it) in a second.
func TestRecordedCacheBreakpoints(t *testing.T) {
	first := []string{"messages[0].content[0]", "messages[0].content[1]", "messages[2].content[0]"}
	second := func(last string) []string { return []string{"messages[0].content[0]", "messages[0].content[1]", last} }
	for _, c := range []struct {
		scenario string
		want     [][]string
	}{
		{"default-models", [][]string{first}},
		{"tool-round-trip", [][]string{first, second("messages[4].content[0]")}},
		{"thinking", [][]string{first, second("messages[4].content[0]")}},
		{"tool-error", [][]string{first, second("messages[4].content[0]")}},
		{"tool-search", [][]string{first, second("messages[4].content[0]")}},
		{"parallel-tools", [][]string{first, second("messages[5].content[0]")}},
		{"image", [][]string{first, second("messages[5].content[1]")}},
	} {
		for i, body := range recorded(t, c.scenario) {
			req, meta := parse(t, body)
			if got := breakpoints(req); !slices.Equal(got, c.want[i]) {
				t.Errorf("%s request %d: breakpoints at %q, want %q", c.scenario, i+1, got, c.want[i])
			}
			if n := strings.Count(string(body), `"cache_control"`); n != len(c.want[i]) {
				t.Errorf("%s request %d: Claude Code sent %d breakpoints, the chat request has %d", c.scenario, i+1, n, len(c.want[i]))
			}
			sys := req.Messages[0].Content.([]chat.Part)
			if !strings.HasPrefix(sys[0].Text, "You are a Claude agent") || strings.Contains(textOf(sys), billingHeader) || len(sys) != 2 {
				t.Errorf("%s request %d: system parts %.200q", c.scenario, i+1, textOf(sys))
			}
			if env := req.Messages[2]; env.Role != "system" || !strings.HasPrefix(contentText(env.Content), "# Environment") || req.Messages[1].Role != "user" {
				t.Errorf("%s request %d: the third message is %s %.80q, want the Environment turn after the first user message", c.scenario, i+1, env.Role, contentText(env.Content))
			}
			var r struct {
				Metadata struct {
					UserID string `json:"user_id"`
				} `json:"metadata"`
			}
			if json.Unmarshal(body, &r) != nil || r.Metadata.UserID == "" || req.User != r.Metadata.UserID {
				t.Errorf("%s request %d: user %q, want Claude Code's metadata.user_id", c.scenario, i+1, req.User)
			}
			if meta.InputTokens < len(body)/10 || meta.InputTokens > len(body)/3 {
				t.Errorf("%s request %d: estimated %d input tokens for a %d-byte request", c.scenario, i+1, meta.InputTokens, len(body))
			}
		}
	}
	// On the wire, as OpenRouter and LiteLLM read them.
	req, _ := parse(t, recorded(t, "tool-round-trip")[1])
	b, _ := json.Marshal(req.Messages[4])
	if want := `{"role":"tool","content":[{"type":"text","text":"1\tThe launch code is PINEAPPLE-42.\n2\t","cache_control":{"type":"ephemeral"}}],"tool_call_id":"toolu_rec_01"}`; string(b) != want {
		t.Errorf("tool message\n%s\nwant\n%s", b, want)
	}
}

// Breakpoints anywhere a Messages request may carry them: tools (also one
// left out, whose breakpoint moves to the tool before it), user blocks of
// every kind, tool results with and without images, assistant text and
// tool_use; TTLs kept; a malformed one dropped and named, never a failure.
func TestCacheControlMapping(t *testing.T) {
	body := `{"model":"m","max_tokens":1,
	"system":"plain",
	"tools":[{"name":"a","input_schema":{"type":"object"}},
		{"name":"b","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral","ttl":"1h"}},
		{"name":"c","input_schema":{"type":"object"}},
		{"type":"web_search_20250305","name":"web_search","cache_control":{"type":"ephemeral"}}],
	"messages":[
	{"role":"user","content":[{"type":"text","text":"look"},
		{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"},"cache_control":{"type":"ephemeral"}},
		{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"},"cache_control":{"type":"ephemeral","ttl":"5m"}}]},
	{"role":"assistant","content":[{"type":"text","text":"ok","cache_control":{"type":"ephemeral"}},
		{"type":"tool_use","id":"t1","name":"a","input":{},"cache_control":{"type":"ephemeral"}},
		{"type":"tool_use","id":"t2","name":"a","input":{}}]},
	{"role":"user","content":[
		{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r1"},{"type":"text","text":"r2","cache_control":{"type":"ephemeral"}}]},
		{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"pic"},{"type":"image","source":{"type":"url","url":"https://x/p.png"}}],"cache_control":{"type":"ephemeral","ttl":"1h"}},
		{"type":"text","text":"go on","cache_control":{"type":"persistent"}}]}]}`
	req, meta := parse(t, []byte(body))
	want := []string{
		"messages[1].content[1]", "messages[1].content[2] 5m", // image, document
		"messages[2].content[0]", "messages[2].tool_calls[0]", // assistant text, tool_use
		"messages[3].content[0]",    // t1's tool message (a breakpoint inside the result)
		"messages[5].content[1] 1h", // t2's image, after its tool message
		"tools[1] 1h", "tools[2]",   // c keeps web_search's breakpoint
	}
	if got := breakpoints(req); !slices.Equal(got, want) {
		t.Errorf("breakpoints at %q\nwant %q\nin %s", got, want, mustJSON(t, req))
	}
	if req.Messages[0].Content != "plain" {
		t.Errorf("a system prompt without breakpoints stays a string: %s", mustJSON(t, req.Messages[0]))
	}
	if p := req.Messages[5].Content.([]chat.Part); p[2].Text != "go on" || p[2].CacheControl != nil {
		t.Errorf("the malformed breakpoint: %s", mustJSON(t, req.Messages[5]))
	}
	if !slices.ContainsFunc(meta.Dropped, func(s string) bool { return strings.Contains(s, `cache_control (type "persistent")`) }) {
		t.Errorf("dropped %q: the malformed breakpoint is not named", meta.Dropped)
	}

	// A malformed breakpoint on a result leaves its image's own in place.
	req, _ = parse(t, []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t",
		"cache_control":{"type":"bogus"},"content":[{"type":"image","source":{"type":"url","url":"https://x/p.png"},"cache_control":{"type":"ephemeral"}}]}]}]}`))
	if got := breakpoints(req); !slices.Equal(got, []string{"messages[1].content[1]"}) {
		t.Errorf("breakpoints %q, want the image's", got)
	}

	// A TTL Anthropic does not know is dropped, the breakpoint kept.
	req, meta = parse(t, []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral","ttl":"1d"}}]}]}`))
	if got := breakpoints(req); !slices.Equal(got, []string{"messages[0].content[0]"}) || !slices.ContainsFunc(meta.Dropped, func(s string) bool { return strings.Contains(s, `ttl ("1d")`) }) {
		t.Errorf("breakpoints %q, dropped %q", got, meta.Dropped)
	}

	// A hostile value is quoted short in the log's note.
	_, meta = parse(t, []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"`+strings.Repeat("a", 100000)+`"}}]}]}`))
	if len(meta.Dropped) != 1 || len(meta.Dropped[0]) > 100 {
		t.Errorf("dropped %d notes, the first %d bytes long", len(meta.Dropped), len(meta.Dropped[0]))
	}

	// Not an object: a 400 naming the field, as for any malformed block.
	_, _, err := ParseRequest(&tr.Request{Body: []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":"yes"}]}]}`)}, tr.Env{})
	if err == nil || !strings.Contains(err.Message, "messages[0].content[0].cache_control") {
		t.Errorf("a string cache_control: %v", err)
	}
}

// stripCacheControl removes every cache_control from a JSON document.
func stripCacheControl(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "cache_control")
		for k, x := range v {
			v[k] = stripCacheControl(x)
		}
	case []any:
		for i, x := range v {
			v[i] = stripCacheControl(x)
		}
	}
	return v
}

// A service that refuses cache_control is sent, on the retry, exactly the
// chat request Claude Code's request makes without any breakpoint: plain
// strings where parts only carried breakpoints.
func TestRecordedWithoutCacheControlIsThePlainRequest(t *testing.T) {
	for _, scenario := range []string{"tool-round-trip", "image", "parallel-tools", "tool-search"} {
		for i, body := range recorded(t, scenario) {
			var doc any
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatal(err)
			}
			plainBody, _ := json.Marshal(stripCacheControl(doc))
			plain, _ := parse(t, plainBody)
			cached, _ := parse(t, body)
			retry := chat.Without(cached, chat.FieldCacheControl)
			// Both as decoded JSON, re-encoded: the stripped body's schemas
			// come back with their keys sorted.
			if got, want := normalJSON(t, retry), normalJSON(t, plain); got != want {
				n := 0
				for n < min(len(got), len(want)) && got[n] == want[n] {
					n++
				}
				t.Errorf("%s request %d: without cache_control, unlike the request without breakpoints, from byte %d:\n got %.200q\nwant %.200q",
					scenario, i+1, n, got[max(0, n-60):], want[max(0, n-60):])
			}
			if !chat.Has(cached, chat.FieldCacheControl) {
				t.Errorf("%s request %d: the request had no breakpoint to begin with", scenario, i+1)
			}
		}
	}
}

func normalJSON(t *testing.T, v any) string {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(mustJSON(t, v)), &doc); err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, doc)
}

// Automatic caching (a top-level cache_control) puts the breakpoint on the
// conversation's last block, as Anthropic does.
func TestAutomaticCaching(t *testing.T) {
	for _, c := range []struct{ name, messages, want string }{
		{"a user string", `[{"role":"user","content":"hi"}]`, "messages[1].content[0] 1h"},
		{"a tool result", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"out"},{"type":"text","text":"and?"}]}]`, "messages[4].content[0] 1h"},
		{"tool calls last", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"x","input":{}}]}]`, "messages[2].tool_calls[0] 1h"},
	} {
		req, _ := parse(t, []byte(`{"model":"m","max_tokens":1,"system":"s","cache_control":{"type":"ephemeral","ttl":"1h"},"messages":`+c.messages+`}`))
		if got := breakpoints(req); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%s: breakpoints %q, want %q", c.name, got, c.want)
		}
	}
	// An explicit breakpoint on the last block stays as it is.
	req, _ := parse(t, []byte(`{"model":"m","max_tokens":1,"cache_control":{"type":"ephemeral","ttl":"1h"},"messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}]}`))
	if got := breakpoints(req); !slices.Equal(got, []string{"messages[0].content[0]"}) {
		t.Errorf("breakpoints %q", got)
	}
}

// contentText is a chat message's text, its parts joined.
func contentText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []chat.Part:
		return textOf(c)
	}
	return ""
}
