package api

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/api/apitest"
)

// A request that takes a prepared connection which failed is told what is
// wrong in the same words as one that opened its own: the prepared one's
// error when it timed out (a new dial would time out as late), else that
// of a dial of its own.
func TestPrepare_FailuresReadAsWithout(t *testing.T) {
	silent := silentListener(t)
	untrusted := quietTLSServer(http.NotFoundHandler())
	defer untrusted.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	cases := []struct {
		name string
		base string
		o    TransportOptions
	}{
		{"refused", "https://" + apitest.ClosedAddr(t) + "/v1", TransportOptions{}},
		{"dial timeout", "https://" + silent + "/v1", TransportOptions{DialTimeout: time.Nanosecond}},
		{"handshake timeout", "https://" + silent + "/v1", TransportOptions{TLSHandshakeTimeout: 100 * time.Millisecond}},
		{"untrusted certificate", untrusted.URL + "/v1", TransportOptions{}},
		{"plain HTTP", strings.Replace(plain.URL, "http://", "https://", 1) + "/v1", TransportOptions{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			without := modelsErr(t, tc.base, tc.o)

			tc.o.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
			tr := NewTransport(tc.o)
			defer tr.CloseIdleConnections()
			u, _ := url.Parse(tc.base)
			p := ConnsOf(tr).Prepare(u, time.Minute)
			if p == nil {
				t.Fatal("nothing prepared")
			}
			_, err := NewClient(tc.base, testKey, &http.Client{Transport: tr}).Models(context.Background())
			with := ClassifyTransport(err)
			if with == nil {
				t.Fatal("no error with a prepared connection")
			}
			select {
			case <-p.Taken():
			default:
				// It failed before the request came, and was no longer
				// offered: the request dialled as without it.
				t.Log("the prepared connection failed before the request")
			}
			if p.Err() == nil {
				t.Fatal("the prepared connection did not fail")
			}
			if with.Kind != without.Kind || with.Cause != without.Cause {
				t.Errorf("with a prepared connection:\n  %s: %s\nwithout:\n  %s: %s", with.Kind, with.Cause, without.Kind, without.Cause)
			}
		})
	}
}

// helloServer is a TLS server (HTTP/2 offered) that records the protocols
// each client offered and counts the connections it accepted.
type helloServer struct {
	*httptest.Server
	mu       sync.Mutex
	offered  [][]string
	accepted atomic.Int32
	roots    *tls.Config
}

func newHelloServer(t *testing.T, h http.Handler, h2 bool) *helloServer {
	t.Helper()
	s := &helloServer{}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = h2
	srv.TLS = &tls.Config{GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		s.mu.Lock()
		s.offered = append(s.offered, slices.Clone(hello.SupportedProtos))
		s.mu.Unlock()
		return nil, nil
	}}
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.accepted.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.Server = srv
	return s
}

func (s *helloServer) pool() TransportOptions {
	return TransportOptions{RootCAs: s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs,
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }}
}

