package proxy

import (
	"context"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/standin"
)

// warmRig is gw serve's handler, its warmer on, in front of a stand-in
// served over TLS (HTTP/1.1, or HTTP/2 too), as the hosted service is.
type warmRig struct {
	barrier barrier
	up      *standin.Running
	tr      *api.Transport
	conns   *api.Conns
	h       *Handler
	base    string
	ctr     *http.Transport
}

// rigSetup changes what newWarmRig builds.
type rigSetup struct {
	// listener wraps the stand-in's TCP listener (below its TLS).
	listener func(net.Listener) net.Listener
	// proxy is the transport's proxy (none by default, whatever the
	// environment says).
	proxy func(*http.Request) (*url.URL, error)
	// handler, if set, answers before the stand-in; false: the stand-in
	// answers.
	handler func(http.ResponseWriter, *http.Request) bool
}

func newWarmRig(t *testing.T, so standin.Options, wo WarmOptions, setups ...func(*rigSetup)) *warmRig {
	t.Helper()
	var rs rigSetup
	for _, f := range setups {
		f(&rs)
	}
	cert, certPEM, err := standin.SelfSignedCert()
	if err != nil {
		t.Fatal(err)
	}
	s := standin.New(so)
	r := &warmRig{}
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if rs.handler != nil && rs.handler(w, req) {
			return
		}
		if req.Method == http.MethodGet && req.URL.Path == "/v1/models" {
			r.barrier.wait(req.Context())
		}
		s.ServeHTTP(w, req)
	}))
	hs.TLS = standin.TLSConfig(cert, so.HTTP2)
	hs.EnableHTTP2 = so.HTTP2
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes the tests break
	if rs.listener != nil {
		hs.Listener = rs.listener(hs.Listener)
	}
	hs.StartTLS()
	up := &standin.Running{Server: s, HTTP: hs, BaseURL: hs.URL + "/v1", CertPEM: certPEM}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(up.CertPEM)
	if rs.proxy == nil {
		rs.proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	}
	tr := api.NewTransport(api.TransportOptions{RootCAs: roots, Proxy: rs.proxy})
	u, _ := url.Parse(up.BaseURL)
	if wo.gap == 0 {
		wo.gap = time.Nanosecond // replacements at once: the tests wait for them
	}
	if wo.grace == 0 {
		wo.grace = time.Nanosecond // the GET at once, unless a test waits for the agent
	}
	h, err := New(Options{Upstream: u, Transport: tr, LocalToken: testToken, Log: io.Discard,
		Key: NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0), Warm: wo})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	r.up, r.tr, r.conns, r.h, r.base, r.ctr = up, tr, api.ConnsOf(tr), h, srv.URL+"/v1", &http.Transport{}
	t.Cleanup(func() {
		r.ctr.CloseIdleConnections()
		srv.Close()
		h.warm.stop()
		up.Close()
		tr.CloseIdleConnections()
	})
	return r
}

// barrier holds the model lists the stand-in is asked for, once armed,
// until n are asked for at once: a round of the warmer's requests is then
// known to have run side by side, as it does when the service is a round
// trip away.
type barrier struct {
	mu   sync.Mutex
	n    int
	in   int
	open chan struct{}
}

func (b *barrier) arm(n int) {
	b.mu.Lock()
	b.n, b.in, b.open = n, 0, make(chan struct{})
	b.mu.Unlock()
}

func (b *barrier) wait(ctx context.Context) {
	b.mu.Lock()
	if b.open == nil {
		b.mu.Unlock()
		return
	}
	open := b.open
	b.in++
	if b.in >= b.n {
		close(b.open)
		b.open = nil
	}
	b.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
	}
}

// until waits for cond, checked after every connection change and now and
// then; the test's deadline bounds it (it asserts no duration).
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx := waitCtx(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting: %s", what)
		case <-time.After(time.Millisecond):
		}
	}
}

// idle waits until the warmer has no request under way.
func (r *warmRig) idle(t *testing.T) {
	t.Helper()
	until(t, "the warmer's requests to end", func() bool {
		r.h.warm.mu.Lock()
		defer r.h.warm.mu.Unlock()
		return r.h.warm.warming == 0
	})
}

