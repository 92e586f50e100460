package anthropic

import (
	"strconv"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
)

// overflowBodies are a context overflow in the dialects of the stand-in and
// of the servers behind gateways, with the counts Claude Code must read.
var overflowBodies = []struct {
	name          string
	status        int
	body          string
	tokens, limit int
}{
	{"openai", 400, `{"error":{"message":"This model's maximum context length is 200000 tokens. However, your messages resulted in 201234 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, 201234, 200000},
	{"openrouter", 400, `{"error":{"code":400,"message":"This endpoint's maximum context length is 200000 tokens. However, you requested about 201234 tokens (201234 of text input). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically."}}`, 201234, 200000},
	{"litellm", 400, `{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: 201234 tokens > 200000 maximum","type":"invalid_request_error","param":null,"code":"400"}}`, 201234, 200000},
	{"newapi", 400, `{"error":{"message":"This model's maximum context length is 200000 tokens. However, your messages resulted in 201234 tokens. Please reduce the length of the messages. (request id: 7)","type":"new_api_error","code":"context_length_exceeded"}}`, 201234, 200000},
	{"flat", 400, `{"message":"This model's maximum context length is 200000 tokens. However, your messages resulted in 201234 tokens. Please reduce the length of the messages."}`, 201234, 200000},
	{"text", 400, "This model's maximum context length is 200000 tokens. However, your messages resulted in 201234 tokens. Please reduce the length of the messages.\n", 201234, 200000},
	{"gemini", 400, `{"error":{"code":400,"message":"The input token count (1196435) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}`, 1196435, 1048575},
	{"vllm", 400, `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (30000 in the messages, 3000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, 33000, 32768},
}

// TestFromAPIError_ContextOverflow: a context overflow in any dialect reaches
// Claude Code as Anthropic's 400 invalid_request_error "prompt is too long:
// N tokens > M maximum", the words it compacts its conversation on, with
// the counts it reads; when the service gave no counts, the words still
// begin so, with the catalogue's window.
func TestFromAPIError_ContextOverflow(t *testing.T) {
	for _, c := range overflowBodies {
		e := FromAPIError(api.ClassifyResponse(c.status, nil, []byte(c.body), "vendor-a/model-a-sonnet-4.5"))
		if e.Status != 400 || e.Type != TypeInvalidRequest || e.Final {
			t.Errorf("%s: %d %s final=%v", c.name, e.Status, e.Type, e.Final)
		}
		want := "prompt is too long: " + strconv.Itoa(c.tokens) + " tokens > " + strconv.Itoa(c.limit) + " maximum"
		if e.Message != want {
			t.Errorf("%s: %q, want %q", c.name, e.Message, want)
		}
		m := claudeCodeCounts.FindStringSubmatch(string(errorBody(e)))
		if m == nil || m[1] != strconv.Itoa(c.tokens) || m[2] != strconv.Itoa(c.limit) {
			t.Errorf("%s: Claude Code reads %v from %s", c.name, m, errorBody(e))
		}
	}
	e := FromAPIError(api.ClassifyResponse(400, nil, []byte(`{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}`), "vendor-a/model-a-sonnet-4.5"))
	if !strings.HasPrefix(e.Message, "prompt is too long: the conversation exceeds the model's context window of 200000 tokens") ||
		!strings.Contains(e.Message, "Your input exceeds the context window") || claudeCodeCounts.MatchString(e.Message) {
		t.Errorf("no counts: %q", e.Message)
	}
}

// TestFromAPIError_RateAndOverload: a rate limit is Anthropic's 429
// rate_limit_error; a service too busy to answer (503, 529, overloaded words,
// also inside a stream) its 529 overloaded_error; both left to the client's
// retries.
func TestFromAPIError_RateAndOverload(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   int
		typ    string
	}{
		{"429", 429, `{"error":{"message":"Rate limit reached for requests per min (RPM)","type":"requests","code":"rate_limit_exceeded"}}`, 429, TypeRateLimit},
		{"429 in a stream", 200, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, 429, TypeRateLimit},
		{"503", 503, `{"error":{"message":"The engine is currently overloaded, please try again later.","type":"server_error","code":"overloaded"}}`, 529, TypeOverloaded},
		{"529", 529, `{"error":{"message":"litellm.InternalServerError: AnthropicException - Overloaded","type":"overloaded_error","param":null,"code":"529"}}`, 529, TypeOverloaded},
		{"overloaded in a stream", 200, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 529, TypeOverloaded},
		{"500 stays an api_error", 500, `{"error":{"message":"boom"}}`, 500, TypeAPI},
	} {
		e := FromAPIError(api.ClassifyResponse(c.status, nil, []byte(c.body), "m"))
		if e.Status != c.want || e.Type != c.typ || e.Final {
			t.Errorf("%s: %d %s final=%v %q", c.name, e.Status, e.Type, e.Final, e.Message)
		}
	}
}
