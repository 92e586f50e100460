package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server-side time-outs. There is deliberately no WriteTimeout: it would cut
// long SSE streams from slow reasoning models.
const (
	ReadHeaderTimeout = 10 * time.Second
	IdleTimeout       = 2 * time.Minute
	// DefaultGrace is how long running requests may finish after SIGINT/SIGTERM.
	DefaultGrace = 10 * time.Second
)

// ErrRequestsCut is returned by Serve when requests were still running when
// the grace period ended and had to be cancelled.
var ErrRequestsCut = errors.New("requests still running at the end of the grace period were cancelled")

// Serve serves h on ln until ctx is done. Then it stops accepting, lets
// running requests (streams included) finish for up to grace, cancels the
// ones still running (their upstream requests with them) and returns once
// every handler has returned.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	return ServeUntil(ctx, context.Background(), ln, h, grace)
}

// ServeUntil is Serve whose grace period also ends when stopNow is done (a
// second ctrl-c: the user does not want to wait for running streams).
func ServeUntil(ctx, stopNow context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	base, cut := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cut(nil)
	var running handlers
	srv := &http.Server{
		Handler:           running.wrap(h),
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       withConn,
		ConnState:         connState,
		ErrorLog:          log.New(io.Discard, "", 0), // library code does not log
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(errorListener{ln}) }()

	select {
	case err := <-errc:
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}

	gctx, gcancel := context.WithTimeout(stopNow, grace)
	err := srv.Shutdown(gctx)
	gcancel()
	if err != nil {
		// The cancelled contexts make the remaining handlers (and their
		// upstream requests) return promptly. Shutdown cannot be asked to
		// wait for them: once Close has dropped their connections it no
		// longer knows them, so the handlers are counted here.
		cut(ErrShuttingDown)
		err = ErrRequestsCut
	}
	if !running.waitIdle(cutWait) {
		// A handler that ignores its context: closing its connection makes
		// its writes fail, which is the last way to end it.
		_ = srv.Close()
		running.waitIdle(cutWait)
	}
	// net/http finishes an answer after its handler has returned: it
	// writes what is still buffered and the end of a chunked body. The
	// connections are closed once that is done (Shutdown waits for them to
	// go idle), so that the last words of a cut request — an error, a
	// stream's error event — reach the client whole.
	fctx, fcancel := context.WithTimeout(context.Background(), cutWait)
	_ = srv.Shutdown(fctx)
	fcancel()
	_ = srv.Close()
	<-errc
	return err
}

// cutWait bounds each wait for cancelled handlers to return.
const cutWait = 5 * time.Second

// handlers counts the handlers running, so Serve can return only once every
// one has: after that nothing writes to the request log.
type handlers struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil when nobody waits
}

func (c *handlers) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		markServing(r)
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
		defer c.leave() // also when the handler aborts with a panic
		h.ServeHTTP(w, r)
	})
}

func (c *handlers) leave() {
	c.mu.Lock()
	c.n--
	if c.n == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
	c.mu.Unlock()
}

// waitIdle waits up to d for no handler to be running and reports whether
// that happened.
func (c *handlers) waitIdle(d time.Duration) bool {
	c.mu.Lock()
	if c.n == 0 {
		c.mu.Unlock()
		return true
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	idle := c.idle
	c.mu.Unlock()
	return waitFor(idle, d)
}

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