// chat sends one streamed chat completion through gw serve and reads it
// whole; it returns the status.
func (r *warmRig) chat(t *testing.T, body string) int {
	t.Helper()
	if body == "" {
		body = `{"model":"` + sonnet + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	}
	req, _ := http.NewRequest(http.MethodPost, r.base+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := r.ctr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatalf("the answer broke off: %v", err)
	}
	return res.StatusCode
}

func posts(up *standin.Running) int {
	n := 0
	for _, s := range up.Seen() {
		if s.Method == http.MethodPost {
			n++
		}
	}
	return n
}

// At start gw serve opens one connection with a request that spends
// nothing, and the agent's first request goes out on it: no handshake of
// its own.
func TestWarm_OpensAConnectionAtStart(t *testing.T) {
	r := newWarmRig(t, standin.Options{}, WarmOptions{})
	r.idle(t)
	seen := r.up.Seen()
	if len(seen) != 1 || seen[0].Method != http.MethodGet || seen[0].Path != "/v1/models" || seen[0].Key != realKey || seen[0].Status != 200 {
		t.Fatalf("the warm request: %+v; want one GET /v1/models with the key", seen)
	}
	if r.conns.Opened() != 1 {
		t.Fatalf("%d connections opened at start, want 1", r.conns.Opened())
	}
	if status := r.chat(t, ""); status != 200 {
		t.Fatalf("status %d", status)
	}
	if r.conns.Opened() != 1 {
		t.Errorf("the agent's first request opened a connection of its own (%d opened)", r.conns.Opened())
	}
	if bal, _ := r.up.Balance(realKey); bal != 10000 {
		t.Errorf("balance %d after the warm request and one chat; the stand-in charges nothing by default", bal)
	}
}

// The service closes the idle connection (as its load balancer does,
// without a word): gw serve opens a replacement at once while the agent is
// active, and the agent's next request goes out on it, once.
func TestWarm_ReplacesAClosedConnection(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "http1", true: "http2"}[h2], func(t *testing.T) {
			r := newWarmRig(t, standin.Options{HTTP2: h2}, WarmOptions{})
			r.idle(t)
			if status := r.chat(t, ""); status != 200 {
				t.Fatalf("status %d", status)
			}
			r.up.HTTP.CloseClientConnections()
			until(t, "a replacement", func() bool { return r.conns.Opened() == 2 && r.conns.Open() == 1 })
			r.idle(t)
			if status := r.chat(t, ""); status != 200 {
				t.Fatalf("the request after the close: status %d", status)
			}
			if n := posts(r.up); n != 2 {
				t.Errorf("%d chat requests reached the service, want 2 (one each)", n)
			}
			if r.conns.Opened() != 2 {
				t.Errorf("the agent's request opened a connection of its own: %d opened, want 2", r.conns.Opened())
			}
		})
	}
}

// After a burst of concurrent streams, an HTTP/1.1 service gets as many
// connections kept ready; an HTTP/2 one gets one, which carries them all.
func TestWarm_KeepsTheRecentPeak(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "http1", true: "http2"}[h2], func(t *testing.T) {
			const n = 3
			var started sync.WaitGroup
			started.Add(n)
			release := make(chan struct{})
			r := newWarmRig(t, standin.Options{HTTP2: h2, BeforeEvent: func(ctx context.Context, ev int) {
				if ev == 0 {
					started.Done()
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
			}}, WarmOptions{})
			r.idle(t)
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					if status := r.chat(t, ""); status != 200 {
						t.Errorf("status %d", status)
					}
				})
			}
			started.Wait() // all n in flight at once
			close(release)
			wg.Wait()
			want := n
			if h2 {
				want = 1
			}
			if r.conns.Open() != want {
				t.Fatalf("%d connections open after the burst, want %d", r.conns.Open(), want)
			}
			opened := r.conns.Opened()
			r.barrier.arm(want)
			r.up.HTTP.CloseClientConnections()
			// A replacement may go out on a connection that is closing
			// at that moment and need another: at least want are kept,
			// and never more than the bound.
			until(t, "the replacements", func() bool {
				r.h.warm.mu.Lock()
				defer r.h.warm.mu.Unlock()
				return r.conns.Opened() >= opened+want && r.conns.Open() >= want && r.h.warm.warming == 0
			})
			if open := r.conns.Open(); open > DefaultWarmConns {
				t.Errorf("%d connections kept ready, want %d", open, want)
			}
		})
	}
}

