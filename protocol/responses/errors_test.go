package responses

import (
	"context"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/modelgateway/gw/api"
)

// A stream that broke off fails with code server_error, which Codex
// retries; a failure reported in the stream keeps its code (model_not_found,
// which Codex does not retry; a silent service's upstream_timeout).
func TestStreamErrorCodeByKind(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		code string
	}{
		{"ended early", io.ErrUnexpectedEOF, "server_error"},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, "server_error"},
		{"timed out", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, "server_error"},
		{"cancelled", context.Canceled, "server_error"},
		{"unknown model", &api.Error{Condition: api.UnknownModel, Cause: "no such model"}, "model_not_found"},
		{"silent service", &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindTimeout, Status: 504, Cause: "it sent nothing"}, "upstream_timeout"},
		{"rate limited", &api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "slow down"}, "rate_limit_exceeded"},
		{"overflow", &api.Error{Kind: api.KindContextOverflow, Status: 400, Tokens: 9, Limit: 8}, "context_length_exceeded"},
	} {
		code, msg := streamError(c.err)
		if code != c.code || msg == "" {
			t.Errorf("%s: %s %q, want %s", c.name, code, msg, c.code)
		}
		if c.code == "server_error" && !strings.HasPrefix(msg, api.ServiceUnreachable.Message()+": the service's stream") {
			t.Errorf("%s: %q does not say the stream broke off", c.name, msg)
		}
	}
	if _, msg := streamError(&api.Error{Kind: api.KindContextOverflow, Tokens: 9, Limit: 8}); !strings.HasPrefix(msg, "Your input exceeds the context window") {
		t.Errorf("an overflow in the stream is told %q, not in OpenAI's words", msg)
	}
}
