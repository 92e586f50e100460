package api_test

// The hostile-service set: answers that a wrong base URL, a captive portal or a malicious server in between
// give. Each one must be refused or classified quickly, never followed, and never cost the key.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelgateway/gw/api"
)

const hostileKey = "sk-gw-hostile-Q7f3Kd92LmZx81PaWv4R"

// elsewhere is the target of a redirect: it records whether anything reached it, and with which key.
type elsewhere struct {
	*httptest.Server
	hits atomic.Int32
	auth atomic.Value // the last Authorization header seen
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.hits.Add(1)
		e.auth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"vendor-a/model-a-haiku-4.5"}]}`))
	}))
	t.Cleanup(e.Close)
	return e
}

// redirecting is an https server that answers every request with status and a Location.
func redirecting(t *testing.T, status int, location string) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", location)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An https base URL that redirects to plain http (same host, so Go's client would keep the Authorization
// header): gw must not follow it, whatever http.Client it was given, and must say it is a base-URL problem
// naming where it pointed, without the Location's query string.
func TestHostileService_RedirectIsNeverFollowedWithTheKey(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			target := newElsewhere(t)
			srv := redirecting(t, status, target.URL+"/v1/models?sig=s3cr3t-query-value")
			calls := map[string]func(*api.Client) error{
				"models": func(c *api.Client) error { _, err := c.Models(context.Background()); return err },
				"probe":  func(c *api.Client) error { return c.Probe(context.Background(), "vendor-a/model-a-haiku-4.5") },
			}
			for name, call := range calls {
				// srv.Client() follows redirects by default: the api client must refuse on its own.
				c := api.NewClient(srv.URL+"/v1", hostileKey, srv.Client())
				err := call(c)
				var ae *api.Error
				if !errors.As(err, &ae) {
					t.Fatalf("%s: err = %v, want an *api.Error", name, err)
				}
				if ae.Condition != api.ServiceUnreachable || ae.Kind != api.KindBaseURL || ae.Status != status {
					t.Errorf("%s: got %s/%s/%d, want service unreachable/base_url/%d: %v", name, ae.Condition, ae.Kind, ae.Status, status, err)
				}
				msg := err.Error() + " " + ae.Fix
				if !strings.Contains(msg, target.URL+"/v1/models") || strings.Contains(msg, "s3cr3t") {
					t.Errorf("%s: the message should name the Location without its query: %s", name, msg)
				}
				if !strings.Contains(ae.Fix, "base URL") || strings.Contains(msg, hostileKey) {
					t.Errorf("%s: fix %q", name, ae.Fix)
				}
			}
			if n := target.hits.Load(); n != 0 {
				t.Fatalf("the redirect was followed: %d request(s) reached %s, with Authorization %q", n, target.URL, target.auth.Load())
			}
		})
	}
}

// A relative Location is named as the absolute URL it points at.
func TestHostileService_RelativeRedirectNamedInFull(t *testing.T) {
	srv := redirecting(t, 302, "/login?next=%2Fv1%2Fmodels&token=abc")
	_, err := api.NewClient(srv.URL+"/v1", hostileKey, srv.Client()).Models(context.Background())
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Kind != api.KindBaseURL || !strings.Contains(ae.Cause, srv.URL+"/login") || strings.Contains(ae.Cause, "token=abc") {
		t.Fatalf("err = %v", err)
	}
}

// NewHTTPClient is the http.Client every command builds for the service: it refuses redirects itself, so a
// request made with it outside the api client does not follow one either.
func TestHostileService_NewHTTPClientRefusesRedirects(t *testing.T) {
	target := newElsewhere(t)
	srv := redirecting(t, 301, target.URL+"/v1/models")
	hc := api.NewHTTPClient(srv.Client().Transport, 0)
	req, _ := http.NewRequest("GET", srv.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+hostileKey)
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 301 || target.hits.Load() != 0 {
		t.Fatalf("status %d, %d request(s) reached the redirect target", res.StatusCode, target.hits.Load())
	}
}
