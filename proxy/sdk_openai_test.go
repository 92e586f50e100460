package proxy

import (
	"strings"
	"testing"

	"github.com/modelgateway/gw/standin"
)

type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

type openaiResult struct {
	recorded
	Response *struct {
		ID     string           `json:"id"`
		Status string           `json:"status"`
		Store  bool             `json:"store"`
		Output []map[string]any `json:"output"`
		Usage  *responsesUsage  `json:"usage"`
		Error  *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"response"`
	CreatedUsage *responsesUsage `json:"createdUsage"`
	Summaries    []string        `json:"summaries"`
	Error        *sdkError       `json:"error"`
}

func (o openaiResult) text() string {
	var b strings.Builder
	for _, it := range o.Response.Output {
		if it["type"] != "message" {
			continue
		}
		for _, c := range it["content"].([]any) {
			if c, _ := c.(map[string]any); c["type"] == "output_text" {
				b.WriteString(c["text"].(string))
			}
		}
	}
	return b.String()
}

func (o openaiResult) item(kind string) map[string]any {
	for _, it := range o.Response.Output {
		if it["type"] == kind {
			return it
		}
	}
	return nil
}

// TestSDKOpenAIResponsesStreamThroughServe: the openai SDK's
// responses.stream, which assembles every event into its snapshot and
// throws on one that does not fit, against gw serve's Responses API: the
// text, usage with the cached tokens under a prompt_cache_key (and an
// estimate in response.created), tool calls and their results, reasoning
// with its encrypted content and summary given back on the next turn, and
// the errors with the SDK's classes, retried as the retry headers say.
func TestSDKOpenAIResponsesStreamThroughServe(t *testing.T) {
	dir := sdkDir(t, "openai-sdk", "openai")
	r, faults := sdkRig(t)
	sdk := startSDK(t, r, "openai.mjs", dir)
	user := func(text string) map[string]any { return map[string]any{"role": "user", "content": text} }
	params := func(model string, input ...any) map[string]any {
		return map[string]any{"model": model, "input": input, "store": false}
	}
	run := func(t *testing.T, p map[string]any, retries int) openaiResult {
		t.Helper()
		var res openaiResult
		sdk.run(t, map[string]any{"params": p, "maxRetries": retries}, &res)
		return res
	}
	ok := func(t *testing.T, res openaiResult) {
		t.Helper()
		if res.Error != nil || res.Response == nil {
			t.Fatalf("the SDK failed: %+v", res.Error)
		}
		if res.Response.Status != "completed" {
			t.Fatalf("the response is %s: %+v", res.Response.Status, res.Response.Error)
		}
	}
	tools := []any{map[string]any{"type": "function", "name": "Read", "description": "Reads a file", "parameters": readToolSchema}}

	t.Run("text and usage, cached under a prompt_cache_key", func(t *testing.T) {
		p := params(sdkPlain, user("hi"))
		p["instructions"], p["prompt_cache_key"] = longText, "sdk-session-1"
		for turn := 1; turn <= 2; turn++ {
			res := run(t, p, 0)
			ok(t, res)
			seen := chatRequests(r)
			last := seen[len(seen)-1]
			if got, want := res.text(), standin.Greeting(sdkPlain); got != want {
				t.Errorf("turn %d: text %q, want %q", turn, got, want)
			}
			if res.CreatedUsage == nil || res.CreatedUsage.InputTokens < len(longText)/8 {
				t.Errorf("turn %d: response.created's usage %+v: no estimate of the prompt's %d tokens", turn, res.CreatedUsage, last.PromptTokens)
			}
			u := res.Response.Usage
			if u == nil || u.InputTokensDetails == nil {
				t.Fatalf("turn %d: the usage lacks input_tokens_details: %+v", turn, u)
			}
			if u.InputTokens != last.PromptTokens || u.InputTokensDetails.CachedTokens != last.CachedTokens || u.OutputTokens <= 0 {
				t.Errorf("turn %d: the SDK's usage %+v (cached %d), the service billed %d prompt tokens, %d cached",
					turn, u, u.InputTokensDetails.CachedTokens, last.PromptTokens, last.CachedTokens)
			}
			if turn == 2 && u.InputTokensDetails.CachedTokens == 0 {
				t.Errorf("the second turn read nothing from the cache")
			}
		}
	})

	t.Run("two parallel tool calls and their results", func(t *testing.T) {
		p := params(sdkPlain, user(parallelPrompt))
		p["tools"] = tools
		res := run(t, p, 0)
		ok(t, res)
		var inputs []string
		p["input"] = append([]any{user(parallelPrompt)}, anySlice(res.Response.Output)...)
		for _, it := range res.Response.Output {
			if it["type"] == "function_call" && it["name"] == "Read" {
				inputs = append(inputs, it["arguments"].(string))
				p["input"] = append(p["input"].([]any), map[string]any{"type": "function_call_output", "call_id": it["call_id"], "output": "# gw"})
			}
		}
		if strings.Join(inputs, " ") != strings.Join(wantReads, " ") {
			t.Fatalf("the SDK assembled the calls %q, want %q", inputs, wantReads)
		}
		res = run(t, p, 0)
		ok(t, res)
		if !strings.HasPrefix(res.text(), "Tool result received: «# gw»") {
			t.Errorf("the second turn's text %q", res.text())
		}
	})

	t.Run("a call without arguments", func(t *testing.T) {
		p := params(sdkPlain, user(noArgsPrompt))
		p["tools"] = []any{map[string]any{"type": "function", "name": "Status", "description": "Shows the status", "parameters": noArgsSchema}}
		res := run(t, p, 0)
		ok(t, res)
		if call := res.item("function_call"); call == nil || call["name"] != "Status" || call["arguments"] != `{}` {
			t.Fatalf("no call of Status with the arguments {}: %+v", res.Response.Output)
		}
	})

	t.Run("whole responses: two parallel calls, usage, reasoning given back", func(t *testing.T) {
		p := params(sdkPlain, user(parallelPrompt))
		p["tools"], p["stream"] = tools, false
		res := run(t, p, 0)
		ok(t, res)
		var inputs []string
		for _, it := range res.Response.Output {
			if it["type"] == "function_call" && it["name"] == "Read" {
				inputs = append(inputs, it["arguments"].(string))
			}
		}
		if strings.Join(inputs, " ") != strings.Join(wantReads, " ") {
			t.Errorf("the SDK read the calls %q, want %q", inputs, wantReads)
		}
		seen := chatRequests(r)
		if u := res.Response.Usage; u == nil || u.InputTokens != seen[len(seen)-1].PromptTokens || u.OutputTokens <= 0 {
			t.Errorf("usage %+v, the service billed %d prompt tokens", u, seen[len(seen)-1].PromptTokens)
		}

		p = params(sdkSigned, user("think first"))
		p["include"], p["reasoning"], p["stream"] = []string{"reasoning.encrypted_content"}, map[string]any{"summary": "auto"}, false
		res = run(t, p, 0)
		ok(t, res)
		if rs := res.item("reasoning"); rs == nil || rs["encrypted_content"] == nil || rs["encrypted_content"] == "" {
			t.Fatalf("no reasoning item with encrypted_content: %+v", res.Response.Output)
		}
		sent := chatRequests(r)
		p["input"] = append(append([]any{user("think first")}, anySlice(res.Response.Output)...), user("and now?"))
		res = run(t, p, 0)
		ok(t, res)
		seen = chatRequests(r)
		if got, want := len(seen[len(seen)-1].Received), len(sent[len(sent)-1].Sent); got != want || want == 0 {
			t.Errorf("the service got %d of the %d signatures and encrypted blocks it sent back", got, want)
		}
	})

	t.Run("store: true, and the next turn by previous_response_id", func(t *testing.T) {
		p := params(sdkPlain, user(toolPrompt))
		p["store"], p["tools"] = true, tools
		res := run(t, p, 0)
		ok(t, res)
		call := res.item("function_call")
		if call == nil {
			t.Fatalf("no tool call: %+v", res.Response.Output)
		}
		if !res.Response.Store {
			t.Errorf("the response says store: false")
		}
		p["previous_response_id"] = res.Response.ID
		p["input"] = []any{map[string]any{"type": "function_call_output", "call_id": call["call_id"], "output": "# gw"}}
		res = run(t, p, 0)
		ok(t, res)
		if !strings.HasPrefix(res.text(), "Tool result received: «# gw»") {
			t.Errorf("the second turn's text %q", res.text())
		}
	})

	t.Run("reasoning given back with its encrypted content", func(t *testing.T) {
		p := params(sdkSigned, user("think first"))
		p["include"] = []string{"reasoning.encrypted_content"}
		p["reasoning"] = map[string]any{"summary": "auto"}
		res := run(t, p, 0)
		ok(t, res)
		rs := res.item("reasoning")
		if rs == nil || rs["encrypted_content"] == nil || rs["encrypted_content"] == "" {
			t.Fatalf("no reasoning item with encrypted_content: %+v", res.Response.Output)
		}
		if strings.Join(res.Summaries, "") == "" {
			t.Errorf("the SDK saw no reasoning summary")
		}
		sent := chatRequests(r)
		p["input"] = append(append([]any{user("think first")}, anySlice(res.Response.Output)...), user("and now?"))
		res = run(t, p, 0)
		ok(t, res)
		seen := chatRequests(r)
		if got, want := len(seen[len(seen)-1].Received), len(sent[len(sent)-1].Sent); got != want || want == 0 {
			t.Errorf("the service got %d of the %d signatures and encrypted blocks it sent back: %+v", got, want, seen[len(seen)-1].Received)
		}
	})

	t.Run("Gemini's thought signature through a tool call", func(t *testing.T) {
		p := params(sdkGemini, user(toolPrompt))
		p["tools"] = tools
		res := run(t, p, 0)
		ok(t, res)
		call := res.item("function_call")
		if call == nil {
			t.Fatalf("no tool call: %+v", res.Response.Output)
		}
		p["input"] = append(append([]any{user(toolPrompt)}, anySlice(res.Response.Output)...),
			map[string]any{"type": "function_call_output", "call_id": call["call_id"], "output": "# gw"})
		res = run(t, p, 0) // the stand-in refuses a call given back without its signature, as Gemini does
		ok(t, res)
		if !strings.HasPrefix(res.text(), "Tool result received") {
			t.Errorf("the second turn's text %q", res.text())
		}
	})

	t.Run("the SDK aborts the stream: the service's answer is cancelled", func(t *testing.T) {
		faults.set(t, "slow-stream:50ms", -1)
		var res openaiResult
		sdk.run(t, map[string]any{"params": params(sdkPlain, user("hi")), "maxRetries": 0, "abortOnText": true}, &res)
		if res.Error == nil || res.Error.Class != "APIUserAbortError" {
			t.Fatalf("the SDK gave %+v, want an APIUserAbortError", res.Error)
		}
		serviceCancelled(t, r)
	})

	t.Run("a rate limit: RateLimitError after the retries the headers time", func(t *testing.T) {
		faults.set(t, "429:100ms", -1)
		before := len(chatRequests(r))
		res := run(t, params(sdkPlain, user("hi")), 2)
		if e := res.Error; e == nil || e.Class != "RateLimitError" || e.Status == nil || *e.Status != 429 {
			t.Fatalf("the SDK threw %+v, want a RateLimitError with status 429", res.Error)
		}
		if n := len(chatRequests(r)) - before; n != 3 {
			t.Errorf("the service got %d requests, want 3 (the SDK's 2 retries)", n)
		}
		retriedAsTold(t, res.recorded, 3, 429)
	})

	t.Run("the chat pass-through's rate limit, retried as the headers say", func(t *testing.T) {
		// What the translated route must match: the service's own answer
		// reaches the SDK as it is.
		faults.set(t, "429:100ms", -1)
		var res openaiResult
		sdk.run(t, map[string]any{"api": "chat", "params": map[string]any{"model": sdkPlain, "messages": []any{user("hi")}}, "maxRetries": 2}, &res)
		if e := res.Error; e == nil || e.Class != "RateLimitError" || e.Status == nil || *e.Status != 429 {
			t.Fatalf("the SDK threw %+v, want a RateLimitError with status 429", res.Error)
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
		retriedAsTold(t, res.recorded, 3, 200)
	})

	for _, fault := range []string{"529:100ms", "503:100ms"} {
		t.Run("overloaded ("+fault+"): InternalServerError 503, retried as the headers say", func(t *testing.T) {
			faults.set(t, fault, -1) // OpenAI's overloaded is a 503
			res := run(t, params(sdkPlain, user("hi")), 1)
			// A 503 is the service's, whatever its reason; only a 529 is
			// said to be an overload.
			if e := res.Error; e == nil || e.Class != "InternalServerError" || e.Status == nil || *e.Status != 503 ||
				strings.HasPrefix(fault, "529") && deref(e.Code) != "server_is_overloaded" {
				t.Fatalf("the SDK threw %+v, want an InternalServerError 503 (server_is_overloaded for a 529)", res.Error)
			}
			retriedAsTold(t, res.recorded, 2, 503)
		})
	}

	t.Run("the service's connection breaks mid-stream: response.failed, not a truncated response", func(t *testing.T) {
		faults.set(t, "reset:3", -1)
		res := run(t, params(sdkPlain, user("hi")), 2)
		if res.Error != nil || res.Response == nil || res.Response.Status != "failed" || res.Response.Error == nil ||
			!strings.Contains(res.Response.Error.Message, cutWords) {
			t.Fatalf("the SDK gave %+v, error %+v; want a failed response saying %q", res.Response, res.Error, cutWords)
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
		if len(res.Attempts) != 1 {
			t.Errorf("attempts %+v", res.Attempts)
		}
	})

	t.Run("context overflow: BadRequestError context_length_exceeded, not retried", func(t *testing.T) {
		faults.set(t, "overflow", -1)
		res := run(t, params(sdkPlain, user("hi")), 2)
		if e := res.Error; e == nil || e.Class != "BadRequestError" || e.Status == nil || *e.Status != 400 || deref(e.Code) != "context_length_exceeded" {
			t.Fatalf("the SDK threw %+v, want a BadRequestError context_length_exceeded", res.Error)
		}
		if len(res.Attempts) != 1 || len(res.Sleeps) != 0 {
			t.Errorf("the SDK retried an overflow: %+v", res.recorded)
		}
	})

	t.Run("context overflow mid-stream: response.failed with context_length_exceeded", func(t *testing.T) {
		faults.set(t, "overflow:3", -1)
		res := run(t, params(sdkPlain, user("hi")), 2)
		if res.Error != nil || res.Response == nil || res.Response.Status != "failed" || res.Response.Error == nil ||
			res.Response.Error.Code != "context_length_exceeded" {
			t.Fatalf("the SDK gave %+v, error %+v; want a failed response with context_length_exceeded", res.Response, res.Error)
		}
		if len(res.Attempts) != 1 {
			t.Errorf("attempts %+v", res.Attempts)
		}
	})
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
