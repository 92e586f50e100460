package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/standin"
)

func TestFlags(t *testing.T) {
	cases := []struct {
		args    string
		port    int
		portSet bool
		listen  string
		grace   time.Duration
		err     string
	}{
		{args: "", port: config.DefaultPort, grace: proxy.DefaultGrace},
		{args: "--port 0", port: 0, portSet: true, grace: proxy.DefaultGrace},
		{args: "--listen 0.0.0.0:9000 --grace 3s", port: 9000, portSet: true, listen: "0.0.0.0", grace: 3 * time.Second},
		{args: "--listen [::1]:9001", port: 9001, portSet: true, listen: "::1", grace: proxy.DefaultGrace},
		{args: "--listen 192.168.1.2", port: config.DefaultPort, listen: "192.168.1.2", grace: proxy.DefaultGrace},
		{args: "--listen 127.0.0.1:1 --port 2", err: "already names a port"},
		{args: "--listen 127.0.0.1:http", err: "is not a number"},
		{args: "--port 70000", err: "a port is 0–65535"},
	}
	for _, c := range cases {
		t.Run(c.args, func(t *testing.T) {
			env := cmdtest.New(t)
			var got *ServeOptions
			cmd := NewCmdServe(env.Factory, func(_ context.Context, o *ServeOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(c.args))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
					t.Fatalf("got %v, want a usage error saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Port != c.port || got.PortSet != c.portSet || got.Listen != c.listen || got.Grace != c.grace {
				t.Errorf("got port %d (set %v) listen %q grace %s", got.Port, got.PortSet, got.Listen, got.Grace)
			}
		})
	}
}

type running struct {
	env    *cmdtest.Env
	up     *standin.Server
	out    *testutil.SyncBuffer
	errOut *testutil.SyncBuffer
	stop   context.CancelFunc // ctrl-c
	again  context.CancelFunc // ctrl-c again
	done   chan error
	addr   string
}

func startServe(t *testing.T, opts *ServeOptions, env *cmdtest.Env) *running {
	t.Helper()
	return startServeRun(t, opts, env, serveRun)
}

// startServeRun is startServe with run in place of serveRun; opts.Signals, when set, is kept.
func startServeRun(t *testing.T, opts *ServeOptions, env *cmdtest.Env, run func(context.Context, *ServeOptions) error) *running {
	t.Helper()
	if env == nil {
		env = cmdtest.New(t)
	}
	up := standin.New(standin.Options{})
	srv := httptest.NewServer(up)
	t.Cleanup(func() { up.Close(); srv.Close() })
	env.Vars["GW_BASE_URL"] = srv.URL + "/v1"
	r := &running{env: env, up: up, out: &testutil.SyncBuffer{}, errOut: &testutil.SyncBuffer{}, done: make(chan error, 1)}
	env.IO.Out, env.IO.ErrOut = r.out, r.errOut
	f := env.Factory
	opts.IO, opts.Config, opts.ResolveBaseURL, opts.Key, opts.API, opts.Transport = env.IO, f.Config, f.BaseURL, cmdutil.Serving(f.Key), f.APIClient, f.Transport
	opts.NoWarm = true // the tests count the requests the service gets
	if opts.Grace == 0 {
		opts.Grace = time.Second
	}
	var sctx, actx context.Context
	sctx, r.stop = context.WithCancel(context.Background())
	actx, r.again = context.WithCancel(context.Background())
	calls := 0
	if opts.Signals == nil {
		opts.Signals = func(ctx context.Context) (context.Context, context.CancelFunc) {
			calls++ // the first call is for ctrl-c, the second for ctrl-c again
			if calls == 1 {
				return sctx, r.stop
			}
			return actx, r.again
		}
	}
	go func() { r.done <- run(context.Background(), opts) }()
	t.Cleanup(func() {
		r.stop()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("gw serve did not stop")
		}
	})
	return r
}

var listening = regexp.MustCompile(`listening on http://(\S+)/v1`)

