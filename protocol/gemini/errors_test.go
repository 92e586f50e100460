package gemini

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/modelgateway/gw/api"
)

// TestStreamErrorOfACutConnection: a connection the service cut mid-answer
// is said in the translators' words (the stream broke off, the spec's
// message first), never as the network's raw error with its addresses.
func TestStreamErrorOfACutConnection(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	e := streamError(reset)
	if e.Status != http.StatusBadGateway || !strings.Contains(e.Message, "stream broke off: the connection was cut before the answer was complete") ||
		!strings.HasPrefix(e.Message, api.ServiceUnreachable.Message()) || strings.Contains(e.Message, "read tcp") {
		t.Errorf("got %d %q", e.Status, e.Message)
	}
}

// A stream cut mid-answer (it ended early, its connection was reset or timed
// out, its read cancelled) is a 502 UNAVAILABLE, which Gemini CLI retries, as
// the other translators' clients retry theirs; a failure the service
// reported is said as before the answer began: a rate limit a 429.
func TestStreamErrorStatusByKind(t *testing.T) {
	for _, c := range []struct {
		name   string
		err    error
		code   int
		status string
	}{
		{"ended early", io.ErrUnexpectedEOF, 502, "UNAVAILABLE"},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, 502, "UNAVAILABLE"},
		{"cancelled", context.Canceled, 502, "UNAVAILABLE"},
		{"timed out", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, 502, "UNAVAILABLE"},
		{"rate limited", &api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "slow down"}, 429, "RESOURCE_EXHAUSTED"},
	} {
		e := streamError(c.err)
		status := e.Type
		if status == "" {
			status = StatusOf(e.Status)
		}
		if e.Status != c.code || status != c.status {
			t.Errorf("%s: %d %s %q, want %d %s", c.name, e.Status, status, e.Message, c.code, c.status)
		}
		if c.code == 502 && !strings.HasPrefix(e.Message, api.ServiceUnreachable.Message()+": the service's stream") {
			t.Errorf("%s: %q does not say the stream broke off", c.name, e.Message)
		}
	}
}
