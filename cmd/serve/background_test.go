package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/standin"
)

// TestServeAgain_WaitsLongerEachFailureAndSaysWhyInOneLine: gw serve --background serves again after each
// failure, 5 s, 10 s, 20 s, 40 s, then every minute, back to 5 s after a run that lasted a minute; each
// failure is one line of the log (the error and its fix), and a stop asked for ends it.
func TestServeAgain_WaitsLongerEachFailureAndSaysWhyInOneLine(t *testing.T) {
	clock := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	// How long each run lasts and how it ends: eight quick failures, one after a long run, then a stop.
	runs := []struct {
		lasts time.Duration
		err   error
	}{
		{0, errors.New("127.0.0.1:8787 is already in use\nby another program")}, {0, errors.New("b")}, {0, errors.New("c")},
		{0, errors.New("d")}, {0, errors.New("e")}, {0, errors.New("f")}, {2 * time.Minute, errors.New("g")},
		{0, errors.New("h")}, {time.Hour, nil},
	}
	i := 0
	serve := func(context.Context) error {
		r := runs[i]
		i++
		clock = clock.Add(r.lasts)
		return r.err
	}
	var waited []time.Duration
	wait := func(_ context.Context, d time.Duration) bool {
		waited = append(waited, d)
		clock = clock.Add(d)
		return true
	}
	var log testutil.SyncBuffer
	if err := serveAgain(context.Background(), &log, serve, wait, now); err != nil {
		t.Fatalf("a stop asked for ended with %v", err)
	}
	s := time.Second
	if want := []time.Duration{5 * s, 10 * s, 20 * s, 40 * s, 60 * s, 60 * s, 5 * s, 10 * s}; !slices.Equal(waited, want) {
		t.Errorf("waited %v, want %v", waited, want)
	}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d log lines for 8 failures:\n%s", len(lines), log.String())
	}
	if want := "gw serve --background: 2026-11-26 09:00:00: 127.0.0.1:8787 is already in use; by another program; serving again in 5s"; lines[0] != want {
		t.Errorf("first line\n got %q\nwant %q", lines[0], want)
	}

	// ctx ending while it waits ends it too.
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := serveAgain(ctx, &log, func(context.Context) error { calls++; return errors.New("x") },
		func(context.Context, time.Duration) bool { cancel(); return false }, now)
	if err != nil || calls != 1 {
		t.Errorf("after ctx ended: %v, %d runs", err, calls)
	}
}

// TestServeBackground_SaysEverythingInServeLogAndServesOnceThePortIsFree runs gw serve --background (without
// the console, which exists only on Windows) on a port another program holds: it writes why it cannot
// serve to serve.log, nothing to the terminal, and serves there once the port is free, writing its
// address and each request to serve.log once. It waits the first retry's 5 s.
func TestServeBackground_SaysEverythingInServeLogAndServesOnceThePortIsFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	env := cmdtest.New(t)
	_ = env.Keyring.Set(cmdutil.Profile, standin.DemoKeyFull)
	stopCtx, stop := context.WithCancel(context.Background())
	opts := &ServeOptions{Port: port, PortSet: true, Background: true, Paths: env.Factory.Paths,
		Signals: func(context.Context) (context.Context, context.CancelFunc) { return stopCtx, func() {} }}
	r := startServeRun(t, opts, env, backgroundRun)
	r.stop = stop
	paths, _ := env.Factory.Paths()
	logPath := filepath.Join(paths.StateDir, "serve.log")
	readLog := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	waitLog := func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(readLog(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("serve.log never said %q:\n%s", what, readLog())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	waitLog(addr + " is already in use")
	waitLog("serving again in 5s")
	ln.Close()
	waitLog("listening on http://" + addr + "/v1")

	token := localToken(t, env)
	if status, body := r.get(t, addr, token); status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	waitLog(" GET /v1/models ")
	stop()
	if err := <-r.done; err != nil {
		t.Errorf("gw serve --background stopped with %v", err)
	}
	r.done <- nil

	text := readLog()
	if n := strings.Count(text, " GET /v1/models "); n != 1 {
		t.Errorf("the request is in serve.log %d times:\n%s", n, text)
	}
	if out, errOut := r.out.String(), r.errOut.String(); out != "" || errOut != "" {
		t.Errorf("gw serve --background wrote to the terminal: stdout %q stderr %q", out, errOut)
	}
	if strings.Contains(text, standin.DemoKeyFull) || strings.Contains(text, token) {
		t.Errorf("serve.log holds a secret:\n%s", text)
	}
}

// TestKeepCrashes_ACrashIsReportedAtTheNextStart crashes a process (this test's binary, run again) after
// keepCrashes as gw serve --background calls it: what Go printed is in serve-crash.log, and the next start
// names it in the request log and moves it aside.
func TestKeepCrashes_ACrashIsReportedAtTheNextStart(t *testing.T) {
	if dir := os.Getenv("GW_TEST_CRASH_IN"); dir != "" {
		keepCrashes(dir, io.Discard)
		panic("gw serve test crash")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKeepCrashes_ACrashIsReportedAtTheNextStart$")
	cmd.Env = append(os.Environ(), "GW_TEST_CRASH_IN="+dir)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the process did not crash:\n%s", out)
	}
	report, err := os.ReadFile(filepath.Join(dir, CrashFile))
	if err != nil || !strings.Contains(string(report), "panic: gw serve test crash") || !strings.Contains(string(report), "goroutine ") {
		t.Fatalf("%s: %v\n%s", CrashFile, err, report)
	}

	t.Cleanup(func() { _ = debug.SetCrashOutput(nil, debug.CrashOptions{}) })
	var log testutil.SyncBuffer
	keepCrashes(dir, &log)
	old := filepath.Join(dir, CrashFile+".old")
	if want := "gw serve --background: the gw serve before this one crashed; what it said is in " + old + "\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if moved, err := os.ReadFile(old); err != nil || string(moved) != string(report) {
		t.Errorf("%s: %v", old, err)
	}
	var again testutil.SyncBuffer
	keepCrashes(dir, &again) // the empty report of a run that did not crash is not news
	if again.String() != "" {
		t.Errorf("log after a run without a crash: %q", again.String())
	}
}
