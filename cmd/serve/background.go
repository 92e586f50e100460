package serve

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/safetext"
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
	log, stateDir, err := openServeLog(opts)
	if err != nil {
		return err
	}
	if detachErr != nil {
		fmt.Fprintf(log, "gw serve --background: the console window stays: %v\n", detachErr)
	}
	keepCrashes(stateDir, log)
	return serveAgain(ctx, log, func(ctx context.Context) error { return serveRun(ctx, opts) }, sleep, time.Now)
}

// openServeLog opens the request log (serve.log in gw's state directory) of a gw serve no terminal shows
// (--background, --on-demand) and makes it where that gw serve says everything (opts.Log). It returns the
// state directory too.
func openServeLog(opts *ServeOptions) (*reqlog.File, string, error) {
	paths, err := opts.Paths()
	if err != nil {
		return nil, "", err
	}
	log, err := reqlog.Open(paths.StateDir)
	if err != nil {
		return nil, "", err
	}
	opts.Log = log
	return log, paths.StateDir, nil
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
		// One line, whatever the error quotes (a port holder's process name): control characters escaped.
		msg := safetext.Line(strings.ReplaceAll(strings.TrimSpace(cmdutil.ErrorWithFix(err)), "\n", "; "))
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

// CrashFile is where gw serve --background writes what Go prints when gw crashes (an unhandled panic, a
// fatal error), which would otherwise go to a console it no longer has; the next start names it in the
// request log and moves it to CrashFile+".old". Nothing restarts a crashed gw serve before the next logon.
const CrashFile = "serve-crash.log"

func keepCrashes(stateDir string, log io.Writer) {
	path := filepath.Join(stateDir, CrashFile)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		if fsutil.Rename(path, path+".old") == nil {
			fmt.Fprintf(log, "gw serve --background: the gw serve before this one crashed; what it said is in %s\n", path+".old")
		}
	}
	f, err := fsutil.OpenAppend(path, 0o600)
	if err != nil {
		fmt.Fprintf(log, "gw serve --background: a crash would leave no report: %v\n", err)
		return
	}
	defer f.Close() // SetCrashOutput keeps a duplicate
	_ = debug.SetCrashOutput(f, debug.CrashOptions{})
}
