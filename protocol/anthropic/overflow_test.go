package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
)

// TestFromAPIError_ContextOverflow: a context overflow reaches Claude Code
// as Anthropic's "prompt is too long: N tokens > M maximum", the words it
// compacts its conversation on, with the counts it reads (api classifies
// them in every dialect; the conformance suite checks the rest); when the
// service gave no counts, the words still begin so, with the catalogue's
// window.
func TestFromAPIError_ContextOverflow(t *testing.T) {
	e := FromAPIError(api.ClassifyResponse(400, nil, []byte(`{"message":"This model's maximum context length is 32768 tokens. However, you requested 33000 tokens."}`), "m"))
	if e.Status != 400 || e.Type != TypeInvalidRequest || e.Final || e.Message != "prompt is too long: 33000 tokens > 32768 maximum" {
		t.Errorf("%d %s final=%v %q", e.Status, e.Type, e.Final, e.Message)
	}
	e = FromAPIError(api.ClassifyResponse(400, nil, []byte(`{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}`), "vendor-a/model-a-sonnet-4.5"))
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

// TestContextOverflowWithoutCountsTakesTheEstimate: an overflow whose words
// give no prompt size gets the request's own estimate, when that is over
// the window, so Claude Code reads both numbers it compacts by; before the
// answer and inside its stream alike.
func TestContextOverflowWithoutCountsTakesTheEstimate(t *testing.T) {
	model := "vendor-a/model-a-sonnet-4.5"
	ae := api.ClassifyResponse(400, nil, []byte(`{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}`), model)
	meta := Meta{Model: model, Stream: true, InputTokens: 250000}
	var e struct {
		Error struct{ Type, Message string }
	}
	a := (&exchange{meta: meta}).Error(ae)
	if err := json.Unmarshal(a.Body, &e); err != nil {
		t.Fatalf("%v: %s", err, a.Body)
	}
	var buf bytes.Buffer
	w := NewStreamWriter(&buf, meta)
	_ = w.Chunk(translatetest.Text("Hal"))
	_ = w.End(ae)
	s, err := checkStream(buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	for how, got := range map[string][2]string{"answered": {e.Error.Type, e.Error.Message}, "in the stream": {s.errType, s.errMessage}} {
		m := claudeCodeCounts.FindStringSubmatch(got[1])
		if got[0] != TypeInvalidRequest || m == nil || m[1] != "250000" || m[2] != "200000" {
			t.Errorf("%s: %s %q; want Claude Code to read 250000 tokens > 200000", how, got[0], got[1])
		}
	}
}
