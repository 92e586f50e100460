package proxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgateway/gw/standin"
)

type anthropicUsage struct {
	InputTokens   int  `json:"input_tokens"`
	OutputTokens  int  `json:"output_tokens"`
	CacheRead     *int `json:"cache_read_input_tokens"`
	CacheCreation *int `json:"cache_creation_input_tokens"`
}

// sdkError is an error an SDK threw, as the drivers describe it.
type sdkError struct {
	Class        string  `json:"class"`
	IsAPIError   bool    `json:"isAPIError"`
	Status       *int    `json:"status"`
	Type         *string `json:"type"`
	Code         *string `json:"code"`
	Message      string  `json:"message"`
	RetryAfter   *string `json:"retryAfter"`
	RetryAfterMs *string `json:"retryAfterMs"`
}

type anthropicResult struct {
	recorded
	Message *struct {
		Content    []map[string]any `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      anthropicUsage   `json:"usage"`
	} `json:"message"`
	StartUsage *anthropicUsage `json:"startUsage"`
	Signatures []string        `json:"signatures"`
	Models     []sdkModel      `json:"models"`
	Retrieved  []sdkModel      `json:"retrieved"`
	Error      *sdkError       `json:"error"`
}

type sdkModel struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
}

func (a anthropicResult) text() string {
	var b strings.Builder
	for _, c := range a.Message.Content {
		if c["type"] == "text" {
			b.WriteString(c["text"].(string))
		}
	}
	return b.String()
}

func (a anthropicResult) block(kind string) map[string]any {
	for _, c := range a.Message.Content {
		if c["type"] == kind {
			return c
		}
	}
	return nil
}

// TestSDKAnthropicMessageStreamThroughServe: @anthropic-ai/sdk's
// MessageStream, as Claude Code's SDK reads gw serve's Messages API: the
// text, usage where the SDK reads it (input tokens in message_start, the
// cache reads in the final usage), tool calls and their results, thinking
// with its signatures given back on the next turn, and the errors with the
// SDK's classes, retried as the service's retry headers say.
func TestSDKAnthropicMessageStreamThroughServe(t *testing.T) {
	dir := sdkDir(t, "anthropic-sdk", "@anthropic-ai/sdk")
	r, faults := sdkRig(t)
	sdk := startSDK(t, r, "anthropic.mjs", dir)
	user := func(text string) map[string]any { return map[string]any{"role": "user", "content": text} }
	params := func(model string, messages ...any) map[string]any {
		return map[string]any{"model": model, "max_tokens": 1024, "messages": messages}
	}
	run := func(t *testing.T, p map[string]any, retries int) anthropicResult {
		t.Helper()
		var res anthropicResult
		sdk.run(t, map[string]any{"params": p, "maxRetries": retries}, &res)
		return res
	}
	ok := func(t *testing.T, res anthropicResult) {
		t.Helper()
		if res.Error != nil || res.Message == nil {
			t.Fatalf("the SDK failed: %+v", res.Error)
		}
	}

	t.Run("text and usage, cached on the second turn", func(t *testing.T) {
		p := params(sdkPlain, user("hi"))
		p["system"] = []any{map[string]any{"type": "text", "text": longText, "cache_control": map[string]any{"type": "ephemeral"}}}
		for turn := 1; turn <= 2; turn++ {
			res := run(t, p, 0)
			ok(t, res)
			seen := chatRequests(r)
			last := seen[len(seen)-1]
			if got, want := res.text(), standin.Greeting(sdkPlain); got != want {
				t.Errorf("turn %d: text %q, want %q", turn, got, want)
			}
			if res.Message.StopReason != "end_turn" {
				t.Errorf("turn %d: stop_reason %q", turn, res.Message.StopReason)
			}
			if res.StartUsage == nil || res.StartUsage.InputTokens < len(longText)/8 {
				t.Errorf("turn %d: message_start's usage %+v: no estimate of the prompt's %d tokens", turn, res.StartUsage, last.PromptTokens)
			}
			u := res.Message.Usage
			if u.CacheRead == nil || u.CacheCreation == nil {
				t.Fatalf("turn %d: the final usage lacks the cache counts: %+v", turn, u)
			}
			if *u.CacheRead != last.CachedTokens || *u.CacheCreation != last.CacheWriteTokens ||
				u.InputTokens+*u.CacheRead+*u.CacheCreation != last.PromptTokens || u.OutputTokens <= 0 {
				t.Errorf("turn %d: the SDK's usage %+v (read %d, written %d), the service billed %d prompt tokens, %d read, %d written",
					turn, u, *u.CacheRead, *u.CacheCreation, last.PromptTokens, last.CachedTokens, last.CacheWriteTokens)
			}
			if turn == 2 && *u.CacheRead == 0 {
				t.Errorf("the second turn read nothing from the cache: %+v", u)
			}
		}
	})

	t.Run("two parallel tool calls and their results", func(t *testing.T) {
		p := params(sdkPlain, user(parallelPrompt))
		p["tools"] = []any{map[string]any{"name": "Read", "description": "Reads a file", "input_schema": readToolSchema}}
		res := run(t, p, 0)
		ok(t, res)
		var inputs []string
		var results []any
		for _, c := range res.Message.Content {
			if c["type"] == "tool_use" && c["name"] == "Read" {
				in, _ := json.Marshal(c["input"])
				inputs = append(inputs, string(in))
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": c["id"], "content": "# gw"})
			}
		}
		if strings.Join(inputs, " ") != strings.Join(wantReads, " ") || res.Message.StopReason != "tool_use" {
			t.Fatalf("the SDK assembled the calls %q (stop_reason %q), want %q", inputs, res.Message.StopReason, wantReads)
		}
		p["messages"] = []any{user(parallelPrompt), map[string]any{"role": "assistant", "content": res.Message.Content},
			map[string]any{"role": "user", "content": results}}
		res = run(t, p, 0)
		ok(t, res)
		if !strings.HasPrefix(res.text(), "Tool result received: «# gw»") {
			t.Errorf("the second turn's text %q", res.text())
		}
	})

	t.Run("a call without arguments", func(t *testing.T) {
		p := params(sdkPlain, user(noArgsPrompt))
		p["tools"] = []any{map[string]any{"name": "Status", "description": "Shows the status", "input_schema": noArgsSchema}}
		res := run(t, p, 0)
		ok(t, res)
		call := res.block("tool_use")
		if in, _ := json.Marshal(call["input"]); call == nil || call["name"] != "Status" || string(in) != `{}` {
			t.Fatalf("no call of Status with the input {}: %+v", res.Message.Content)
		}
	})

	t.Run("whole answers: two parallel calls, usage, signed thinking given back", func(t *testing.T) {
		p := params(sdkPlain, user(parallelPrompt))
		p["tools"] = []any{map[string]any{"name": "Read", "description": "Reads a file", "input_schema": readToolSchema}}
		p["stream"] = false
		res := run(t, p, 0)
		ok(t, res)
		var inputs []string
		for _, c := range res.Message.Content {
			if c["type"] == "tool_use" && c["name"] == "Read" {
				in, _ := json.Marshal(c["input"])
				inputs = append(inputs, string(in))
			}
		}
		if strings.Join(inputs, " ") != strings.Join(wantReads, " ") || res.Message.StopReason != "tool_use" {
			t.Errorf("the SDK read the calls %q (stop_reason %q), want %q", inputs, res.Message.StopReason, wantReads)
		}
		seen := chatRequests(r)
		if u := res.Message.Usage; u.InputTokens != seen[len(seen)-1].PromptTokens || u.OutputTokens <= 0 {
			t.Errorf("usage %+v, the service billed %d prompt tokens", u, seen[len(seen)-1].PromptTokens)
		}

		p = params(sdkSigned, user("think first"))
		p["thinking"] = map[string]any{"type": "enabled", "budget_tokens": 512}
		p["stream"] = false
		res = run(t, p, 0)
		ok(t, res)
		if th := res.block("thinking"); th == nil || th["signature"] == "" || res.block("redacted_thinking") == nil {
			t.Fatalf("no signed thinking and redacted_thinking blocks: %+v", res.Message.Content)
		}
		sent := chatRequests(r)
		p["messages"] = []any{user("think first"), map[string]any{"role": "assistant", "content": res.Message.Content}, user("and now?")}
		res = run(t, p, 0)
		ok(t, res)
		seen = chatRequests(r)
		if got, want := len(seen[len(seen)-1].Received), len(sent[len(sent)-1].Sent); got != want || want == 0 {
			t.Errorf("the service got %d of the %d signatures and encrypted blocks it sent back", got, want)
		}
	})

	for _, c := range []struct{ name, model string }{
		{"OpenRouter's signed and encrypted reasoning", sdkSigned},
		{"LiteLLM's thinking blocks", sdkLiteLLM},
	} {
		t.Run("thinking given back: "+c.name, func(t *testing.T) {
			p := params(c.model, user("think first"))
			p["thinking"] = map[string]any{"type": "enabled", "budget_tokens": 512}
			res := run(t, p, 0)
			ok(t, res)
			th := res.block("thinking")
			if th == nil || th["thinking"] == "" || th["signature"] == "" {
				t.Fatalf("no signed thinking block: %+v", res.Message.Content)
			}
			if len(res.Signatures) != 1 || res.Signatures[0] != th["signature"] {
				t.Errorf("the SDK reported the signatures %q, the block has %q", res.Signatures, th["signature"])
			}
			if c.model == sdkSigned && res.block("redacted_thinking") == nil {
				t.Errorf("no redacted_thinking block: %+v", res.Message.Content)
			}
			sent := chatRequests(r)
			p["messages"] = []any{user("think first"), map[string]any{"role": "assistant", "content": res.Message.Content}, user("and now?")}
			res = run(t, p, 0)
			ok(t, res)
			seen := chatRequests(r)
			if got, want := len(seen[len(seen)-1].Received), len(sent[len(sent)-1].Sent); got != want || want == 0 {
				t.Errorf("the service got %d of the %d signatures and encrypted blocks it sent back: %+v", got, want, seen[len(seen)-1].Received)
			}
		})
	}

	t.Run("Gemini's thought signature through a tool call", func(t *testing.T) {
		p := params(sdkGemini, user(toolPrompt))
		p["tools"] = []any{map[string]any{"name": "Read", "description": "Reads a file", "input_schema": readToolSchema}}
		res := run(t, p, 0)
		ok(t, res)
		call := res.block("tool_use")
		if call == nil {
			t.Fatalf("no tool call: %+v", res.Message.Content)
		}
		p["messages"] = []any{user(toolPrompt), map[string]any{"role": "assistant", "content": res.Message.Content},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call["id"], "content": "# gw"}}}}
		res = run(t, p, 0) // the stand-in refuses a call given back without its signature, as Gemini does
		ok(t, res)
		if !strings.HasPrefix(res.text(), "Tool result received") {
			t.Errorf("the second turn's text %q", res.text())
		}
	})

	t.Run("the SDK aborts the stream: the service's answer is cancelled", func(t *testing.T) {
		faults.set(t, "slow-stream:50ms", -1)
		var res anthropicResult
		sdk.run(t, map[string]any{"params": params(sdkPlain, user("hi")), "maxRetries": 0, "abortOnText": true}, &res)
		if res.Error == nil || res.Error.Class != "APIUserAbortError" {
			t.Fatalf("the SDK gave %+v, want an APIUserAbortError", res.Error)
		}
		serviceCancelled(t, r)
	})

	t.Run("models listed in Anthropic's shape, page by page, and each retrieved", func(t *testing.T) {
		var res anthropicResult
		sdk.run(t, map[string]any{"api": "models", "params": map[string]any{"limit": 3}, "maxRetries": 0}, &res)
		if res.Error != nil {
			t.Fatalf("the SDK failed: %+v", res.Error)
		}
		var ids []string
		for _, m := range res.Models {
			ids = append(ids, m.ID)
			if m.Type != "model" || m.DisplayName == "" || m.CreatedAt == "" {
				t.Errorf("a model not in Anthropic's shape: %+v", m)
			}
		}
		if want := standin.ModelIDs(); strings.Join(ids, " ") != strings.Join(want, " ") {
			t.Errorf("the SDK listed %q, want %q", ids, want)
		}
		if n := len(res.Attempts) - len(res.Retrieved); n != 3 {
			t.Errorf("the SDK listed 8 models 3 a page in %d requests, want 3", n)
		}
		if len(res.Retrieved) != len(res.Models) {
			t.Fatalf("retrieved %d of %d models", len(res.Retrieved), len(res.Models))
		}
		for i, m := range res.Retrieved {
			if m != res.Models[i] {
				t.Errorf("retrieved %+v, listed %+v", m, res.Models[i])
			}
		}
	})

	t.Run("a rate limit: RateLimitError after the retries the headers time", func(t *testing.T) {
		faults.set(t, "429:100ms", -1)
		before := len(chatRequests(r))
		res := run(t, params(sdkPlain, user("hi")), 2)
		if e := res.Error; e == nil || e.Class != "RateLimitError" || e.Status == nil || *e.Status != 429 || deref(e.Type) != "rate_limit_error" {
			t.Fatalf("the SDK threw %+v, want a RateLimitError with status 429", res.Error)
		}
		if n := len(chatRequests(r)) - before; n != 3 {
			t.Errorf("the service got %d requests, want 3 (the SDK's 2 retries)", n)
		}
		retriedAsTold(t, res.recorded, 3, 429)
	})

	t.Run("a rate limit with Retry-After alone: the SDK waits its seconds", func(t *testing.T) {
		faults.set(t, "429:100ms", 1)
		faults.mu.Lock()
		faults.secondsOnly = true
		faults.mu.Unlock()
		res := run(t, params(sdkPlain, user("hi")), 2)
		ok(t, res)
		retriedAfterSeconds(t, res.recorded)
	})

	t.Run("a rate limit that passes: the answer after two retries", func(t *testing.T) {
		faults.set(t, "429:100ms", 2)
		res := run(t, params(sdkPlain, user("hi")), 2)
		ok(t, res)
		if res.text() != standin.Greeting(sdkPlain) {
			t.Errorf("text %q", res.text())
		}
		retriedAsTold(t, res.recorded, 3, 200)
	})

	for _, fault := range []string{"529:100ms", "503:100ms"} {
		t.Run("overloaded ("+fault+"): OverloadedError 529, retried as the headers say", func(t *testing.T) {
			faults.set(t, fault, -1)
			res := run(t, params(sdkPlain, user("hi")), 1)
			if e := res.Error; e == nil || e.Class != "OverloadedError" || e.Status == nil || *e.Status != 529 || deref(e.Type) != "overloaded_error" {
				t.Fatalf("the SDK threw %+v, want an OverloadedError with status 529", res.Error)
			}
			retriedAsTold(t, res.recorded, 2, 529)
		})
	}

	t.Run("the service's connection breaks mid-stream: the stream's error, not a truncated message", func(t *testing.T) {
		faults.set(t, "reset:3", -1)
		res := run(t, params(sdkPlain, user("hi")), 2)
		if e := res.Error; e == nil || !e.IsAPIError || deref(e.Type) != "api_error" || !strings.Contains(e.Message, cutWords) {
			t.Fatalf("the SDK gave %+v, want an APIError api_error saying %q", res.Error, cutWords)
		}
		if len(res.Attempts) != 1 {
			t.Errorf("attempts %+v", res.Attempts)
		}
	})

	t.Run("an unknown model: BadRequestError naming it and the id to use, not retried", func(t *testing.T) {
		res := run(t, params("vendor-a/model-a-sonet-4.5", user("hi")), 2)
		if e := res.Error; e == nil || e.Class != "BadRequestError" || !strings.Contains(e.Message, "model-a-sonet-4.5") || !strings.Contains(e.Message, "use the exact id: "+sonnet) {
			t.Fatalf("the SDK threw %+v, want a BadRequestError naming the model and the id to use", res.Error)
		}
		if len(res.Attempts) != 1 || deref(res.Attempts[0].ShouldRetry) != "false" {
			t.Errorf("attempts %+v: the SDK may retry what no retry fixes", res.Attempts)
		}
	})

	t.Run("context overflow: BadRequestError in Anthropic's words, not retried", func(t *testing.T) {
		faults.set(t, "overflow", -1)
		res := run(t, params(sdkPlain, user("hi")), 2)
		if e := res.Error; e == nil || e.Class != "BadRequestError" || e.Status == nil || *e.Status != 400 ||
			deref(e.Type) != "invalid_request_error" || e.Message != overflowWant {
			t.Fatalf("the SDK threw %+v, want a BadRequestError %q", res.Error, overflowWant)
		}
		if len(res.Attempts) != 1 || len(res.Sleeps) != 0 {
			t.Errorf("the SDK retried an overflow: %+v", res.recorded)
		}
	})

	t.Run("context overflow mid-stream: the stream's error in Anthropic's words", func(t *testing.T) {
		faults.set(t, "overflow:3", -1)
		res := run(t, params(sdkPlain, user("hi")), 2)
		if e := res.Error; e == nil || !e.IsAPIError || deref(e.Type) != "invalid_request_error" || e.Message != overflowWant {
			t.Fatalf("the SDK threw %+v, want an APIError invalid_request_error %q", res.Error, overflowWant)
		}
		if len(res.Attempts) != 1 || res.Attempts[0].Status != 200 {
			t.Errorf("attempts %+v", res.Attempts)
		}
	})
}
