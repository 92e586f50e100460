package anthropic

import (
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// overflowBody is a context overflow in OpenAI's dialect.
const overflowBody = `{"error":{"message":"This model's maximum context length is 200000 tokens. However, your messages resulted in 201234 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`

// TestClaudeCode_ContextOverflow: the real Claude Code CLI recognises a
// context overflow of the service, whole or mid-stream, as its own "Prompt
// is too long" (what it compacts the conversation on), not as an API error
// it cannot act on.
func TestClaudeCode_ContextOverflow(t *testing.T) {
	bin := claudeBinary(t)
	for _, inStream := range []bool{false, true} {
		name := map[bool]string{false: "Whole", true: "InStream"}[inStream]
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			gw := startGateway(t, &Handler{Upstream: translatetest.Refusing(overflowBody, inStream, &calls)})
			_, home, project := newProject(t, nil)
			r := runClaude(t, bin, project, claudeEnv(home, gw, "gw-local-harness", "vendor-a/model-a-sonnet-4.5"), 2*time.Minute, "say hello")
			res := r.result(t)
			t.Logf("claude shows: %q (%d requests)\nstderr: %s", res.Result, calls.Load(), r.stderr)
			if !res.IsError || !strings.HasPrefix(res.Result, "Prompt is too long") || !strings.Contains(res.Result, "201234 tokens (limit 200000)") {
				t.Errorf("claude shows %q, want its \"Prompt is too long\" with the counts it read", res.Result)
			}
		})
	}
}
