package testutil

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Squatter is a program that listened first on gw serve's port and answers like gw serve: its errors, and
// a hello with a proof it cannot compute. It keeps every request it gets, whole, so that a test can show
// that none carried a credential.
type Squatter struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // request line, headers and body of each request
}

// NewSquatter starts a Squatter on a loopback port, closed when the test ends.
func NewSquatter(t testing.TB) *Squatter {
	sq := &Squatter{}
	sq.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var rec strings.Builder
		fmt.Fprintf(&rec, "%s %s\n", r.Method, r.RequestURI)
		_ = r.Header.Write(&rec)
		rec.Write(body)
		sq.mu.Lock()
		sq.seen = append(sq.seen, rec.String())
		sq.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/gw/hello" {
			fmt.Fprintf(w, `{"service":"gw serve","proof":"%s"}`+"\n", strings.Repeat("ab", 32))
			return
		}
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"not found","type":"gw_error","code":"not_found"}}`+"\n")
	}))
	t.Cleanup(sq.Close)
	return sq
}

// Addr is the squatter's host:port.
func (sq *Squatter) Addr() string { return sq.Listener.Addr().String() }

// Port is the port the squatter holds.
func (sq *Squatter) Port() int { return sq.Listener.Addr().(*net.TCPAddr).Port }

// GotNothing fails the test unless the squatter was asked something (else the test shows nothing) and no
// request it got held an Authorization header or any of secrets (a key, a local token or a part of one).
func (sq *Squatter) GotNothing(t testing.TB, secrets ...string) {
	t.Helper()
	sq.mu.Lock()
	defer sq.mu.Unlock()
	if len(sq.seen) == 0 {
		t.Fatal("the squatter was not asked: the test shows nothing")
	}
	for _, r := range sq.seen {
		if strings.Contains(strings.ToLower(r), "authorization") {
			t.Errorf("the squatter received an Authorization header:\n%s", r)
		}
		for _, s := range secrets {
			if strings.Contains(r, s) {
				t.Errorf("the squatter received a credential:\n%s", r)
			}
		}
	}
}
