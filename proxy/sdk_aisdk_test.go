package proxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgateway/gw/standin"
)

// aiError is an error of the AI SDK as the driver describes it: an Error's
// class and fields, or an error object of the stream (Class "Object", Data).
type aiError struct {
	Class        string         `json:"class"`
	Message      string         `json:"message"`
	StatusCode   *int           `json:"statusCode"`
	IsRetryable  *bool          `json:"isRetryable"`
	Reason       *string        `json:"reason"`
	RetryAfter   *string        `json:"retryAfter"`
	RetryAfterMs *string        `json:"retryAfterMs"`
	Errors       int            `json:"errors"`
	LastError    *aiError       `json:"lastError"`
	Data         map[string]any `json:"data"`
}

type aiResult struct {
	recorded
	Parts []map[string]any `json:"parts"`
	Usage *struct {
		InputTokens       int `json:"inputTokens"`
		OutputTokens      int `json:"outputTokens"`
		InputTokenDetails struct {
			CacheReadTokens  *int `json:"cacheReadTokens"`
			CacheWriteTokens *int `json:"cacheWriteTokens"`
		} `json:"inputTokenDetails"`
	} `json:"usage"`
	Messages []any    `json:"messages"`
	Error    *aiError `json:"error"`
}

func (a aiResult) text() string {
	var b strings.Builder
	for _, p := range a.Parts {
		if p["type"] == "text-delta" || p["type"] == "text" {
			b.WriteString(p["text"].(string))
		}
	}
	return b.String()
}

func (a aiResult) part(kind string) map[string]any {
	for _, p := range a.Parts {
		if p["type"] == kind {
			return p
		}
	}
	return nil
}

// streamError is the stream's error part, or the error the driver caught.
func (a aiResult) streamError() *aiError {
	if p := a.part("error"); p != nil {
		b, _ := json.Marshal(p["error"])
		var e aiError
		_ = json.Unmarshal(b, &e)
		return &e
	}
	return a.Error
}

// providerMeta is the value of key in a part's providerMetadata for the provider.
func providerMeta(p map[string]any, provider, key string) string {
	pm, _ := p["providerMetadata"].(map[string]any)
	m, _ := pm[provider].(map[string]any)
	s, _ := m[key].(string)
	return s
}