// Once no agent's request came for the window, a closed connection is not
// replaced: gw serve sends nothing of its own.
func TestWarm_StopsWhenTheAgentsStop(t *testing.T) {
	r := newWarmRig(t, standin.Options{}, WarmOptions{})
	r.idle(t)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	w := r.h.warm
	w.mu.Lock()
	w.now = func() time.Time { return time.Unix(0, now.Load()) }
	w.mu.Unlock()
	if status := r.chat(t, ""); status != 200 {
		t.Fatalf("status %d", status)
	}
	now.Add(int64(DefaultWarmWindow + time.Second))
	seen := len(r.up.Seen())
	r.up.HTTP.CloseClientConnections()
	until(t, "the close", func() bool { return r.conns.Open() == 0 })
	w.check() // what the transport calls after the close, once more
	w.mu.Lock()
	warming := w.warming
	w.mu.Unlock()
	r.idle(t)
	if warming != 0 || r.conns.Open() != 0 || len(r.up.Seen()) != seen {
		t.Errorf("after the window: %d warm requests started, %d connections open, %d requests reached the service; want none",
			warming, r.conns.Open(), len(r.up.Seen())-seen)
	}

	// The agent is back: its request opens a connection, and a close is
	// replaced again.
	if status := r.chat(t, ""); status != 200 {
		t.Fatalf("status %d", status)
	}
	opened := r.conns.Opened()
	r.up.HTTP.CloseClientConnections()
	until(t, "a replacement", func() bool { return r.conns.Opened() == opened+1 && r.conns.Open() == 1 })
}

// An unreachable service at start changes nothing: gw serve starts, says
// where it listens, answers an agent as it would without the warmer, and
// stops at once, with the warm request still waiting on a service that
// accepted the connection and says nothing.
func TestWarm_UnreachableServiceAtStart(t *testing.T) {
	// Port 1: nothing listens there, and no port 0 listener (gw serve's
	// own, here) is ever given it, as a port just closed can be.
	refused := "http://127.0.0.1:1/v1"

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var accepted sync.WaitGroup
	accepted.Add(1)
	go func() {
		var once sync.Once
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			once.Do(accepted.Done)
			defer c.Close()
		}
	}()

	answers := map[bool]string{}
	for _, off := range []bool{true, false} {
		u, _ := url.Parse(refused)
		r := startRun(t, RunOptions{Upstream: u, Warm: WarmOptions{Off: off}})
		res, body := rawRequest(t, r.addr, "POST /v1/chat/completions HTTP/1.1\r\nHost: "+r.addr+"\r\nAuthorization: Bearer "+testToken+
			"\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		answers[off] = res.Status + " " + body
		if err := r.wait(t); err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	if answers[true] != answers[false] || !strings.Contains(answers[false], "502") {
		t.Errorf("with the warmer the agent was answered\n%s\nwithout it\n%s", answers[false], answers[true])
	}

	u, _ := url.Parse("https://" + silent.Addr().String() + "/v1")
	r := startRun(t, RunOptions{Upstream: u})
	accepted.Wait() // the warm request is waiting for a TLS handshake that never comes
	if err := r.wait(t); err != nil {
		t.Errorf("Run: %v", err)
	}
}

// brokenConn fails its writes, once broken, without writing anything: a
// kept connection the service reset while it was idle (mock: a real reset
// reaches the transport's reader first, leaving no window to test).
type brokenConn struct {
	net.Conn
	broken atomic.Bool
}

func (c *brokenConn) Write(p []byte) (int, error) {
	if c.broken.Load() {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.ECONNRESET}
	}
	return c.Conn.Write(p)
}

