package gemini

import (
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
