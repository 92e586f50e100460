package doctor

// The hostile-service set for doctor: answers a wrong base URL or something in between gives.

import (
	"crypto/x509"
	"io"
	"log"
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
		c := wantFail(t, rep, IDHTTP, "service unreachable", msgUnreachable,
			[]string{"301", "redirecting to " + target.URL + "/v1/models?…", "does not redirect", "key was not sent there"}, fix)
		if strings.Contains(c.Cause+c.Fix, "s3cr3t") {
			t.Errorf("the Location's query is in the report: %+v", c)
		}
		wantStatus(t, rep, IDKey, Skip)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("doctor followed the redirect: %d request(s) reached %s", n, target.URL)
	}
}
