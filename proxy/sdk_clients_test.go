package proxy

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/standin"
)

// sdkClient is one official SDK over one protocol of gw serve: its driver,
// what it reports and what it cannot, and its own scenarios.
type sdkClient struct {
	name           string
	script, dir    string
	args           []string // the driver's, after the SDK's directory
	pkgs           []string // in .cache/<dir>
	stop, toolUse  string   // how an answer ends, and one with tool calls ("": no such word)
	noRetries      bool     // the SDK makes one attempt
	seesSignatures bool     // a call's thought signature reaches the client as it is
	minChunks      int      // a short answer's stream comes in at least these chunks; 0: not counted
	// lacks: what the protocol or the SDK cannot express, a scenario or
	// one of its checks by name, and why.
	lacks map[string]string
	errs  map[string]sdkWant // the error of each fault or refusal
	own   []sdkScenario
}

// tries is how many attempts the client makes with retries allowed.
func (c *sdkClient) tries(retries int) int {
	if c.noRetries {
		return 1
	}
	return retries + 1
}

// noShouldRetry: x-should-retry is the Messages API's header; the other
// protocols' SDKs do not retry a 400 anyway.
const noShouldRetry = "gw serve sends x-should-retry on the Messages API only"

const overflowCounts = "200001 tokens > 200000 maximum"

var sdkClients = []sdkClient{
	{
		name: "anthropic-sdk Messages", script: "anthropic.mjs", dir: "anthropic-sdk", pkgs: []string{"@anthropic-ai/sdk"},
		stop: "end_turn", toolUse: "tool_use",
		errs: map[string]sdkWant{
			"abort":               {class: "APIUserAbortError"},
			"429":                 {class: "RateLimitError", status: 429, kind: "rate_limit_error"},
			"529":                 {class: "OverloadedError", status: 529, kind: "overloaded_error"},
			"503":                 {class: "OverloadedError", status: 529, kind: "overloaded_error"},
			"reset":               {class: "APIError", kind: "api_error", says: cutWords},
			"unknown model":       {class: "BadRequestError", status: 400, kind: "invalid_request_error"},
			"overflow":            {class: "BadRequestError", status: 400, kind: "invalid_request_error", says: overflowWant, exact: true},
			"overflow mid-stream": {class: "APIError", kind: "invalid_request_error", says: overflowWant, exact: true},
			"wrong key":           {class: "AuthenticationError", status: 401, kind: "authentication_error"},
			"unreachable":         {class: "InternalServerError", status: 502, kind: "api_error"},
		},
		own: append(slices.Clone(messagesScenarios), anthropicScenarios...),
	},
	{
		name: "openai Responses", script: "openai.mjs", dir: "openai-sdk", pkgs: []string{"openai"},
		stop: "completed", toolUse: "completed",
		lacks: map[string]string{
			"cache writes":        "the Responses API's usage counts no cache writes",
			"reasoning signature": "the Responses API carries a signature sealed in encrypted_content",
			"should-retry":        noShouldRetry,
		},
		errs: map[string]sdkWant{
			"abort": {class: "APIUserAbortError"},
			"429":   {class: "RateLimitError", status: 429},
			// A 503 is the service's, whatever its reason; only a 529 is
			// said to be an overload.
			"529":                 {class: "InternalServerError", status: 503, kind: "server_is_overloaded"},
			"503":                 {class: "InternalServerError", status: 503},
			"reset":               {class: "ResponseFailed", says: cutWords},
			"unknown model":       {class: "BadRequestError", status: 400},
			"overflow":            {class: "BadRequestError", status: 400, kind: "context_length_exceeded"},
			"overflow mid-stream": {class: "ResponseFailed", kind: "context_length_exceeded"},
			// The Responses API answers a rejected key 400 (see
			// protocol/responses).
			"wrong key":   {class: "BadRequestError", status: 400, kind: "invalid_api_key"},
			"unreachable": {class: "InternalServerError", status: 502, kind: "upstream_unreachable"},
		},
		own: openaiScenarios,
	},
	aiSDK("anthropic", 529, map[string]string{}),
	aiSDK("openai", 503, map[string]string{
		"should-retry":        noShouldRetry,
		"cache writes":        "the Responses API's usage counts no cache writes",
		"reasoning signature": "the Responses API carries a signature sealed in encrypted_content",
	}),
	{
		name: "genai Gemini API", script: "genai.mjs", dir: "genai", pkgs: []string{"@google/genai"},
		stop: "STOP", toolUse: "STOP", noRetries: true, seesSignatures: true, minChunks: 3,
		lacks: map[string]string{
			"estimate":             "the Gemini API's usage comes with the answer only",
			"cache":                "the Gemini API has no way to mark a prompt for caching that gw could pass on (cachedContent names a cache gw does not keep)",
			"cache writes":         "the Gemini API counts no cache writes",
			"reasoning signature":  "the Gemini API signs function calls only",
			"sealed reasoning":     "the Gemini API has no encrypted reasoning",
			"reasoning events":     "the Gemini API's thoughts are the parts themselves",
			"reasoning given back": "the Gemini API gives thoughts back as text, without the service's signatures and encrypted blocks",
			"error headers":        "@google/genai's ApiError keeps no headers",
			"should-retry":         noShouldRetry,
			"a rate limit with Retry-After alone: the SDK waits its seconds": "@google/genai makes one attempt (Gemini CLI retries on its own)",
			"a rate limit that passes: the answer after two retries":         "@google/genai makes one attempt (Gemini CLI retries on its own)",
		},
		errs: map[string]sdkWant{
			"abort": {class: "AbortError"},
			"429":   {class: "ApiError", status: 429},
			"529":   {class: "ApiError", status: 529},
			"503":   {class: "ApiError", status: 503},
			// @google/genai reads gw's error object as an ApiError only when
			// it comes in a read of its own; when it arrives with the events
			// before it, the client fails with its "Incomplete JSON segment"
			// error instead (which Gemini CLI retries). Either way the
			// stream never ends as if complete.
			"reset":               {class: "ApiError", status: 502, says: "broke off", or: incomplete},
			"unknown model":       {class: "ApiError", status: 400},
			"overflow":            {class: "ApiError", status: 400, says: overflowCounts},
			"overflow mid-stream": {class: "ApiError", says: overflowCounts, or: incomplete},
			"wrong key":           {class: "ApiError", status: 401},
			"unreachable":         {class: "ApiError", status: 400},
		},
		own: genaiScenarios,
	},
}