// TestSDKAISDKThroughServe: the AI SDK's streamText with @ai-sdk/anthropic
// against gw serve's Messages API and @ai-sdk/openai's responses provider
// against its Responses API. Both check every event against their schemas.
// For each: the text, usage with the cache reads, a tool call and its result
// (the Responses one through the AI SDK's default item_reference to the
// stored call), reasoning with its signature or encrypted content given back
// on the next turn, Gemini's thought signature through a tool call, and the
// errors as the AI SDK reports them, retried as the retry headers say.
func TestSDKAISDKThroughServe(t *testing.T) {
	dir := sdkDir(t, "ai-sdk", "ai", "@ai-sdk/anthropic", "@ai-sdk/openai")
	r, faults := sdkRig(t)
	sdk := startSDK(t, r, "ai-sdk.mjs", dir)
	user := func(text string) map[string]any { return map[string]any{"role": "user", "content": text} }
	tools := map[string]any{"Read": map[string]any{"description": "Reads a file", "parameters": readToolSchema}}
	// The Responses provider's option to send the items themselves, not references to stored ones.
	noStore := map[string]any{"openai": map[string]any{"store": false}}

	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			run := func(t *testing.T, c map[string]any) aiResult {
				t.Helper()
				c["provider"] = provider
				if _, ok := c["maxRetries"]; !ok {
					c["maxRetries"] = 0
				}
				var res aiResult
				sdk.run(t, c, &res)
				return res
			}
			ok := func(t *testing.T, res aiResult) {
				t.Helper()
				if e := res.streamError(); e != nil {
					t.Fatalf("the SDK failed: %+v", e)
				}
			}
			toolResult := func(call map[string]any) map[string]any {
				return map[string]any{"role": "tool", "content": []any{map[string]any{"type": "tool-result",
					"toolCallId": call["toolCallId"], "toolName": call["toolName"], "output": map[string]any{"type": "text", "value": "# gw"}}}}
			}

			t.Run("text and usage, cached on the second turn", func(t *testing.T) {
				c := map[string]any{"model": sdkPlain}
				if provider == "anthropic" {
					c["messages"] = []any{map[string]any{"role": "system", "content": longText,
						"providerOptions": map[string]any{"anthropic": map[string]any{"cacheControl": map[string]any{"type": "ephemeral"}}}}, user("hi")}
				} else {
					c["system"], c["messages"] = longText, []any{user("hi")}
					c["providerOptions"] = map[string]any{"openai": map[string]any{"promptCacheKey": "sdk-session-2", "store": false}}
				}
				for turn := 1; turn <= 2; turn++ {
					res := run(t, c)
					ok(t, res)
					seen := chatRequests(r)
					last := seen[len(seen)-1]
					if got, want := res.text(), standin.Greeting(sdkPlain); got != want {
						t.Errorf("turn %d: text %q, want %q", turn, got, want)
					}
					u := res.Usage
					if u == nil || u.InputTokenDetails.CacheReadTokens == nil {
						t.Fatalf("turn %d: usage without the cache reads: %+v", turn, u)
					}
					if u.InputTokens != last.PromptTokens || *u.InputTokenDetails.CacheReadTokens != last.CachedTokens || u.OutputTokens <= 0 {
						t.Errorf("turn %d: the SDK's usage %+v (read %d), the service billed %d prompt tokens, %d read",
							turn, u, *u.InputTokenDetails.CacheReadTokens, last.PromptTokens, last.CachedTokens)
					}
					if w := u.InputTokenDetails.CacheWriteTokens; provider == "anthropic" && (w == nil || *w != last.CacheWriteTokens) {
						t.Errorf("turn %d: cache writes %v, the service wrote %d", turn, w, last.CacheWriteTokens)
					}
					if turn == 2 && *u.InputTokenDetails.CacheReadTokens == 0 {
						t.Errorf("the second turn read nothing from the cache")
					}
				}
			})

			t.Run("two parallel tool calls and their results", func(t *testing.T) {
				c := map[string]any{"model": sdkPlain, "messages": []any{user(parallelPrompt)}, "tools": tools}
				if provider == "openai" {
					c["providerOptions"] = noStore
				}
				res := run(t, c)
				ok(t, res)
				var inputs []string
				var results []any
				for _, p := range res.Parts {
					if p["type"] == "tool-call" && p["toolName"] == "Read" {
						in, _ := json.Marshal(p["input"])
						inputs = append(inputs, string(in))
						results = append(results, toolResult(p)["content"].([]any)...)
					}
				}
				if strings.Join(inputs, " ") != strings.Join(wantReads, " ") {
					t.Fatalf("the SDK assembled the calls %q, want %q", inputs, wantReads)
				}
				if fin := res.part("finish"); fin["finishReason"] != "tool-calls" {
					t.Errorf("finish %+v", fin)
				}
				c["messages"] = append(append([]any{user(parallelPrompt)}, res.Messages...), map[string]any{"role": "tool", "content": results})
				res = run(t, c)
				ok(t, res)
				if !strings.HasPrefix(res.text(), "Tool result received: «# gw»") {
					t.Errorf("the second turn's text %q", res.text())
				}
			})

			t.Run("a call without arguments", func(t *testing.T) {
				c := map[string]any{"model": sdkPlain, "messages": []any{user(noArgsPrompt)},
					"tools": map[string]any{"Status": map[string]any{"description": "Shows the status", "parameters": noArgsSchema}}}
				if provider == "openai" {
					c["providerOptions"] = noStore
				}
				res := run(t, c)
				ok(t, res)
				call := res.part("tool-call")
				if in, _ := json.Marshal(call["input"]); call == nil || call["toolName"] != "Status" || string(in) != `{}` {
					t.Fatalf("no call of Status with the input {}: %+v", res.Parts)
				}
			})

			t.Run("whole answers (generateText): two parallel calls, reasoning given back", func(t *testing.T) {
				c := map[string]any{"model": sdkPlain, "messages": []any{user(parallelPrompt)}, "tools": tools, "stream": false}
				res := run(t, c)
				ok(t, res)
				var inputs []string
				for _, p := range res.Parts {
					if p["type"] == "tool-call" && p["toolName"] == "Read" {
						in, _ := json.Marshal(p["input"])
						inputs = append(inputs, string(in))
					}
				}
				if strings.Join(inputs, " ") != strings.Join(wantReads, " ") {
					t.Errorf("the SDK read the calls %q, want %q", inputs, wantReads)
				}
				seen := chatRequests(r)
				if u := res.Usage; u == nil || u.InputTokens != seen[len(seen)-1].PromptTokens || u.OutputTokens <= 0 {
					t.Errorf("usage %+v, the service billed %d prompt tokens", u, seen[len(seen)-1].PromptTokens)
				}

				c = map[string]any{"model": sdkSigned, "messages": []any{user("think first")}, "stream": false}
				if provider == "anthropic" {
					c["providerOptions"] = map[string]any{"anthropic": map[string]any{"thinking": map[string]any{"type": "enabled", "budgetTokens": 1024}}}
				} else {
					c["providerOptions"] = map[string]any{"openai": map[string]any{"forceReasoning": true, "reasoningSummary": "auto", "store": false,
						"include": []string{"reasoning.encrypted_content"}}}
				}
				res = run(t, c)
				ok(t, res)
				sealed := ""
				for _, p := range res.Parts {
					if p["type"] == "reasoning" {
						sealed = cmpOr(sealed, providerMeta(p, "anthropic", "signature"), providerMeta(p, "openai", "reasoningEncryptedContent"))
					}
				}
				if sealed == "" {
					t.Fatalf("no reasoning with its signature or encrypted content: %+v", res.Parts)
				}
				sent := chatRequests(r)
				c["messages"] = append(append([]any{user("think first")}, res.Messages...), user("and now?"))
				res = run(t, c)
				ok(t, res)
				seen = chatRequests(r)
				if got, want := len(seen[len(seen)-1].Received), len(sent[len(sent)-1].Sent); got != want || want == 0 {
					t.Errorf("the service got %d of the %d signatures and encrypted blocks it sent back", got, want)
				}
			})

			if provider == "openai" {
				t.Run("the default store: the next turn refers to the stored items", func(t *testing.T) {
					// The Responses provider stores by default, and gives the
					// output of a stored response back as item_references.
					c := map[string]any{"model": sdkPlain, "messages": []any{user(toolPrompt)}, "tools": tools}
					res := run(t, c)
					ok(t, res)
					call := res.part("tool-call")
					if call == nil {
						t.Fatalf("no tool call: %+v", res.Parts)
					}
					c["messages"] = append(append([]any{user(toolPrompt)}, res.Messages...), toolResult(call))
					res = run(t, c)
					ok(t, res)
					if !strings.HasPrefix(res.text(), "Tool result received: «# gw»") {
						t.Errorf("the second turn's text %q", res.text())
					}
				})
			}

			t.Run("reasoning given back", func(t *testing.T) {
				c := map[string]any{"model": sdkSigned, "messages": []any{user("think first")}}
				if provider == "anthropic" {
					c["providerOptions"] = map[string]any{"anthropic": map[string]any{"thinking": map[string]any{"type": "enabled", "budgetTokens": 1024}}}
				} else {
					c["providerOptions"] = map[string]any{"openai": map[string]any{"forceReasoning": true, "reasoningSummary": "auto", "store": false,
						"include": []string{"reasoning.encrypted_content"}}}
				}
				res := run(t, c)
				ok(t, res)
				var text, sig, sealed string
				for _, p := range res.Parts {
					switch p["type"] {
					case "reasoning-delta":
						text += p["text"].(string)
						fallthrough
					case "reasoning-start", "reasoning-end":
						sig = cmpOr(sig, providerMeta(p, "anthropic", "signature"))
						sealed = cmpOr(sealed, providerMeta(p, "anthropic", "redactedData"), providerMeta(p, "openai", "reasoningEncryptedContent"))
					}
				}
				if text == "" || provider == "anthropic" && sig == "" || sealed == "" {
					t.Fatalf("reasoning %q, signature %q, encrypted %q: %+v", text, sig, sealed, res.Parts)
				}
				sent := chatRequests(r)
				c["messages"] = append(append([]any{user("think first")}, res.Messages...), user("and now?"))
				res = run(t, c)
				ok(t, res)
				seen := chatRequests(r)
				if got, want := len(seen[len(seen)-1].Received), len(sent[len(sent)-1].Sent); got != want || want == 0 {
					t.Errorf("the service got %d of the %d signatures and encrypted blocks it sent back: %+v", got, want, seen[len(seen)-1].Received)
				}
			})

			t.Run("Gemini's thought signature through a tool call", func(t *testing.T) {
				c := map[string]any{"model": sdkGemini, "messages": []any{user(toolPrompt)}, "tools": tools}
				if provider == "openai" {
					c["providerOptions"] = noStore
				}
				res := run(t, c)
				ok(t, res)
				call := res.part("tool-call")
				if call == nil {
					t.Fatalf("no tool call: %+v", res.Parts)
				}
				c["messages"] = append(append([]any{user(toolPrompt)}, res.Messages...), toolResult(call))
				res = run(t, c) // the stand-in refuses a call given back without its signature, as Gemini does
				ok(t, res)
				if !strings.HasPrefix(res.text(), "Tool result received") {
					t.Errorf("the second turn's text %q", res.text())
				}
			})

			t.Run("a rate limit: a RetryError after the retries the headers time", func(t *testing.T) {
				faults.set(t, "429:100ms", -1)
				res := run(t, map[string]any{"model": sdkPlain, "messages": []any{user("hi")}, "maxRetries": 2})
				e := res.streamError()
				if e == nil || e.Class != "RetryError" || deref(e.Reason) != "maxRetriesExceeded" || e.Errors != 3 ||
					e.LastError == nil || e.LastError.StatusCode == nil || *e.LastError.StatusCode != 429 {
					t.Fatalf("the SDK reported %+v, want a RetryError after 3 attempts, the last a 429", e)
				}
				if l := e.LastError; deref(l.RetryAfterMs) != "100" {
					t.Errorf("the SDK's error lacks the service's retry-after-ms: %+v", l)
				}
				retriedAsTold(t, res.recorded, 3, 429)
			})

			for _, fault := range []string{"529:100ms", "503:100ms"} {
				t.Run("overloaded ("+fault+"): retried as the headers say", func(t *testing.T) {
					faults.set(t, fault, -1)
					want := 529
					if provider == "openai" {
						want = 503 // OpenAI's overloaded
					}
					res := run(t, map[string]any{"model": sdkPlain, "messages": []any{user("hi")}, "maxRetries": 1})
					e := res.streamError()
					if e == nil || e.Class != "RetryError" || e.LastError == nil || e.LastError.StatusCode == nil || *e.LastError.StatusCode != want {
						t.Fatalf("the SDK reported %+v, want a RetryError, the last attempt a %d", e, want)
					}
					retriedAsTold(t, res.recorded, 2, want)
				})
			}

			t.Run("the service's connection breaks mid-stream: the stream's error part", func(t *testing.T) {
				faults.set(t, "reset:3", -1)
				res := run(t, map[string]any{"model": sdkPlain, "messages": []any{user("hi")}, "maxRetries": 2})
				e := res.streamError()
				if b, _ := json.Marshal(e); e == nil || !strings.Contains(string(b), cutWords) {
					t.Fatalf("the error part %s does not say %q", b, cutWords)
				}
				if fin := res.part("finish"); fin != nil && fin["finishReason"] != "error" {
					t.Errorf("the stream finished %v after its error", fin["finishReason"])
				}
				if len(res.Attempts) != 1 {
					t.Errorf("attempts %+v", res.Attempts)
				}
			})

			t.Run("context overflow: an APICallError 400, not retried", func(t *testing.T) {
				faults.set(t, "overflow", -1)
				res := run(t, map[string]any{"model": sdkPlain, "messages": []any{user("hi")}, "maxRetries": 2})
				e := res.streamError()
				if e == nil || e.Class != "APICallError" || e.StatusCode == nil || *e.StatusCode != 400 || e.IsRetryable == nil || *e.IsRetryable {
					t.Fatalf("the SDK reported %+v, want a final APICallError 400", e)
				}
				if provider == "anthropic" && e.Message != overflowWant || provider == "openai" && !strings.Contains(e.Message, "200001 tokens > 200000 maximum") {
					t.Errorf("message %q", e.Message)
				}
				if len(res.Attempts) != 1 || len(res.Sleeps) != 0 {
					t.Errorf("the SDK retried an overflow: %+v", res.recorded)
				}
			})

			t.Run("context overflow mid-stream: the stream's error part", func(t *testing.T) {
				faults.set(t, "overflow:3", -1)
				res := run(t, map[string]any{"model": sdkPlain, "messages": []any{user("hi")}, "maxRetries": 2})
				e := res.streamError()
				if e == nil {
					t.Fatalf("no error part: %+v", res.Parts)
				}
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(e)
				if !strings.Contains(b.String(), "200001 tokens > 200000 maximum") {
					t.Errorf("the error part does not say the counts: %s", b.String())
				}
				if len(res.Attempts) != 1 {
					t.Errorf("attempts %+v", res.Attempts)
				}
			})
		})
	}
}

// cmpOr is the first non-empty string.
func cmpOr(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
