package translate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
)

// timeout is a read that timed out, as net reports one.
type timeout struct{}

func (timeout) Error() string { return "i/o timeout" }
func (timeout) Timeout() bool { return true }

// TestStreamFailure: what every protocol's client is told of a stream that
// ended in a failure after its answer began, by kind of failure: a failure
// reported in the stream is passed on as it is; a stream that broke off is
// the service unreachable, said as a break of an answer that had begun (not
// as the network's raw error, nor as a connection closed before the service
// answered), with what to do last.
func TestStreamFailure(t *testing.T) {
	reported := &api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled,
		Cause: `the service does not know the model id "x"`, Fix: remedy.Remedy{Do: remedy.UseID, Value: "y"}}
	reset := &net.OpError{Op: "read", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 443},
		Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, c := range []struct {
		name  string
		err   error
		broke bool
		kind  api.Kind
		told  string
	}{
		{"reported in the stream", fmt.Errorf("stream: %w", reported), false, api.KindMisspelled,
			`model not found / invalid model: the service does not know the model id "x" — use the exact id: y`},
		{"ended early", io.ErrUnexpectedEOF, true, api.KindReset,
			"unable to connect to API: the service's stream broke off before the answer was complete — retry; if it keeps happening, run: gw doctor"},
		{"ended early, wrapped", fmt.Errorf("reading the stream: %w", io.ErrUnexpectedEOF), true, api.KindReset,
			"unable to connect to API: the service's stream broke off before the answer was complete — retry; if it keeps happening, run: gw doctor"},
		{"connection reset", reset, true, api.KindReset,
			"unable to connect to API: the service's stream broke off: the connection was cut before the answer was complete — retry; if it keeps happening, a firewall or proxy is cutting the connection — run: gw doctor"},
		{"read timed out", &net.OpError{Op: "read", Net: "tcp", Err: timeout{}}, true, api.KindTimeout,
			"unable to connect to API: the service's stream broke off: the connection to the service timed out — check the network connection and retry; if it keeps failing, run: gw doctor"},
		{"unnamed", errors.New("boom"), true, api.KindOther,
			"unable to connect to API: the service's stream broke off: the request to the service failed: boom — run: gw doctor"},
		{"cancelled", fmt.Errorf("read: %w", context.Canceled), true, api.KindCanceled,
			"unable to connect to API: the service's stream failed: read: context canceled — retry; if it keeps happening, run: gw doctor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, broke := StreamFailure(c.err)
			if broke != c.broke || e.Kind != c.kind {
				t.Errorf("broke %v, kind %s; want %v, %s", broke, e.Kind, c.broke, c.kind)
			}
			if !c.broke && e != reported {
				t.Errorf("a reported failure became %+v", e)
			}
			if c.broke && (e.Condition != api.ServiceUnreachable || !errors.Is(e, c.err)) {
				t.Errorf("a break is %q wrapping %v; want the service unreachable wrapping %v", e.Condition, e.Err, c.err)
			}
			if got := Message(e); got != c.told {
				t.Errorf("told %q\nwant  %q", got, c.told)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	if got := Message(&api.Error{}); got != "the service failed" {
		t.Errorf("a failure without words is told %q", got)
	}
	e := &api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey, Status: 401, Cause: "the service refused the key"}
	if got := Message(e); got != "API key invalid or unauthorized: the service refused the key" {
		t.Errorf("without a fix: %q", got)
	}
}

func TestInvalid(t *testing.T) {
	for _, c := range []struct{ field, want string }{
		{"messages.0.role", `messages.0.role: "robot" is not a role; send user or assistant`},
		{"", `"robot" is not a role; send user or assistant`},
	} {
		e := Invalid(c.field, "%q is not a role; send user or assistant", "robot")
		if e.Status != http.StatusBadRequest || e.Message != c.want || e.Type != "" || e.Final {
			t.Errorf("%+v, want 400 %q", e, c.want)
		}
	}
}
