package api

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"
	"unicode/utf8"
)

// The transport made by NewTransport opens its TLS connections itself
// (DialTLSContext), as net/http would: the dial (DialContext, counted by
// Conns), then the handshake with the transport's TLS configuration, the
// server's name from the address, the protocols net/http offers (h2 and
// http/1.1) and its handshake time-out, failing with the same errors. What
// it adds is the prepared connection: a connection to the service opened
// ahead of need (Conns.Prepare), which the next dial of that address takes,
// waiting for its handshake if it is still under way. It started earlier,
// so it is never ready later than a new one would be.
//
// A request through an HTTP proxy dials the proxy with DialContext and
// net/http's own TLS, as before; one through an https:// proxy has its TLS
// connection to the proxy opened here, the same way net/http would.

// handshakeTimeout is the error of a handshake that did not end within the
// transport's TLSHandshakeTimeout: the text and kind of net/http's own.
type handshakeTimeout struct{}

func (handshakeTimeout) Error() string   { return "net/http: TLS handshake timeout" }
func (handshakeTimeout) Timeout() bool   { return true }
func (handshakeTimeout) Temporary() bool { return true }

type onlyHTTP1Key struct{}

// OnlyHTTP1 marks a request's context so that a connection opened for it
// offers no protocol in its handshake (ALPN), HTTP/1.1 then being the one
// spoken, as net/http does for a request it must send over HTTP/1 (a
// WebSocket upgrade): use it on such a request to the service.
func OnlyHTTP1(ctx context.Context) context.Context {
	return context.WithValue(ctx, onlyHTTP1Key{}, true)
}

// dialTLS is the DialTLSContext of t.
func (c *Conns) dialTLS(t *http.Transport) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		onlyH1 := ctx.Value(onlyHTTP1Key{}) != nil
		if !onlyH1 {
			if p := c.take(addr); p != nil {
				if conn, err, ok := p.await(ctx); ok {
					return conn, err
				}
			}
		}
		return handshake(ctx, t, network, addr, onlyH1)
	}
}

// handshake opens a TLS connection to addr as net/http does for a
// transport without a DialTLSContext.
func handshake(ctx context.Context, t *http.Transport, network, addr string, onlyH1 bool) (*tls.Conn, error) {
	var conn net.Conn
	var err error
	if t.DialContext != nil {
		conn, err = t.DialContext(ctx, network, addr)
		if conn == nil && err == nil {
			err = errors.New("net/http: Transport.DialContext hook returned (nil, nil)")
		}
	} else {
		var d net.Dialer
		conn, err = d.DialContext(ctx, network, addr)
	}
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		conn.Close()
		return nil, err
	}
	cfg := t.TLSClientConfig.Clone()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg.ServerName = cmp.Or(cfg.ServerName, host)
	if onlyH1 {
		cfg.NextProtos = nil
	}
	tc := tls.Client(conn, cfg)
	errc := make(chan error, 2)
	var timer *time.Timer
	if d := t.TLSHandshakeTimeout; d != 0 {
		timer = time.AfterFunc(d, func() { errc <- handshakeTimeout{} })
	}
	go func() {
		err := tc.HandshakeContext(ctx)
		if timer != nil {
			timer.Stop()
		}
		errc <- err
	}()
	if err := <-errc; err != nil {
		conn.Close()
		if err == (handshakeTimeout{}) {
			<-errc // the handshake ends once its connection is closed
		}
		return nil, err
	}
	return tc, nil
}

// Prepared is a connection to the service opened ahead of need by
// Conns.Prepare. The transport's next dial of its address takes it; until
// then nothing reads it.
type Prepared struct {
	c      *Conns
	addr   string
	keep   time.Duration
	cancel context.CancelFunc
	ready  chan struct{} // closed once the dial and handshake ended
	taken  chan struct{} // closed when a dial took it
	conn   *tls.Conn     // set before ready is closed, on success
	err    error         // set before ready is closed, on failure

	// guarded by c.mu
	gone  bool // taken, dropped, expired or failed: no longer offered
	timer *time.Timer
}

// Prepare opens a connection (TCP and TLS) to the service at target in the
// background; the transport's next request to it that needs a new
// connection takes it. It returns nil, opening nothing, when the transport
// would not dial the service itself (an http:// URL, an HTTP proxy in
// front of it, a transport gone) or a connection to it is already
// prepared. An untaken connection is closed keep after its handshake
// ended: nothing reads it, so it would not notice the service closing it.
func (c *Conns) Prepare(target *url.URL, keep time.Duration) *Prepared {
	return c.prepare(target, keep, false)
}

// PrepareAnother is Prepare also when connections to target are prepared
// already: for a burst of requests expected at once (an agent's first,
// right after gw serve started for it). Dials take them in order.
func (c *Conns) PrepareAnother(target *url.URL, keep time.Duration) *Prepared {
	return c.prepare(target, keep, true)
}

