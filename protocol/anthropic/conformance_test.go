package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
)

// TestConformance runs the translators' suite with Claude Code's view of
// the Messages API: blocks read with the stream rules (checkStream), and
// given back as it keeps them.
func TestConformance(t *testing.T) {
	translatetest.Run(t, translatetest.Conformance{
		Protocol: Protocol{},
		Carries:  []translatetest.Dialect{translatetest.Plain, translatetest.OpenRouter, translatetest.LiteLLM, translatetest.ThoughtSignature},
		Client: translatetest.Client{
			Request: messagesRequest,
			Whole: func(t testing.TB, a tr.Answer) translatetest.Answer {
				var m struct {
					Content    []map[string]any `json:"content"`
					StopReason string           `json:"stop_reason"`
					Usage      map[string]any   `json:"usage"`
				}
				if err := json.Unmarshal(a.Body, &m); err != nil {
					t.Fatalf("%v: %s", err, a.Body)
				}
				return neutral(t, answer{blocks: wholeContent(t, m.Content), stopReason: m.StopReason, usage: m.Usage})
			},
			Stream: func(t testing.TB, body []byte) translatetest.Answer {
				a, err := checkStream(string(body))
				if err != nil {
					t.Fatalf("%v\n%s", err, body)
				}
				return neutral(t, a)
			},
			Error: func(t testing.TB, a tr.Answer) translatetest.Failure {
				var e struct {
					Type  string `json:"type"`
					Error struct{ Type, Message string }
				}
				if err := json.Unmarshal(a.Body, &e); err != nil || e.Type != "error" || e.Error.Type != TypeForStatus(a.Status) {
					t.Fatalf("not a Messages API error %d: %s", a.Status, a.Body)
				}
				return failure(a.Status, a.Header.Get("X-Should-Retry") != "false", e.Error.Message)
			},
		},
	})
}

// claudeCodeCounts is how Claude Code reads a context overflow's counts to
// decide how much of the conversation to compact (its words: "prompt is too
// long", case-insensitive, start the compaction).
var claudeCodeCounts = regexp.MustCompile(`(?i)prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)`)

// failure is an error as Claude Code takes it: its SDK retries 408, 409,
// 429 and 5xx unless told not to.
func failure(status int, mayRetry bool, message string) translatetest.Failure {
	retry := mayRetry && (status == 408 || status == 409 || status == 429 || status >= 500)
	return translatetest.Failure{Status: status, Message: message, Retry: retry,
		Overflow: status == http.StatusBadRequest && claudeCodeCounts.MatchString(message)}
}

// neutral is what Claude Code makes of a, which has no empty block.
func neutral(t testing.TB, a answer) translatetest.Answer {
	for _, b := range a.blocks {
		if b.kind == "thinking" && b.thinking == "" && b.signature == "" || b.kind == "redacted_thinking" && b.data == "" {
			t.Errorf("an empty %s block in %+v", b.kind, a.blocks)
		}
	}
	n := translatetest.Answer{Text: a.text(), Reasoning: a.thinking(), Kept: a.blocks,
		Stop: map[string]string{"end_turn": "stop", "max_tokens": "length", "tool_use": "tool_calls", "stop_sequence": "stop", "refusal": "content_filter"}[a.stopReason]}
	for _, b := range a.tools() {
		n.Calls = append(n.Calls, translatetest.Call{ID: b.id, Name: b.name, Args: b.input})
	}
	if a.usage != nil {
		num := func(k string) int { f, _ := a.usage[k].(float64); return int(f) }
		n.Usage = &translatetest.Usage{Input: num("input_tokens") + num("cache_read_input_tokens") + num("cache_creation_input_tokens"),
			Output: num("output_tokens"), Cached: num("cache_read_input_tokens")}
	}
	if a.errType != "" {
		status := 0
		for _, s := range []int{400, 401, 402, 403, 404, 413, 429, 500, 504, 529} {
			if TypeForStatus(s) == a.errType {
				status = s
				break
			}
		}
		f := failure(status, true, a.errMessage)
		n.Failed = &f
	}
	return n
}

// wholeContent reads a whole answer's content blocks.
func wholeContent(t testing.TB, content []map[string]any) []answerBlock {
	var blocks []answerBlock
	for _, c := range content {
		b := answerBlock{kind: fmt.Sprint(c["type"])}
		str := func(k string) string { s, _ := c[k].(string); return s }
		switch b.kind {
		case "thinking":
			if _, ok := c["signature"].(string); !ok {
				t.Errorf("a whole thinking block without a signature string: %v", c)
			}
			b.thinking, b.signature = str("thinking"), str("signature")
		case "redacted_thinking":
			b.data = str("data")
		case "text":
			b.text = str("text")
		case "tool_use":
			in, _ := json.Marshal(c["input"])
			b.id, b.name, b.input = str("id"), str("name"), string(in)
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// messagesRequest is Claude Code's request of c.
func messagesRequest(t testing.TB, c translatetest.Conversation) *tr.Request {
	var tools []any
	for _, name := range c.Tools {
		tools = append(tools, map[string]any{"name": name, "input_schema": map[string]any{"type": "object"}})
	}
	msgs := []any{map[string]any{"role": "user", "content": c.User}}
	if c.Reply != nil {
		var content []any
		for _, b := range c.Reply.Kept.([]answerBlock) {
			switch b.kind {
			case "thinking":
				content = append(content, map[string]any{"type": "thinking", "thinking": b.thinking, "signature": b.signature})
			case "redacted_thinking":
				content = append(content, map[string]any{"type": "redacted_thinking", "data": b.data})
			case "text":
				content = append(content, map[string]any{"type": "text", "text": b.text})
			case "tool_use":
				content = append(content, map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": json.RawMessage(b.input)})
			}
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": content})
	}
	var user []any
	for _, r := range c.Results {
		user = append(user, map[string]any{"type": "tool_result", "tool_use_id": r.Call.ID, "content": r.Output})
	}
	if c.Next != "" {
		user = append(user, map[string]any{"type": "text", "text": c.Next})
	}
	if user != nil {
		msgs = append(msgs, map[string]any{"role": "user", "content": user})
	}
	body, err := json.Marshal(map[string]any{"model": c.Model, "max_tokens": 1000, "stream": c.Stream, "tools": tools, "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("Anthropic-Version", "2023-06-01")
	return &tr.Request{Method: http.MethodPost, Path: "/v1/messages", Header: h, Body: body}
}