func (r *running) waitAddr(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(r.out.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("gw serve ended: %v\nstderr: %s", err, r.errOut.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatalf("gw serve printed no address; stdout %q stderr %q", r.out.String(), r.errOut.String())
	return ""
}

func (r *running) get(t *testing.T, addr, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/models", nil)
	return r.do(t, req, token)
}

// do sends req with the local token on a connection of its own.
func (r *running) do(t *testing.T, req *http.Request, token string) (int, string) {
	t.Helper()
	status, body, err := send(req, token)
	if err != nil {
		t.Fatal(err)
	}
	return status, body
}

// send is do for goroutines other than the test's: a failed request is an error, not t.Fatal.
func send(req *http.Request, token string) (int, string, error) {
	req.Header.Set("Authorization", "Bearer "+token)
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	res, err := tr.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body) // a cut stream ends early: what arrived is returned
	return res.StatusCode, string(b), nil
}

func localToken(t *testing.T, env *cmdtest.Env) string {
	t.Helper()
	c, _, err := env.Factory.Config()
	if err != nil || !strings.HasPrefix(c.LocalToken, "gw-local-") {
		t.Fatalf("no local token in the config: %+v %v", c, err)
	}
	return c.LocalToken
}

func TestServeForwardsWithTheKeyAndLogs(t *testing.T) {
	env := cmdtest.New(t)
	_ = env.Keyring.Set(cmdutil.Profile, standin.DemoKeyFull)
	r := startServe(t, &ServeOptions{Port: 0, PortSet: true}, env)
	addr := r.waitAddr(t)
	token := localToken(t, env)

	status, body := r.get(t, addr, token)
	if status != 200 || !strings.Contains(body, "vendor-a/model-a-sonnet-4.5") {
		t.Fatalf("status %d: %s", status, body)
	}
	if seen := r.up.Seen(); len(seen) != 1 || seen[0].Key != standin.DemoKeyFull {
		t.Errorf("the service did not get the stored key: %+v", seen)
	}
	r.stop()
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
	r.done <- nil

	stderr := r.errOut.String()
	if !strings.Contains(stderr, " GET /v1/models status=200 ") || !strings.Contains(stderr, "gw serve: stopped") {
		t.Errorf("stderr:\n%s", stderr)
	}
	paths, _ := env.Factory.Paths()
	logFile, err := os.ReadFile(filepath.Join(paths.StateDir, "serve.log"))
	if err != nil || !strings.Contains(string(logFile), " GET /v1/models status=200 ") {
		t.Errorf("serve.log: %v\n%s", err, logFile)
	}
	for name, text := range map[string]string{"stdout": r.out.String(), "stderr": stderr, "serve.log": string(logFile)} {
		if strings.Contains(text, standin.DemoKeyFull) || strings.Contains(text, token) {
			t.Errorf("%s holds a secret:\n%s", name, text)
		}
	}
}

func TestServePicksUpLoginAndLogout(t *testing.T) {
	env := cmdtest.New(t)
	r := startServe(t, &ServeOptions{Port: 0, PortSet: true, KeyRefresh: time.Millisecond}, env)
	addr := r.waitAddr(t)
	token := localToken(t, env)
	if !strings.Contains(r.errOut.String(), "no API key stored yet") {
		t.Errorf("no warning about the missing key: %s", r.errOut.String())
	}
	if status, body := r.get(t, addr, token); status != 401 || !strings.Contains(body, "no key stored — run gw auth login") {
		t.Fatalf("before login: %d %s", status, body)
	}
	_ = env.Keyring.Set(cmdutil.Profile, standin.DemoKeyFull) // gw auth login in another terminal
	waitStatus(t, r, addr, token, 200)
	_ = env.Keyring.Delete(cmdutil.Profile) // gw auth logout
	waitStatus(t, r, addr, token, 401)
}

func waitStatus(t *testing.T, r *running, addr, token string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if status, _ := r.get(t, addr, token); status == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("gw serve never answered %d", want)
}

func TestServePortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	env := cmdtest.New(t)
	r := startServe(t, &ServeOptions{Port: port, PortSet: true}, env)
	err = <-r.done
	r.done <- nil
	if err == nil || !strings.Contains(err.Error(), ln.Addr().String()+" is already in use") || !strings.Contains(err.Error(), "--port") {
		t.Errorf("got %v", err)
	}
}

func TestServeAlreadyRunning(t *testing.T) {
	env := cmdtest.New(t)
	first := startServe(t, &ServeOptions{Port: 0, PortSet: true}, env)
	addr := first.waitAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	second := startServe(t, &ServeOptions{Port: p, PortSet: true}, env)
	err := <-second.done
	second.done <- nil
	if err == nil || !strings.Contains(err.Error(), "gw serve is already running on "+addr) {
		t.Errorf("got %v", err)
	}
}