// A request that goes out on a kept connection found reset before any
// byte of it was written is sent again on a new connection, body whole,
// and reaches the service once; a forwarded request's body is the agent's,
// read once, so this needs the handler's rewindBody.
func TestRetry_NothingWritten_MockConn(t *testing.T) {
	for _, path := range []string{"/chat/completions", "/messages"} {
		t.Run(path, func(t *testing.T) {
			up := standin.Start(standin.Options{})
			defer up.Close()
			var mu sync.Mutex
			var conns []*brokenConn
			d := &net.Dialer{}
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := d.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				bc := &brokenConn{Conn: c}
				mu.Lock()
				conns = append(conns, bc)
				mu.Unlock()
				return bc, nil
			}}
			defer tr.CloseIdleConnections()
			u, _ := url.Parse(up.BaseURL)
			h, err := New(Options{Upstream: u, Transport: tr, LocalToken: testToken, Log: io.Discard,
				Key: NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0), Warm: WarmOptions{Off: true}})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			ctr := &http.Transport{}
			defer ctr.CloseIdleConnections()

			// Longer than the transport's write buffer: its first write
			// fails with part of the body read.
			long := strings.Repeat("a long prompt ", 2000)
			body := `{"model":"` + sonnet + `","stream":true,"max_tokens":64,"messages":[{"role":"user","content":"` + long + `"}]}`
			send := func() (int, string) {
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1"+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+testToken)
				req.Header.Set("Content-Type", "application/json")
				res, err := ctr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(b)
			}
			if status, b := send(); status != 200 {
				t.Fatalf("first request: %d %s", status, b)
			}
			mu.Lock()
			if len(conns) != 1 {
				t.Fatalf("%d connections after one request", len(conns))
			}
			conns[0].broken.Store(true) // the kept connection: reset
			mu.Unlock()
			status, b := send()
			if status != 200 {
				t.Errorf("the request after the reset: %d %s", status, b)
			}
			if n := posts(up); n != 2 {
				t.Errorf("%d chat requests reached the service, want 2 (one each)", n)
			}
			for _, s := range up.Seen() {
				if s.PromptTokens < 2000 {
					t.Errorf("the service got a prompt of %d tokens: the body was not sent whole", s.PromptTokens)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(conns) != 2 {
				t.Errorf("%d connections, want 2: the kept one, then a new one", len(conns))
			}
		})
	}
}

// gateListener counts the connections the stand-in accepts and holds the
// handshake of the first one (its first read) until the test lets it go
// on, or breaks it: the service far away, the handshake of the connection
// gw serve opened at start still under way.
type gateListener struct {
	net.Listener
	accepted atomic.Int32
	first    chan net.Conn // the first connection, once accepted
	open     chan struct{}
}

func newGate() *gateListener {
	return &gateListener{first: make(chan net.Conn, 1), open: make(chan struct{})}
}

func (l *gateListener) wrap(ln net.Listener) net.Listener { l.Listener = ln; return l }

func (l *gateListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if l.accepted.Add(1) == 1 {
		l.first <- c
		return &gatedConn{Conn: c, open: l.open, closed: make(chan struct{})}, nil
	}
	return c, nil
}

type gatedConn struct {
	net.Conn
	open   chan struct{}
	closed chan struct{}
	once   sync.Once
}

func (c *gatedConn) Read(p []byte) (int, error) {
	select {
	case <-c.open:
	case <-c.closed:
		return 0, net.ErrClosed
	}
	return c.Conn.Read(p)
}

func (c *gatedConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// wait waits for ch to close; the test's deadline bounds it.
func wait(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-waitCtx(t).Done():
		t.Fatalf("gave up waiting: %s", what)
	}
}

