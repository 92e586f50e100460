package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/standin"
)

// served is gw serve's handler run by Serve on a real listener, in front of
// a stand-in.
type served struct {
	up      *standin.Server
	addr    string
	stop    context.CancelFunc // ctrl-c
	stopNow context.CancelFunc // ctrl-c again: the grace period ends at once
	done    chan error
	client  *http.Client
	log     *testutil.SyncBuffer // the request log
}

func startServe(t *testing.T, so standin.Options, grace time.Duration) *served {
	t.Helper()
	up := standin.New(so)
	s := serveUpstream(t, up, grace, up.Close)
	s.up = up
	return s
}

// serveUpstream runs gw serve's handler with ServeUntil on a real listener
// (the server settings and connection handling of gw serve, which
// httptest's server lacks) in front of up. release, if not nil, lets up's
// handlers return when the test ends.
func serveUpstream(t *testing.T, up http.Handler, grace time.Duration, release func()) *served {
	t.Helper()
	upSrv := httptest.NewServer(up)
	u, _ := url.Parse(upSrv.URL + "/v1")
	tr := api.NewTransport(api.TransportOptions{})
	log := &testutil.SyncBuffer{}
	h, err := New(Options{Upstream: u, Transport: tr, LocalToken: testToken, Log: log,
		Key:  NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0),
		Warm: WarmOptions{Off: true}}) // its requests would be among those counted
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	stopNow, hurry := context.WithCancel(context.Background())
	s := &served{addr: ln.Addr().String(), stop: stop, stopNow: hurry, done: make(chan error, 1),
		client: &http.Client{Transport: &http.Transport{Proxy: nil}}, log: log}
	go func() { s.done <- ServeUntil(ctx, stopNow, ln, h, grace) }()
	t.Cleanup(func() {
		stop()
		if release != nil {
			release()
		}
		<-s.done
		s.client.CloseIdleConnections()
		tr.CloseIdleConnections()
		upSrv.Close()
	})
	return s
}

func (s *served) stream(t *testing.T) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, _ := http.NewRequestWithContext(waitCtx(t), "POST", "http://"+s.addr+"/v1/chat/completions", strings.NewReader(chatBody(sonnet, true)))
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(res.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return res, br
}