// gw serve lets Go's scheduler widen to two CPUs (fewer where Go's default
// is fewer: one CPU, or a container limited to one) while several requests
// run, unless the user set GOMAXPROCS.
func TestServeProcs(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for goDefault, want := range map[int]int{1: 1, 2: 2, 16: 2} {
		if n := serveProcs(getenv, goDefault); n != want {
			t.Errorf("GOMAXPROCS unset, Go's default %d: got %d, want %d", goDefault, n, want)
		}
	}
	env["GOMAXPROCS"] = "4"
	if n := serveProcs(getenv, 16); n != 0 {
		t.Errorf("GOMAXPROCS=4 set by the user: gw serve would manage the scheduler (%d CPUs)", n)
	}
}

// An agent retrying a misspelled model id gets "did you mean" each time,
// while gw serve lists the account's models once per key, not per error.
func TestServeListsModelsOncePerKeyForSuggestions(t *testing.T) {
	env := cmdtest.New(t)
	_ = env.Keyring.Set(cmdutil.Profile, standin.DemoKeyFull)
	r := startServe(t, &ServeOptions{Port: 0, PortSet: true, KeyRefresh: time.Millisecond}, env)
	addr := r.waitAddr(t)
	token := localToken(t, env)
	post := func() {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/chat/completions",
			strings.NewReader(`{"model":"vendor-a/model-a-sonet-4.5","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		if status, body := r.do(t, req, token); status < 400 || !strings.Contains(body, "did you mean") {
			t.Fatalf("misspelled model: status %d %s", status, body)
		}
	}
	listings := func(key string) int {
		n := 0
		for _, s := range r.up.Seen() {
			if s.Method == "GET" && s.Path == "/v1/models" && s.Key == key {
				n++
			}
		}
		return n
	}
	lastChatKey := func() string {
		seen := r.up.Seen()
		for i := len(seen) - 1; i >= 0; i-- {
			if seen[i].Path == "/v1/chat/completions" {
				return seen[i].Key
			}
		}
		return ""
	}

	for range 3 {
		post()
	}
	if n := listings(standin.DemoKeyFull); n != 1 {
		t.Errorf("three misspellings listed the models %d times, want once", n)
	}

	// gw auth login with another account: its models are listed afresh.
	_ = env.Keyring.Set(cmdutil.Profile, standin.DemoKeyPartial)
	deadline := time.Now().Add(5 * time.Second)
	for lastChatKey() != standin.DemoKeyPartial && time.Now().Before(deadline) {
		post()
		time.Sleep(5 * time.Millisecond)
	}
	if lastChatKey() != standin.DemoKeyPartial {
		t.Fatal("the new key did not reach the service within 5 s")
	}
	post()
	if n := listings(standin.DemoKeyPartial); n != 1 {
		t.Errorf("after the key changed the models were listed %d times with the new key, want once", n)
	}
	if n := listings(standin.DemoKeyFull); n != 1 {
		t.Errorf("listings with the old key: %d, want still 1", n)
	}
}

// ctrl-c starts the grace period; ctrl-c again cuts the running streams at once instead of waiting it out.
func TestServeSecondInterruptCutsTheGracePeriod(t *testing.T) {
	env := cmdtest.New(t)
	_ = env.Keyring.Set(cmdutil.Profile, standin.DemoKeyFull)
	r := startServe(t, &ServeOptions{Port: 0, PortSet: true, Grace: time.Hour}, env)
	addr := r.waitAddr(t)
	token := localToken(t, env)
	r.up.SetFault(standin.Fault{Kind: standin.FaultSlowStream, Delay: time.Hour})

	streamErr := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/chat/completions",
			strings.NewReader(`{"model":"vendor-a/model-a-haiku-4.5","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		status, body, err := send(req, token) // reads the stream to its end, or to the cut
		if err != nil {
			streamErr <- err
			return
		}
		if status == http.StatusOK && strings.Contains(body, "data: [DONE]") {
			streamErr <- nil
			return
		}
		streamErr <- fmt.Errorf("status %d, stream cut after %q", status, body)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.up.WaitFor(ctx, func(s []standin.Seen) bool { return len(s) == 1 }); err != nil {
		t.Fatal("the stream did not reach the stand-in")
	}

	r.stop()
	for !strings.Contains(r.errOut.String(), "ctrl-c again to stop them now") {
		select {
		case <-ctx.Done():
			t.Fatalf("no stopping message: %s", r.errOut.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	r.again()
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil {
			t.Errorf("gw serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ctrl-c again did not end the hour-long grace period")
	}
	if !strings.Contains(r.errOut.String(), "gw serve: stopped; requests still running at the end of the grace period were cancelled") {
		t.Errorf("stderr: %s", r.errOut.String())
	}
	if err := <-streamErr; err == nil {
		t.Error("the cut stream ended as if complete")
	}
}
