package api

import (
	"net/http"
	"strings"
	"testing"
)

// TestClassify_ContextOverflow: a prompt longer than the model's context
// window is recognised in every dialect gateways and model servers say it in
// (the stand-in's among them), whole or inside a stream, with the counts
// when the words give them and the catalogue's window when only the model
// says it.
func TestClassify_ContextOverflow(t *testing.T) {
	const model = "vendor-a/model-a-sonnet-4.5" // a 200 000-token window in the catalogue
	cases := []struct {
		name          string
		status        int
		body          string
		tokens, limit int
	}{
		{"openai", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, 130512, 128000},
		{"openai code only", 400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`, 0, 200000},
		{"openrouter", 400, `{"error":{"code":400,"message":"This endpoint's maximum context length is 200000 tokens. However, you requested about 214,308 tokens (214,308 of text input). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically."}}`, 214308, 200000},
		{"litellm relaying anthropic", 400, `{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: 201234 tokens > 200000 maximum","type":"invalid_request_error","param":null,"code":"400"}}`, 201234, 200000},
		{"litellm relaying openai", 400, `{"error":{"message":"litellm.ContextWindowExceededError: ContextWindowExceededError: OpenAIException - This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":null,"param":null,"code":"400"}}`, 9000, 8192},
		{"newapi", 400, `{"error":{"message":"This model's maximum context length is 65536 tokens. However, your messages resulted in 70000 tokens. Please reduce the length of the messages. (request id: 2025)","type":"new_api_error","code":"context_length_exceeded"}}`, 70000, 65536},
		{"flat", 400, `{"message":"This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens. Please reduce the length of the messages."}`, 5000, 4096},
		{"text", 400, "This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens. Please reduce the length of the messages.\n", 5000, 4096},
		{"anthropic", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`, 208310, 200000},
		{"gemini", 400, `{"error":{"code":400,"message":"The input token count (1196435) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}`, 1196435, 1048575},
		{"vllm", 400, `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (30000 in the messages, 3000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, 33000, 32768},
		{"vllm newer", 400, `{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 4000. This model's maximum context length is 32768 tokens and your request has 30000 input tokens (4000 > 32768 - 30000).","type":"BadRequestError","param":null,"code":400}`, 34000, 32768},
		{"llama.cpp", 400, `{"error":{"code":400,"message":"the request (40000 tokens) exceeds the available context size (32768 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":40000,"n_ctx":32768}}`, 40000, 32768},
		{"tgi", 422, `{"error":"Input validation error: ` + "`inputs` tokens + `max_new_tokens` must be <= 8192. Given: 8000 `inputs` tokens and 500 `max_new_tokens`" + `","error_type":"validation"}`, 0, 8192},
		{"bedrock via gateway", 400, `{"error":{"message":"Input is too long for requested model.","type":"invalid_request_error"}}`, 0, 200000},
		{"inside a stream", 200, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, 130000, 128000},
		{"as a 500", 500, `{"error":{"message":"litellm.ContextWindowExceededError: prompt is too long: 250000 tokens > 200000 maximum","type":null,"code":"500"}}`, 250000, 200000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := ClassifyResponse(c.status, nil, []byte(c.body), model)
			if e == nil || e.Kind != KindContextOverflow {
				t.Fatalf("classified as %+v", e)
			}
			if e.Tokens != c.tokens || e.Limit != c.limit {
				t.Errorf("counts %d > %d, want %d > %d", e.Tokens, e.Limit, c.tokens, c.limit)
			}
			if e.Condition != "" || !strings.Contains(e.Cause, "longer than the model's context window") {
				t.Errorf("condition %q, cause %q", e.Condition, e.Cause)
			}
		})
	}
	// A model the catalogue does not know, words without counts: no counts.
	e := ClassifyResponse(400, nil, []byte(`{"error":{"message":"prompt is too long","type":"invalid_request_error"}}`), "some/model")
	if e == nil || e.Kind != KindContextOverflow || e.Tokens != 0 || e.Limit != 0 {
		t.Errorf("no counts: %+v", e)
	}
}

// TestClassify_NotContextOverflow: limits that share some of the words are
// not taken for a context overflow, so an agent does not compact its
// conversation for a rate limit or a field too long.
func TestClassify_NotContextOverflow(t *testing.T) {
	const model = "vendor-a/model-a-sonnet-4.5"
	cases := []struct {
		name   string
		status int
		body   string
		kind   Kind
	}{
		{"litellm token rate limit", 429, `{"error":{"message":"litellm.RateLimitError: RateLimitError: AnthropicException - Number of request tokens has exceeded your per-minute rate limit","type":"throttling_error","param":null,"code":"429"}}`, KindRateLimited},
		{"openai tokens per minute", 429, `{"error":{"message":"Request too large for model in organization org-1 on tokens per min (TPM): Limit 30000, Requested 50000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`, KindRateLimited},
		{"string too long", 400, `{"error":{"message":"Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760, but got a string with length 20000000 instead.","type":"invalid_request_error","param":"messages[1].content","code":"string_above_max_length"}}`, KindOther},
		{"output tokens too many", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 200000 > 64000, which is the maximum allowed number of output tokens for vendor-a/model-a-sonnet-4.5"}}`, KindOther},
		{"key", 401, `{"error":{"message":"Incorrect API key provided (the maximum context length is irrelevant).","code":"invalid_api_key"}}`, KindWrongKey},
	}
	for _, c := range cases {
		e := ClassifyResponse(c.status, nil, []byte(c.body), model)
		if e == nil || e.Kind != c.kind {
			t.Errorf("%s: %+v, want kind %s", c.name, e, c.kind)
		}
	}
}

// TestClassify_InStreamRateAndOverload: an error inside a stream has no
// status; its code says whether it is a rate limit or an overloaded service,
// which clients retry after a pause, as with 429, 503 and 529.
func TestClassify_InStreamRateAndOverload(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		body       string
		kind       Kind
		overloaded bool
	}{
		{"anthropic overloaded in a stream", 200, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, KindServerError, true},
		{"litellm overloaded", 529, `{"error":{"message":"litellm.InternalServerError: AnthropicException - Overloaded","type":"overloaded_error","param":null,"code":"529"}}`, KindServerError, true},
		{"openai engine overloaded", 503, `{"error":{"message":"The engine is currently overloaded, please try again later.","type":"server_error","param":null,"code":"overloaded"}}`, KindServerError, true},
		{"newapi overloaded", 503, `{"error":{"message":"upstream overloaded (request id: 1)","type":"new_api_error","code":"model_overloaded"}}`, KindServerError, true},
		{"a 503 without words", 503, ``, KindServerError, true},
		{"a 500", 500, `{"error":{"message":"boom","type":"server_error"}}`, KindServerError, false},
		{"rate limit in a stream", 200, `{"error":{"message":"Rate limit reached for requests per min (RPM)","type":"requests","code":"rate_limit_exceeded"}}`, KindRateLimited, false},
	}
	for _, c := range cases {
		e := ClassifyResponse(c.status, http.Header{}, []byte(c.body), "m")
		if e == nil || e.Kind != c.kind || e.Overloaded() != c.overloaded {
			t.Errorf("%s: %+v (overloaded %v), want %s overloaded %v", c.name, e, e.Overloaded(), c.kind, c.overloaded)
		}
	}
	if e := ClassifyResponse(529, nil, nil, "m"); e == nil || !strings.Contains(e.Cause, "529 Overloaded") {
		t.Errorf("529: %+v", e)
	}
}
