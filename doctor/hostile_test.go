package doctor

// The hostile-service set for doctor: answers a wrong base URL or something in between gives.

import (
	"context"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelgateway/gw/standin"
)

// An https base URL that redirects to plain http on the same host: doctor follows it with neither request
// (with and without the key), and the http check fails as a base-URL problem naming the Location without its
// query, with the fix.
func TestRun_HostileService_RedirectIsRefused(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"data":[{"id":"vendor-a/model-a-haiku-4.5"}]}`))
	}))
	t.Cleanup(target.Close)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path+"?sig=s3cr3t-query", http.StatusMovedPermanently)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the tcp check connects without a handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	for _, canonical := range []bool{true, false} {
		in := input(srv.URL+"/v1", standin.DemoKeyFull)
		in.Network.RootCAs = pool
		fix := "something between this machine and the service"
		if !canonical {
			in.CanonicalURL = "https://gateway.example.test/v1"
			fix = "gw auth login --base-url https://gateway.example.test/v1"
		}
		rep := runDoctor(t, in)
		wantStatus(t, rep, IDTLS, Pass)
		c := wantFail(t, in, rep, IDHTTP, "service unreachable", msgUnreachable,
			[]string{"301", "redirecting to " + target.URL + "/v1/models?…", "does not redirect", "key was not sent there"}, fix)
		if strings.Contains(c.Cause+fixText(in, c), "s3cr3t") {
			t.Errorf("the Location's query is in the report: %+v", c)
		}
		wantStatus(t, rep, IDKey, Skip)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("doctor followed the redirect: %d request(s) reached %s", n, target.URL)
	}
}

// A 401 with a 100 MB body: doctor reads a bounded prefix of it, says the key was rejected (not that the
// network timed out), and stops reading: the server sees the client go away after a small part of its body.
// The sockets' buffers are small on both sides, so that what the server wrote is close to what doctor read.
func TestRun_HostileService_HugeErrorBody(t *testing.T) {
	const size, buffer = 100 << 20, 64 << 10
	var written atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		chunk := []byte(strings.Repeat(`{"error":{"message":"Invalid API key. `, 1<<10))
		for written.Load() < size {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetWriteBuffer(buffer)
		}
		return ctx
	}
	srv.Start()
	t.Cleanup(srv.Close)
	in := input(srv.URL+"/v1", "sk-gw-hostile-Q7f3Kd92LmZx81PaWv4R")
	in.Network.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(buffer)
		}
		return c, err
	}
	rep := runDoctor(t, in)
	wantStatus(t, rep, IDHTTP, Pass) // it asks for a key, as the service does
	wantFail(t, in, rep, IDKey, "key rejected", msgKey, []string{"401"}, "gw auth login")
	srv.Close() // waits for the handlers: their last writes have failed
	// Two requests (without and with the key), each read to at most 64 KiB, plus what the sockets held.
	if n := written.Load(); n >= 2<<20 {
		t.Errorf("the server wrote %d KiB of its %d MiB body (twice): doctor kept reading", n>>10, size>>20)
	}
}