func (c *Conns) prepare(target *url.URL, keep time.Duration, another bool) *Prepared {
	t := c.tr.Value()
	if t == nil || target == nil || target.Scheme != "https" || target.Hostname() == "" {
		return nil
	}
	host := target.Hostname()
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			return nil // net/http dials its IDNA form: left to the transport
		}
	}
	if t.Proxy != nil {
		req := &http.Request{Method: http.MethodGet, URL: target, Header: http.Header{}, Host: target.Host}
		if u, err := t.Proxy(req); err != nil || u != nil {
			return nil
		}
	}
	port := cmp.Or(target.Port(), "443")
	addr := net.JoinHostPort(host, port)
	// net/http sets the protocols it offers (NextProtos) on the first use
	// of the transport; Clone is one, and changes nothing else.
	_ = t.Clone()

	ctx, cancel := context.WithCancel(context.Background())
	p := &Prepared{c: c, addr: addr, keep: keep, cancel: cancel, ready: make(chan struct{}), taken: make(chan struct{})}
	c.mu.Lock()
	if c.prepared == nil {
		c.prepared = map[string][]*Prepared{}
	}
	if len(c.prepared[addr]) > 0 && !another {
		c.mu.Unlock()
		cancel()
		return nil
	}
	c.prepared[addr] = append(c.prepared[addr], p)
	c.mu.Unlock()
	go func() {
		conn, err := handshake(ctx, t, "tcp", addr, false)
		cancel()
		c.mu.Lock()
		p.conn, p.err = conn, err
		close(p.ready)
		var drop *tls.Conn
		switch {
		case err != nil:
			c.forget(p)
		case p.gone:
			if !p.isTaken() {
				drop = conn // dropped while the handshake was under way
			}
		default:
			p.timer = time.AfterFunc(p.keep, p.expire)
		}
		c.mu.Unlock()
		if drop != nil {
			drop.Close()
		}
	}()
	return p
}

// forget stops offering p; c.mu is held.
func (c *Conns) forget(p *Prepared) {
	p.gone = true
	if ps := slices.DeleteFunc(c.prepared[p.addr], func(q *Prepared) bool { return q == p }); len(ps) > 0 {
		c.prepared[p.addr] = ps
	} else {
		delete(c.prepared, p.addr)
	}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// take hands the connection prepared for addr, if any, to a dial.
func (c *Conns) take(addr string) *Prepared {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.prepared[addr]
	if len(ps) == 0 {
		return nil
	}
	p := ps[0]
	c.forget(p)
	close(p.taken)
	return p
}

func (p *Prepared) isTaken() bool {
	select {
	case <-p.taken:
		return true
	default:
		return false
	}
}

// await waits for the taken connection. ok is false when the dial should
// open one of its own: the prepared one failed, other than by timing out
// (a new one would time out as late again).
func (p *Prepared) await(ctx context.Context) (conn *tls.Conn, err error, ok bool) {
	select {
	case <-p.ready:
	case <-ctx.Done():
		go func() {
			<-p.ready
			if p.conn != nil {
				p.conn.Close()
			}
		}()
		return nil, ctx.Err(), true
	}
	if p.err == nil {
		return p.conn, nil, true
	}
	if isTimeout(p.err) && !errors.Is(p.err, context.Canceled) {
		return nil, p.err, true
	}
	return nil, nil, false
}

// expire closes the connection nobody took within keep.
func (p *Prepared) expire() {
	p.c.mu.Lock()
	if p.gone {
		p.c.mu.Unlock()
		return
	}
	p.c.forget(p)
	p.c.mu.Unlock()
	p.conn.Close()
}

// Ready is closed once the connection is open or failed to open.
func (p *Prepared) Ready() <-chan struct{} { return p.ready }

// Taken is closed when a request's dial took the connection.
func (p *Prepared) Taken() <-chan struct{} { return p.taken }

// Err is why the connection could not be opened, once Ready is closed.
func (p *Prepared) Err() error {
	<-p.ready
	return p.err
}

// Protocol is the protocol the service chose in the handshake ("h2", or
// "http/1.1" or "" for HTTP/1.1), once Ready is closed.
func (p *Prepared) Protocol() string {
	<-p.ready
	if p.conn == nil {
		return ""
	}
	return p.conn.ConnectionState().NegotiatedProtocol
}

// Close stops the dial under way, or closes the connection, unless a
// request took it (it is then the transport's).
func (p *Prepared) Close() {
	p.c.mu.Lock()
	if p.isTaken() {
		p.c.mu.Unlock()
		return
	}
	wasGone := p.gone
	p.c.forget(p)
	var conn *tls.Conn
	select {
	case <-p.ready:
		if !wasGone {
			conn = p.conn
		}
	default:
	}
	p.c.mu.Unlock()
	p.cancel()
	if conn != nil {
		conn.Close()
	}
}
