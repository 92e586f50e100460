package api

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"weak"
)

// Conns counts the connections a transport made by NewTransport has open
// (to the service, or to the HTTP proxy in front of it) and tells whoever
// asks when one closes: gw serve opens a replacement ahead of need while
// agents are active (proxy/warm.go).
type Conns struct {
	open    atomic.Int64
	opened  atomic.Int64
	mu      sync.Mutex
	onClose map[*func()]struct{}

	// The transport, for Prepare (weak: the Transport holds its Conns),
	// and the connections prepared, by address, until taken.
	tr       weak.Pointer[http.Transport]
	prepared map[string]*Prepared
}

// Open is the number of connections open now.
func (c *Conns) Open() int { return int(c.open.Load()) }

// Opened is the number of connections opened so far.
func (c *Conns) Opened() int { return int(c.opened.Load()) }

// OnClose adds f to the functions called, on a goroutine of the
// transport's, after a connection closed; f must not block. The function
// returned removes it.
func (c *Conns) OnClose(f func()) (remove func()) {
	p := &f
	c.mu.Lock()
	if c.onClose == nil {
		c.onClose = map[*func()]struct{}{}
	}
	c.onClose[p] = struct{}{}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.onClose, p)
		c.mu.Unlock()
	}
}

func (c *Conns) closed() {
	c.open.Add(-1)
	c.mu.Lock()
	fs := make([]func(), 0, len(c.onClose))
	for p := range c.onClose {
		fs = append(fs, *p)
	}
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// dial wraps a dialer so that the connections it makes are counted.
func (c *Conns) dial(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c.open.Add(1)
		c.opened.Add(1)
		return &countedConn{Conn: conn, c: c}, nil
	}
}

type countedConn struct {
	net.Conn
	c    *Conns
	once sync.Once
}

func (cc *countedConn) Close() error {
	err := cc.Conn.Close()
	cc.once.Do(cc.c.closed)
	return err
}

// ConnsOf returns the connection count of a transport NewTransport made,
// or nil for any other RoundTripper.
func ConnsOf(rt http.RoundTripper) *Conns {
	if t, ok := rt.(*Transport); ok {
		return t.Conns
	}
	return nil
}
