package anthropic

import (
	"context"
	tr "github.com/modelgateway/gw/protocol/translate"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// overflowUpstream stands in for a service that refuses every request as
// longer than the model's context window (the stand-in has no such fault
// yet), whole (a 400) or inside its stream, in OpenAI's dialect.
func overflowUpstream(inStream bool, calls *atomic.Int32) Upstream {
	const body = `{"error":{"message":"This model's maximum context length is 200000 tokens. However, your messages resulted in 201234 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
	return func(ctx context.Context, call *tr.Call) (*http.Response, error) {
		req := call.Chat
		calls.Add(1)
		if inStream && req.Stream {
			sse := "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: " + body + "\n\n"
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(sse))}, nil
		}
		return &http.Response{StatusCode: 400, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
}

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
			gw := startGateway(t, &Handler{Upstream: overflowUpstream(inStream, &calls)})
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