// incomplete is how @google/genai fails on a stream whose error object came
// in the same read as the events before it.
var incomplete = &sdkWant{class: "Error", says: "Incomplete JSON segment"}

// aiSDK is the AI SDK with one of its providers; overloaded is the status
// the protocol gives an overload.
func aiSDK(provider string, overloaded int, lacks map[string]string) sdkClient {
	lacks["estimate"] = "the AI SDK gives the usage at the stream's end only"
	if provider == "openai" {
		lacks["reasoning events"] = "the AI SDK's reasoning parts are the reasoning's text"
	}
	wrongKey := 401
	if provider == "openai" {
		wrongKey = 400 // see openai's
	}
	overflow := sdkWant{class: "APICallError", status: 400, says: overflowCounts, final: true}
	if provider == "anthropic" {
		overflow.says, overflow.exact = overflowWant, true
	}
	c := sdkClient{
		name: "ai-sdk " + provider, script: "ai-sdk.mjs", dir: "ai-sdk", args: []string{provider},
		pkgs: []string{"ai", "@ai-sdk/anthropic", "@ai-sdk/openai"}, stop: "stop", toolUse: "tool-calls",
		lacks: lacks,
		errs: map[string]sdkWant{
			"abort":               {class: "abort"},
			"429":                 {class: "RetryError", status: 429, kind: "maxRetriesExceeded"},
			"529":                 {class: "RetryError", status: overloaded},
			"503":                 {class: "RetryError", status: overloaded},
			"reset":               {class: "Object", says: cutWords},
			"unknown model":       {class: "APICallError", status: 400},
			"overflow":            overflow,
			"overflow mid-stream": {class: "Object", says: overflowCounts},
			"wrong key":           {class: "APICallError", status: wrongKey},
			"unreachable":         {class: "APICallError", status: 502},
		},
	}
	if provider == "openai" {
		c.own = aiSDKOpenAIScenarios
	} else {
		c.own = messagesScenarios
	}
	return c
}