// chatAsync sends one streamed chat completion through gw serve, as chat
// does, on a goroutine of its own; the channel gets its status (0: the
// request failed).
func (r *warmRig) chatAsync(t *testing.T) <-chan int {
	done := make(chan int, 1)
	go func() {
		body := `{"model":"` + sonnet + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`
		req, _ := http.NewRequest(http.MethodPost, r.base+"/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		res, err := r.ctr.RoundTrip(req)
		if err != nil {
			t.Errorf("the agent's request: %v", err)
			done <- 0
			return
		}
		defer res.Body.Close()
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			t.Errorf("the answer broke off: %v", err)
		}
		done <- res.StatusCode
	}()
	return done
}

func modelLists(up *standin.Running) int {
	n := 0
	for _, s := range up.Seen() {
		if s.Method == http.MethodGet && s.Path == "/v1/models" {
			n++
		}
	}
	return n
}

var protoName = map[bool]string{false: "http1", true: "http2"}

// The agent's first request, coming while the connection gw serve opened
// at start is still in its handshake (as with gw run, and a service far
// away) or after it, goes out on that connection: the service accepts one
// connection, not two, and gets no GET of gw serve's own.
func TestWarm_FirstRequestTakesThePreparedConnection(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		for _, during := range []bool{true, false} {
			t.Run(protoName[h2]+map[bool]string{true: "/during the handshake", false: "/after it"}[during], func(t *testing.T) {
				gate := newGate()
				r := newWarmRig(t, standin.Options{HTTP2: h2}, WarmOptions{grace: time.Hour}, func(s *rigSetup) { s.listener = gate.wrap })
				p := r.h.warm.prep
				if p == nil {
					t.Fatal("no connection prepared at start")
				}
				if during {
					until(t, "the connection opened at start", func() bool { return gate.accepted.Load() == 1 })
				} else {
					close(gate.open)
					wait(t, "the handshake", p.Ready())
					if err := p.Err(); err != nil {
						t.Fatalf("the connection opened at start: %v", err)
					}
				}
				done := r.chatAsync(t)
				wait(t, "the agent's request to take the connection", p.Taken())
				if during {
					close(gate.open)
				}
				if status := <-done; status != 200 {
					t.Fatalf("status %d", status)
				}
				r.idle(t)
				if n := gate.accepted.Load(); n != 1 {
					t.Errorf("the service accepted %d connections, want 1: the first request opened one of its own", n)
				}
				if n := r.conns.Opened(); n != 1 {
					t.Errorf("gw serve opened %d connections, want 1", n)
				}
				if n, m := posts(r.up), modelLists(r.up); n != 1 || m != 0 {
					t.Errorf("the service got %d chat requests and %d model lists, want 1 and 0", n, m)
				}
				r.h.warm.mu.Lock()
				if r.h.warm.h2 != h2 {
					t.Errorf("the warmer takes the service for HTTP/2: %v, want %v", r.h.warm.h2, h2)
				}
				r.h.warm.mu.Unlock()
			})
		}
	}
}

// The connection opened at start breaks in its handshake (the service
// hangs up) while the agent's first request waits for it: the request
// opens a connection of its own and is answered, once.
func TestWarm_PreparedConnectionFails(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(protoName[h2], func(t *testing.T) {
			gate := newGate()
			r := newWarmRig(t, standin.Options{HTTP2: h2}, WarmOptions{grace: time.Hour}, func(s *rigSetup) { s.listener = gate.wrap })
			p := r.h.warm.prep
			if p == nil {
				t.Fatal("no connection prepared at start")
			}
			var first net.Conn
			select {
			case first = <-gate.first:
			case <-waitCtx(t).Done():
				t.Fatal("gave up waiting: the connection opened at start")
			}
			done := r.chatAsync(t)
			wait(t, "the agent's request to take the connection", p.Taken())
			first.Close()
			if status := <-done; status != 200 {
				t.Fatalf("status %d", status)
			}
			r.idle(t)
			if p.Err() == nil {
				t.Fatal("the connection opened at start did not fail: the test broke nothing")
			}
			if n := gate.accepted.Load(); n != 2 {
				t.Errorf("the service accepted %d connections, want 2 (the broken one, the request's own)", n)
			}
			if n, m := posts(r.up), modelLists(r.up); n != 1 || m != 0 {
				t.Errorf("the service got %d chat requests and %d model lists, want 1 and 0", n, m)
			}
		})
	}
}

// connectProxy is an HTTP proxy that tunnels CONNECT requests and counts
// them.
func connectProxy(t *testing.T) (*url.URL, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		n.Add(1)
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		// What the client sent already may be in brw's buffer.
		go func() { io.Copy(up, brw); up.Close() }()
		io.Copy(c, up)
		c.Close()
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u, &n
}

// Behind an HTTP proxy (HTTPS_PROXY), gw serve opens its first connection
// as before, with the GET of /models at once, through the proxy; the
// agent's request goes through it too.
func TestWarm_ThroughAnHTTPProxy(t *testing.T) {
	pu, connects := connectProxy(t)
	r := newWarmRig(t, standin.Options{}, WarmOptions{grace: time.Hour}, func(s *rigSetup) { s.proxy = http.ProxyURL(pu) })
	if r.h.warm.prep != nil {
		t.Fatal("a connection was prepared past the proxy")
	}
	r.idle(t) // the GET, at once: the grace does not apply
	if m := modelLists(r.up); m != 1 || connects.Load() != 1 {
		t.Fatalf("at start: %d model lists, %d CONNECTs; want 1, 1", m, connects.Load())
	}
	if status := r.chat(t, ""); status != 200 {
		t.Fatalf("status %d", status)
	}
	if n := connects.Load(); n != 1 || posts(r.up) != 1 {
		t.Errorf("%d CONNECTs, %d chat requests; want 1, 1: the request went out on the connection opened at start", n, posts(r.up))
	}
}

// gw serve stopping while the connection opened at start is still in its
// handshake closes it, and leaves nothing of it running.
func TestWarm_StopWhilePreparing(t *testing.T) {
	gate := newGate()
	r := newWarmRig(t, standin.Options{}, WarmOptions{}, func(s *rigSetup) { s.listener = gate.wrap })
	p := r.h.warm.prep
	if p == nil {
		t.Fatal("no connection prepared at start")
	}
	until(t, "the connection opened at start", func() bool { return gate.accepted.Load() == 1 })
	r.h.warm.stop()
	wait(t, "the handshake to end", p.Ready())
	if p.Err() == nil {
		t.Error("the handshake ended well: it was not stopped")
	}
	until(t, "the connection to close", func() bool { return r.conns.Open() == 0 })
	until(t, "the goroutines of the warmer and the handshake to end", func() bool {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		return !strings.Contains(stacks, "proxy.(*warmer)") && !strings.Contains(stacks, "gw/api.handshake") &&
			!strings.Contains(stacks, "gw/api.(*Conns).Prepare")
	})
	if posts(r.up) != 0 || modelLists(r.up) != 0 {
		t.Error("the service got a request")
	}
}

// A WebSocket upgrade through gw serve to a service offering HTTP/2 goes
// over HTTP/1.1, which it needs, as it did before gw opened its TLS
// connections itself.
func TestWarm_WebSocketUpgradeOverHTTP1(t *testing.T) {
	r := newWarmRig(t, standin.Options{HTTP2: true}, WarmOptions{}, func(s *rigSetup) {
		s.handler = func(w http.ResponseWriter, req *http.Request) bool {
			if req.URL.Path != "/v1/realtime" {
				return false
			}
			if req.ProtoMajor != 1 || !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
				http.Error(w, "a WebSocket upgrade needs HTTP/1.1", http.StatusHTTPVersionNotSupported)
				return true
			}
			c, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return true
			}
			defer c.Close()
			brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
			brw.Flush()
			line, _ := brw.ReadString('\n')
			brw.WriteString("echo " + line)
			brw.Flush()
			return true
		}
	})
	r.idle(t)
	req, _ := http.NewRequest(http.MethodGet, r.base+"/realtime", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	res, err := r.ctr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusSwitchingProtocols {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d: %s", res.StatusCode, b)
	}
	rw, ok := res.Body.(io.ReadWriter)
	if !ok {
		t.Fatalf("the upgraded body is a %T", res.Body)
	}
	io.WriteString(rw, "hello\n")
	b := make([]byte, len("echo hello\n"))
	if _, err := io.ReadFull(rw, b); err != nil || string(b) != "echo hello\n" {
		t.Errorf("through the upgraded connection: %q, %v", b, err)
	}
}
