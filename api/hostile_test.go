package api_test

// The hostile-service set: answers that a wrong base URL, a captive portal or a malicious server in between
// give. Each one must be refused or classified quickly, never followed, and never cost the key.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy/render"
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
				msg := err.Error() + " " + render.Text(ae.Fix, render.Context{})
				if !strings.Contains(msg, target.URL+"/v1/models") || strings.Contains(msg, "s3cr3t") {
					t.Errorf("%s: the message should name the Location without its query: %s", name, msg)
				}
				if !strings.Contains(render.Text(ae.Fix, render.Context{}), "base URL") || strings.Contains(msg, hostileKey) {
					t.Errorf("%s: fix %q", name, render.Text(ae.Fix, render.Context{}))
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

// A Location that carries secrets — credentials, the key itself, a token in the query or the fragment — is
// named without them; a Location of megabytes is named in a line.
func TestHostileService_RedirectLocationShownWithoutSecrets(t *testing.T) {
	for _, loc := range []string{
		"http://user:pa55word@elsewhere.example/v1/" + hostileKey + "/models?token=t0ken#frag-s3cret",
		"http://elsewhere.example/" + strings.Repeat("a", 4<<20) + hostileKey,
	} {
		srv := redirecting(t, 302, loc)
		_, err := api.NewClient(srv.URL+"/v1", hostileKey, srv.Client()).Models(context.Background())
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Kind != api.KindBaseURL || !strings.Contains(ae.Cause, "http://elsewhere.example/") {
			t.Fatalf("err = %.300v", err)
		}
		for _, secret := range []string{"pa55word", "user", hostileKey, "t0ken", "s3cret"} {
			if strings.Contains(ae.Cause, secret) {
				t.Errorf("the cause shows %q: %s", secret, ae.Cause)
			}
		}
		if len(ae.Cause) > 1000 {
			t.Errorf("the cause is %d bytes long", len(ae.Cause))
		}
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

// hugeBody answers status with a body of size bytes, streamed (never held in memory), and counts what it
// managed to write before the client went away. Its socket's send buffer is small, and so is the client's
// receive buffer (smallBuffers), so that what it wrote is close to what the client read.
func hugeBody(t *testing.T, status int, size int64) (*httptest.Server, *atomic.Int64) {
	var written atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
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
			tc.SetWriteBuffer(smallBuffer)
		}
		return ctx
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &written
}

const smallBuffer = 64 << 10

// smallBuffers is a client whose connections have a small receive buffer.
func smallBuffers(t *testing.T) *http.Client {
	d := &net.Dialer{}
	tr := &http.Transport{Proxy: nil, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(smallBuffer)
		}
		return c, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// A 401 with a 100 MB body: gw classifies a bounded prefix (key rejected, as the status and words say) and
// stops reading; the server sees the client go away after a small part of its body (what was read plus
// what the sockets buffered), not after megabytes.
func TestHostileService_HugeErrorBodyIsNotRead(t *testing.T) {
	const size = 100 << 20
	calls := map[string]func(*api.Client, context.Context) error{
		"models": func(c *api.Client, ctx context.Context) error { _, err := c.Models(ctx); return err },
		"probe":  func(c *api.Client, ctx context.Context) error { return c.Probe(ctx, "vendor-a/model-a-haiku-4.5") },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			srv, written := hugeBody(t, 401, size)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := call(api.NewClient(srv.URL+"/v1", hostileKey, smallBuffers(t)), ctx)
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Condition != api.KeyRejected {
				t.Fatalf("err = %v, want key rejected", err)
			}
			if strings.Contains(err.Error(), hostileKey) {
				t.Errorf("the message repeats the key: %v", err)
			}
			srv.Close() // waits for the handler: its last write has failed
			if n := written.Load(); n >= 1<<20 {
				t.Errorf("the server wrote %d KiB of its %d MiB body before the client went away: the client kept reading", n>>10, size>>20)
			}
		})
	}
}

// A body of megabytes that did get read (a 200 that is not a model list, or a caller with a bigger buffer)
// is classified on its first 64 KiB only: classifying 4 MiB costs no more than classifying its first 64 KiB
// (in memory allocated, which, unlike time, does not depend on the machine's load).
func TestHostileService_HugeBodyClassifiedOnAPrefix(t *testing.T) {
	const size = 4 << 20
	body := []byte(strings.Repeat("Invalid API key provided. Please check the key. ", size/48+1))
	allocated := func(status int, body []byte) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e := api.ClassifyResponse(status, nil, body, "")
		runtime.ReadMemStats(&after)
		if status == 401 && (e == nil || e.Condition != api.KeyRejected) {
			t.Errorf("401: got %v, want key rejected", e)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, status := range []int{200, 401} {
		prefix := allocated(status, body[:64<<10])
		whole := allocated(status, body)
		if whole > 2*prefix+64<<10 {
			t.Errorf("%d: classifying %d KiB allocated %d KiB, its first 64 KiB %d KiB: it read the whole body", status, len(body)>>10, whole>>10, prefix>>10)
		}
	}
}

// A model list whose ids and names carry terminal escape sequences (clear the
// screen, retitle the window) or bidi controls reaches gw models, the picker
// and agents' configs with those characters replaced.
func TestHostileService_ModelNamesCarryNoControlCharacters(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[` +
			`{"id":"vendor-a/model-a-haiku-4.5\u001b[2J","name":"Haiku\u001b]0;pwned\u0007","owned_by":"x\u009b31m"},` +
			`{"id":"vendor-b/\u202emodel"}]}`))
	}))
	defer srv.Close()
	models, err := api.NewClient(srv.URL+"/v1", "sk-test-key-0000", srv.Client()).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 {
		t.Fatalf("models %+v", models)
	}
	for _, m := range models {
		for _, s := range []string{m.ID, m.Name, m.OwnedBy} {
			if strings.ContainsAny(s, "\x1b\x07\u009b\u202e") {
				t.Errorf("a control character got through: %q", s)
			}
		}
	}
	if models[0].ID != "vendor-a/model-a-haiku-4.5\uFFFD[2J" {
		t.Errorf("id %q: want the escape replaced, the rest kept", models[0].ID)
	}
}