// anthropicScenarios are the Messages API's own: its model list, and what
// the newest agents send.
var anthropicScenarios = []sdkScenario{
	{"models listed in Anthropic's shape, page by page, and each retrieved", func(t *testing.T, x *sdkRun) {
		res := x.turn(t, sdkCase{API: "models", Native: map[string]any{"limit": 3}})
		if res.Error != nil {
			t.Fatalf("the SDK failed: %+v", res.Error)
		}
		models, _ := res.Native["models"].([]any)
		retrieved, _ := res.Native["retrieved"].([]any)
		var ids []string
		for i, m := range models {
			m, _ := m.(map[string]any)
			ids = append(ids, str(m["id"]))
			if m["type"] != "model" || str(m["display_name"]) == "" || str(m["created_at"]) == "" {
				t.Errorf("a model not in Anthropic's shape: %+v", m)
			}
			if i < len(retrieved) && !reflect.DeepEqual(retrieved[i], any(m)) {
				t.Errorf("retrieved %+v, listed %+v", retrieved[i], m)
			}
		}
		if want := standin.ModelIDs(); strings.Join(ids, " ") != strings.Join(want, " ") {
			t.Errorf("the SDK listed %q, want %q", ids, want)
		}
		if n := len(res.Attempts) - len(retrieved); n != 3 {
			t.Errorf("the SDK listed 8 models 3 a page in %d requests, want 3", n)
		}
		if len(retrieved) != len(models) {
			t.Errorf("retrieved %d of %d models", len(retrieved), len(models))
		}
	}},

	// Claude Code's WebSearch request fails with the SDK's BadRequestError
	// whose message says web search is not available (what Claude Code
	// hands the model as the tool's result).
	{"WebSearch: a BadRequestError saying web search is not available", func(t *testing.T, x *sdkRun) {
		before := x.f.bodies.count()
		res := x.turn(t, sdkCase{Model: sonnet, User: "Perform a web search for the query: gw", Native: map[string]any{
			"tools":       []any{map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": 8}},
			"tool_choice": map[string]any{"type": "tool", "name": "web_search"},
		}})
		want := sdkWant{class: "BadRequestError", status: 400, says: "Web search is not available through this service"}
		if err := want.check(res.Error); err != nil {
			t.Error(err)
		}
		if n := x.f.bodies.count() - before; n != 0 {
			t.Errorf("the service was asked %d times", n)
		}
	}},

	{"structured output, a strict tool and an effort without thinking reach the service", func(t *testing.T, x *sdkRun) {
		schema := map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}},
			"required": []any{"answer"}, "additionalProperties": false}
		res := x.turn(t, sdkCase{Model: thinkingModel, User: "hi", Native: map[string]any{
			"output_config": map[string]any{"effort": "xhigh", "format": map[string]any{"type": "json_schema", "schema": schema}},
			"tools": []any{map[string]any{"name": "Read", "description": "Reads a file", "strict": true,
				"input_schema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}},
					"required": []any{"path"}, "additionalProperties": false}}},
		}})
		x.ok(t, res)
		c := x.f.bodies.last(t)
		if c.ReasoningEffort != "high" || !strings.Contains(string(c.ResponseFormat), `"type":"json_schema"`) ||
			len(c.Tools) != 1 || c.Tools[0].Function.Strict == nil || !*c.Tools[0].Function.Strict {
			t.Errorf("the service got %s", c.raw)
		}
	}},
}