func get(t *testing.T, tr http.RoundTripper, ctx context.Context, u string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// The transport offers the service the protocols net/http offers on its
// own (HTTP/2, then HTTP/1.1), on a connection it opens for a request as
// on one prepared, and none (HTTP/1.1) for a request that needs HTTP/1.1,
// as net/http does for a WebSocket upgrade.
func TestPrepare_OffersWhatNetHTTPOffers(t *testing.T) {
	s := newHelloServer(t, http.NotFoundHandler(), true)
	o := s.pool()
	plain := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: o.RootCAs}}
	defer plain.CloseIdleConnections()
	if res := get(t, plain, context.Background(), s.URL); res.ProtoMajor != 2 {
		t.Fatalf("net/http's own transport: HTTP/%d", res.ProtoMajor)
	}

	tr := NewTransport(o)
	defer tr.CloseIdleConnections()
	if res := get(t, tr, context.Background(), s.URL); res.ProtoMajor != 2 {
		t.Errorf("a connection opened for a request: HTTP/%d, want 2", res.ProtoMajor)
	}
	tr2 := NewTransport(o)
	defer tr2.CloseIdleConnections()
	u, _ := url.Parse(s.URL)
	p := ConnsOf(tr2).Prepare(u, time.Minute)
	if p == nil {
		t.Fatal("nothing prepared")
	}
	if proto := p.Protocol(); proto != "h2" {
		t.Errorf("the prepared connection: %q, want h2", proto)
	}
	if res := get(t, tr2, context.Background(), s.URL); res.ProtoMajor != 2 {
		t.Errorf("a request on the prepared connection: HTTP/%d, want 2", res.ProtoMajor)
	}
	tr3 := NewTransport(o)
	defer tr3.CloseIdleConnections()
	if res := get(t, tr3, OnlyHTTP1(context.Background()), s.URL); res.ProtoMajor != 1 {
		t.Errorf("a request that needs HTTP/1.1: HTTP/%d", res.ProtoMajor)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	want := [][]string{{"h2", "http/1.1"}, {"h2", "http/1.1"}, {"h2", "http/1.1"}, nil}
	if len(s.offered) != len(want) || !slices.Equal(s.offered[0], want[0]) {
		t.Fatalf("offered %q; net/http's own offered first", s.offered)
	}
	for i := range want {
		if !slices.Equal(s.offered[i], want[i]) {
			t.Errorf("connection %d offered %q, want %q", i, s.offered[i], want[i])
		}
	}
	if n := s.accepted.Load(); n != 4 {
		t.Errorf("%d connections, want 4 (one per transport)", n)
	}
}

// Two requests at once to an HTTP/1.1 service: one takes the prepared
// connection, the other opens its own.
func TestPrepare_TakenOnce(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	s := newHelloServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		arrived.Wait() // both in flight at once: two connections
	}), false)
	tr := NewTransport(s.pool())
	defer tr.CloseIdleConnections()
	u, _ := url.Parse(s.URL)
	p := ConnsOf(tr).Prepare(u, time.Minute)
	if p == nil {
		t.Fatal("nothing prepared")
	}
	<-p.Ready()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
			res, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
		})
	}
	wg.Wait()
	if n := s.accepted.Load(); n != 2 {
		t.Errorf("the service accepted %d connections, want 2", n)
	}
	if n := ConnsOf(tr).Opened(); n != 2 {
		t.Errorf("%d connections opened, want 2", n)
	}
}

// Nothing is prepared when the transport would not dial the service
// itself: behind an HTTP proxy, or for an http:// URL.
func TestPrepare_NotPastAProxy(t *testing.T) {
	proxied := NewTransport(TransportOptions{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: apitest.ClosedAddr(t)})})
	direct := NewTransport(TransportOptions{Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }})
	for _, c := range []struct {
		tr   *Transport
		base string
	}{{proxied, "https://gw.example.test/v1"}, {direct, "http://127.0.0.1:1/v1"}} {
		u, _ := url.Parse(c.base)
		if p := ConnsOf(c.tr).Prepare(u, time.Minute); p != nil {
			p.Close()
			t.Errorf("%s: a connection was prepared", c.base)
		}
		if n := ConnsOf(c.tr).Opened(); n != 0 {
			t.Errorf("%s: %d connections opened", c.base, n)
		}
	}
}

// A prepared connection nobody took within its time is closed; the next
// request opens one of its own.
func TestPrepare_UntakenIsClosed(t *testing.T) {
	s := newHelloServer(t, http.NotFoundHandler(), true)
	tr := NewTransport(s.pool())
	defer tr.CloseIdleConnections()
	c := ConnsOf(tr)
	closed := make(chan struct{}, 1)
	defer c.OnClose(func() { closed <- struct{}{} })()
	u, _ := url.Parse(s.URL)
	p := c.Prepare(u, time.Nanosecond)
	if p == nil {
		t.Fatal("nothing prepared")
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	<-closed
	if c.Open() != 0 {
		t.Fatalf("%d connections open", c.Open())
	}
	if res := get(t, tr, context.Background(), s.URL); res.StatusCode != 404 {
		t.Fatalf("status %d", res.StatusCode)
	}
	select {
	case <-p.Taken():
		t.Error("the request took a connection that was closed")
	default:
	}
	if c.Opened() != 2 || s.accepted.Load() != 2 {
		t.Errorf("%d connections opened, %d accepted; want 2, 2", c.Opened(), s.accepted.Load())
	}
}
