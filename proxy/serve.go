package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
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
	base, cut := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cut(nil)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          log.New(io.Discard, "", 0), // library code does not log
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}

	gctx, gcancel := context.WithTimeout(context.Background(), grace)
	err := srv.Shutdown(gctx)
	gcancel()
	if err != nil {
		cut(ErrShuttingDown)
		_ = srv.Close()
		// Close does not wait for handlers; a second Shutdown does, and the
		// cancelled contexts make them return promptly.
		wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = srv.Shutdown(wctx)
		wcancel()
		err = ErrRequestsCut
	}
	<-errc
	return err
}