func TestShutdownLetsRunningStreamsFinish(t *testing.T) {
	release := make(chan struct{})
	s := startServe(t, standin.Options{BeforeEvent: func(ctx context.Context, n int) {
		if n == 1 {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}}, time.Minute)
	res, br := s.stream(t)
	defer res.Body.Close()

	s.stop() // SIGINT
	// New connections are refused once shutdown has begun.
	waitRefused(t, s.addr)
	close(release)
	rest, err := io.ReadAll(br)
	if err != nil || !strings.Contains(string(rest), "data: [DONE]") {
		t.Errorf("the running stream did not finish: %v\n%s", err, rest)
	}
	if err := <-s.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	s.done <- nil // for Cleanup
}

func TestShutdownCancelsStreamsAfterTheGracePeriod(t *testing.T) {
	s := startServe(t, standin.Options{BeforeEvent: func(ctx context.Context, n int) {
		if n == 1 {
			<-ctx.Done() // a model that never says anything more
		}
	}}, 50*time.Millisecond)
	res, br := s.stream(t)
	defer res.Body.Close()

	s.stop()
	if err := <-s.done; !errors.Is(err, ErrRequestsCut) {
		t.Errorf("Serve returned %v, want ErrRequestsCut", err)
	}
	s.done <- nil
	if _, err := io.ReadAll(br); err == nil {
		t.Error("the cut stream ended as if complete")
	}
	seen, err := s.up.WaitFor(waitCtx(t), func(s []standin.Seen) bool { return len(s) == 1 && s[0].Done })
	if err != nil || !seen[0].Cancelled {
		t.Errorf("the upstream request was not cancelled: %+v", seen)
	}
}

// A second ctrl-c during the grace period cuts the running streams at once
// instead of waiting the grace period out.
func TestShutdownNowCutsStreamsBeforeTheGracePeriodEnds(t *testing.T) {
	s := startServe(t, standin.Options{BeforeEvent: func(ctx context.Context, n int) {
		if n == 1 {
			<-ctx.Done() // a model that never says anything more
		}
	}}, time.Hour)
	res, br := s.stream(t)
	defer res.Body.Close()

	s.stop()
	waitRefused(t, s.addr) // shutting down, the stream still running
	s.stopNow()
	select {
	case err := <-s.done:
		s.done <- err // for Cleanup
		if !errors.Is(err, ErrRequestsCut) {
			t.Errorf("ServeUntil returned %v, want ErrRequestsCut", err)
		}
	case <-waitCtx(t).Done():
		t.Fatal("the second signal did not end the hour-long grace period")
	}
	if _, err := io.ReadAll(br); err == nil {
		t.Error("the cut stream ended as if complete")
	}
}

func waitRefused(t *testing.T, addr string) {
	t.Helper()
	ctx := waitCtx(t)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		c.Close()
		select {
		case <-ctx.Done():
			t.Fatal("still accepting connections after shutdown began")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestListenNamesWhoHoldsThePort(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	var pe *PortInUseError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a PortInUseError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, ln.Addr().String()+" is already in use") || !strings.Contains(msg, "--port") {
		t.Errorf("message: %s", msg)
	}
	if _, statErr := os.Stat("/proc/net/tcp"); statErr == nil {
		// On Linux the holder is found: this test binary.
		if !strings.Contains(pe.Holder, "(pid "+strconv.Itoa(os.Getpid())+")") {
			t.Errorf("holder %q does not name this process", pe.Holder)
		}
	}
}

func TestListenBadAddress(t *testing.T) {
	_, err := Listen("256.0.0.1:80")
	if err == nil || !strings.Contains(err.Error(), "cannot listen on 256.0.0.1:80") {
		t.Errorf("got %v", err)
	}
}

func TestProbe(t *testing.T) {
	s := startServe(t, standin.Options{}, time.Second)
	ctx := waitCtx(t)
	if err := Probe(ctx, s.addr, testToken); err != nil {
		t.Errorf("probe of a running gw serve: %v", err)
	}
	if err := Probe(ctx, s.addr, "gw-local-other"); !errors.Is(err, ErrTokenRejected) {
		t.Errorf("probe with another token: %v", err)
	}
	if len(s.up.Seen()) != 0 {
		t.Error("probing reached the hosted service")
	}

	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	if err := Probe(ctx, strings.TrimPrefix(other.URL, "http://"), testToken); !errors.Is(err, ErrNotGwServe) {
		t.Errorf("probe of another server: %v", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln.Addr().String()
	ln.Close()
	if err := Probe(ctx, free, testToken); !errors.Is(err, ErrNotRunning) {
		t.Errorf("probe of a closed port: %v", err)
	}
}

// A handler cut at the end of the grace period may take a while to return
// (it still writes its log line then); Serve must wait for it, or gw serve
// closes the log under it.
func TestServeReturnsOnlyAfterCutHandlersReturn(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var returned atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer returned.Store(true)
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		close(started)
		<-r.Context().Done()
		if !errors.Is(context.Cause(r.Context()), ErrShuttingDown) {
			t.Errorf("handler cancelled with %v, want ErrShuttingDown", context.Cause(r.Context()))
		}
		time.Sleep(200 * time.Millisecond) // cleaning up after the cut
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, 20*time.Millisecond) }()

	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(waitCtx(t), "GET", "http://"+ln.Addr().String()+"/v1/models", nil)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	<-started

	stop()
	if err := <-done; !errors.Is(err, ErrRequestsCut) {
		t.Errorf("Serve returned %v, want ErrRequestsCut", err)
	}
	if !returned.Load() {
		t.Error("Serve returned while a cut handler was still running")
	}
}
