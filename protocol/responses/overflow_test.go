package responses

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
)

// overflowDialects are a context overflow as gateways say it, for Codex.
var overflowDialects = map[string]string{
	"openrouter": `{"error":{"code":400,"message":"This endpoint's maximum context length is 200000 tokens. However, you requested about 201234 tokens (201234 of text input). Please reduce the length of either one."}}`,
	"litellm":    `{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: 201234 tokens > 200000 maximum","type":"invalid_request_error","param":null,"code":"400"}}`,
}

// TestFromAPIError_ContextOverflow: a context overflow in any dialect (api
// classifies them) reaches a Responses client as OpenAI sends it — 400,
// invalid_request_error, code context_length_exceeded (what Codex and the
// OpenAI SDKs recognise) — in OpenAI's words with the counts.
func TestFromAPIError_ContextOverflow(t *testing.T) {
	for name, body := range overflowDialects {
		pe := FromAPIError(api.ClassifyResponse(400, nil, []byte(body), "vendor-a/model-a-sonnet-4.5"))
		status, b := pe.Status, errorBody(pe)
		var e errorOut
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		if status != 400 || e.Error.Type != "invalid_request_error" || e.Error.Code == nil || *e.Error.Code != "context_length_exceeded" ||
			e.Error.Message != "Your input exceeds the context window of this model (201234 tokens > 200000 maximum). Please adjust your input and try again." {
			t.Errorf("%s: %d %s", name, status, b)
		}
	}
}

// TestFromAPIError_RateAndOverload: a rate limit is a 429
// rate_limit_exceeded; an overloaded service a 503 server_is_overloaded, in a
// stream too.
func TestFromAPIError_RateAndOverload(t *testing.T) {
	for _, c := range []struct {
		name         string
		status       int
		body         string
		want         int
		code, stream string
	}{
		{"429", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, 429, "rate_limit_exceeded", "rate_limit_exceeded"},
		{"529", 529, `{"error":{"message":"litellm.InternalServerError: AnthropicException - Overloaded","type":"overloaded_error","code":"529"}}`, 503, "server_is_overloaded", "server_is_overloaded"},
		{"overloaded in a stream", 200, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 503, "server_is_overloaded", "server_is_overloaded"},
	} {
		ae := api.ClassifyResponse(c.status, nil, []byte(c.body), "m")
		pe := FromAPIError(ae)
		status, b := pe.Status, errorBody(pe)
		if status != c.want || !strings.Contains(string(b), `"code":"`+c.code+`"`) {
			t.Errorf("%s: %d %s", c.name, status, b)
		}
		tr := checkStream(t, runStream(t, codexMeta(t), nil, ae))
		if fe, _ := tr.response["error"].(map[string]any); fe["code"] != c.stream {
			t.Errorf("%s in a stream: %v", c.name, fe)
		}
	}
}