// openaiScenarios are the Responses API's own: a stored response continued
// by its id, and the chat completions passed through beside it.
var openaiScenarios = []sdkScenario{
	{"store: true, and the next turn by previous_response_id", func(t *testing.T, x *sdkRun) {
		c := sdkCase{Model: sdkPlain, User: toolPrompt, Tools: []sdkTool{readTool}, Store: true}
		res := x.turn(t, c)
		x.ok(t, res)
		if len(res.Calls) != 1 || !res.Stored {
			t.Fatalf("calls %+v, stored %v: want a stored response with one call", res.Calls, res.Stored)
		}
		c.Previous = res.ID
		x.answered(t, c, res)
	}},

	// What the translated route must match: the service's own answer
	// reaches the SDK as it is.
	{"the chat pass-through's rate limit, retried as the headers say", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "429:100ms", -1)
		res := x.turn(t, sdkCase{API: "chat", MaxRetries: 2, Native: map[string]any{"model": sdkPlain,
			"messages": []any{map[string]any{"role": "user", "content": "hi"}}}})
		x.fails(t, res, "429")
		retriedAsTold(t, res.recorded, 3, 429)
	}},
}

// aiSDKOpenAIScenarios: the Responses provider stores by default, and gives
// the output of a stored response back as item_references.
var aiSDKOpenAIScenarios = []sdkScenario{
	{"the default store: the next turn refers to the stored items", func(t *testing.T, x *sdkRun) {
		c := sdkCase{Model: sdkPlain, User: toolPrompt, Tools: []sdkTool{readTool}, Store: true}
		res := x.turn(t, c)
		x.ok(t, res)
		if len(res.Calls) != 1 {
			t.Fatalf("calls %+v", res.Calls)
		}
		x.answered(t, c, res)
	}},
}

// genaiScenarios are the Gemini API's own: countTokens.
var genaiScenarios = []sdkScenario{
	{"countTokens", func(t *testing.T, x *sdkRun) {
		res := x.turn(t, sdkCase{API: "count", Model: sdkGemini, User: "how many tokens is this"})
		if n, _ := res.Native["totalTokens"].(float64); res.Error != nil || n < 5 {
			t.Errorf("%+v", res)
		}
	}},
}

func str(v any) string { s, _ := v.(string); return s }

