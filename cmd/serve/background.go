package serve

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/reqlog"
)

// How long gw serve --background waits before it serves again after a failure: firstRetry, doubled each
// time up to maxRetry, and firstRetry again after a run that lasted steadyRun (as systemd's RestartSec=5
// and launchd's throttle do for the other platforms' gw serve).
const (
	firstRetry = 5 * time.Second
	maxRetry   = time.Minute
	steadyRun  = time.Minute
)

// backgroundRun is gw serve --background, which the Windows logon task starts (autostart.BackgroundFlag
// says why): it lets go of the console window Windows opened for it, says everything in serve.log, and
// serves again when serving fails, since the Task Scheduler restarts only a task that failed to start.
func backgroundRun(ctx context.Context, opts *ServeOptions) error {
	detached, detachErr := autostart.DetachConsole()
	if detached {
		// The console is gone: what cobra would print on the way out has nowhere to go.
		opts.IO.In, opts.IO.Out, opts.IO.ErrOut = strings.NewReader(""), io.Discard, io.Discard
	}
	paths, err := opts.Paths()
	if err != nil {
		return err
	}
	log, err := reqlog.Open(paths.StateDir)
	if err != nil {
		return err
	}
	opts.Log = log
	if detachErr != nil {
		fmt.Fprintf(log, "gw serve --background: the console window stays: %v\n", detachErr)
	}
	return serveAgain(ctx, log, func(ctx context.Context) error { return serveRun(ctx, opts) }, sleep, time.Now)
}

// serveAgain runs serve until it stops without an error (a stop asked for) or ctx ends; after each failure it
// writes the error to log as one line and waits (wait returns false when ctx ended first).
func serveAgain(ctx context.Context, log io.Writer, serve func(context.Context) error,
	wait func(context.Context, time.Duration) bool, now func() time.Time) error {
	delay := firstRetry
	for {
		start := now()
		err := serve(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if now().Sub(start) >= steadyRun {
			delay = firstRetry
		}
		msg := strings.ReplaceAll(strings.TrimSpace(cmdutil.ErrorWithFix(err)), "\n", "; ")
		fmt.Fprintf(log, "gw serve --background: %s: %s; serving again in %s\n", now().Format(time.DateTime), msg, delay)
		if !wait(ctx, delay) {
			return nil
		}
		delay = min(2*delay, maxRetry)
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