// messagesScenarios are the Messages API clients' own: @anthropic-ai/sdk, and
// the AI SDK with its anthropic provider.
var messagesScenarios = []sdkScenario{
	// One answer with every signed reasoning dialect at once (the
	// stand-in's mixed dialect): OpenRouter's signed text and encrypted
	// entry, LiteLLM's signed thinking block and redacted block, and a tool
	// call with Gemini's thought signature. The SDK must accept the
	// signature_delta and redacted_thinking blocks and assemble exactly the
	// blocks gw's stream meant, report each thinking block's signature, and
	// its assistant message, sent back as it is with the call's result, must
	// give the service each piece in the field of the dialect it came in.
	{"every reasoning dialect in one answer, each given back in its own", func(t *testing.T, x *sdkRun) {
		c := sdkCase{Model: sdkMixed, User: toolPrompt, Tools: []sdkTool{readTool}, Reasoning: true, Raw: true}
		res := x.turn(t, c)
		x.ok(t, res)
		sent := x.last()
		if sent.Reasoning != standin.ReasoningMixed || len(sent.Signed) != 5 {
			t.Fatalf("the service answered in %q with %+v, want the mixed dialect's 5 signatures and encrypted blocks", sent.Reasoning, sent.Signed)
		}
		var native struct {
			Events  []map[string]any `json:"events"`
			Content []map[string]any `json:"content"`
		}
		remarshal(t, res.Native, &native)

		// (a) The blocks, one by one, as gw's stream meant them.
		meant := messagesBlocks(t, native.Events)
		if len(native.Content) != len(meant) {
			t.Fatalf("the SDK assembled %d blocks, gw's stream meant %d:\n%s\n%s", len(native.Content), len(meant), mustJSONText(native.Content), mustJSONText(meant))
		}
		var kinds []string
		for i, b := range native.Content {
			kinds = append(kinds, str(b["type"]))
			if !reflect.DeepEqual(b, meant[i]) {
				t.Errorf("block %d: the SDK assembled %s, gw's stream meant %s", i, mustJSONText(b), mustJSONText(meant[i]))
			}
		}
		wantKinds := []string{"thinking", "redacted_thinking", "thinking", "redacted_thinking", "text", "tool_use"}
		if !slices.Equal(kinds, wantKinds) {
			t.Fatalf("blocks %q, want %q", kinds, wantKinds)
		}
		b := native.Content
		for _, pair := range [][2]string{
			{str(b[0]["thinking"]), str(b[2]["thinking"])}, {str(b[0]["signature"]), str(b[2]["signature"])},
			{str(b[1]["data"]), str(b[3]["data"])},
		} {
			if pair[0] == "" || pair[1] == "" || pair[0] == pair[1] {
				t.Errorf("the two dialects' blocks must each have their own: %q", pair)
			}
		}
		if len(res.Calls) != 1 || res.Calls[0].Input != wantReads[0] {
			t.Errorf("calls %+v, want one reading README.md", res.Calls)
		}

		// (b) The signatures the SDK reported, one a thinking block.
		if want := []string{str(b[0]["signature"]), str(b[2]["signature"])}; !x.lacks(t, "reasoning events") && !slices.Equal(res.Reasoning.Events, want) {
			t.Errorf("the SDK reported the signatures %q, want %q", res.Reasoning.Events, want)
		}

		// (c) Sent back as it is: each piece at the field of its dialect,
		// exactly as the service sent it (the stand-in refuses a signature
		// that does not sign its text, data it did not make, and the call
		// without its thought signature).
		c.Raw = false
		x.answered(t, c, res)
		got := x.last().Received
		prefix := ""
		if len(got) > 0 {
			prefix, _, _ = strings.Cut(got[0].Where, ".")
		}
		var want []standin.Received
		for _, s := range sent.Signed {
			want = append(want, standin.Received{Where: prefix + "." + s.Where, Value: s.Value})
		}
		if !strings.HasPrefix(prefix, "messages[") || !reflect.DeepEqual(got, want) {
			t.Errorf("the service got back\n%+v\nwant\n%+v", got, want)
		}
		var back struct {
			Messages []struct {
				Role       string `json:"role"`
				ToolCallID string `json:"tool_call_id"`
				ToolCalls  []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		raw := x.f.bodies.last(t).raw
		if err := json.Unmarshal([]byte(raw), &back); err != nil {
			t.Fatal(err)
		}
		var calls, results []string
		for _, m := range back.Messages {
			for _, tc := range m.ToolCalls {
				calls = append(calls, tc.ID)
			}
			if m.Role == "tool" {
				results = append(results, m.ToolCallID)
			}
		}
		if len(calls) != 1 || !slices.Equal(results, calls) {
			t.Errorf("the service got the calls %q and results for %q, want one result for the one call: %s", calls, results, raw)
		}
	}},
}

// messagesBlocks assembles the content blocks of a Messages API stream's
// events, as the API defines them.
func messagesBlocks(t *testing.T, events []map[string]any) []map[string]any {
	t.Helper()
	var blocks []map[string]any
	inputs := map[int]string{}
	at := func(ev map[string]any) (int, map[string]any) {
		i, _ := ev["index"].(float64)
		if int(i) >= len(blocks) {
			t.Fatalf("an event of a block not started: %s", mustJSONText(ev))
		}
		return int(i), blocks[int(i)]
	}
	for _, ev := range events {
		switch ev["type"] {
		case "content_block_start":
			b, _ := ev["content_block"].(map[string]any)
			if i, _ := ev["index"].(float64); int(i) != len(blocks) {
				t.Fatalf("block %v started as block %d", i, len(blocks))
			}
			blocks = append(blocks, maps.Clone(b))
		case "content_block_delta":
			i, b := at(ev)
			d, _ := ev["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				b["text"] = str(b["text"]) + str(d["text"])
			case "thinking_delta":
				b["thinking"] = str(b["thinking"]) + str(d["thinking"])
			case "signature_delta":
				b["signature"] = d["signature"]
			case "input_json_delta":
				inputs[i] += str(d["partial_json"])
			default:
				t.Errorf("an unknown delta: %s", mustJSONText(ev))
			}
		case "content_block_stop":
			i, b := at(ev)
			if in, ok := inputs[i]; ok {
				var v any
				if err := json.Unmarshal([]byte(in), &v); err != nil {
					t.Errorf("block %d's input %q: %v", i, in, err)
				}
				b["input"] = v
			}
		}
	}
	return blocks
}

// remarshal decodes v, as decoded from JSON, into out.
func remarshal(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func mustJSONText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
