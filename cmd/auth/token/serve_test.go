package token

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/proxy"
)

// fakeServe stands for the port: nothing answers until Start has been called and start has passed, then
// this install's gw serve does. The real detached start and the real probe run in the testscripts
// (auth_token_serve*.txtar) and in e2e with the agents.
type fakeServe struct {
	starts atomic.Int32
	up     atomic.Bool
	start  time.Duration
	other  error  // what answers instead of gw serve, when set
	exit   string // a gw serve that stops at once, saying this
}

func (f *fakeServe) probe(ctx context.Context, addr, token string) error {
	switch {
	case f.other != nil:
		return f.other
	case f.up.Load():
		return nil
	}
	return fmt.Errorf("%w on %s: connection refused", proxy.ErrNotRunning, addr)
}

func (f *fakeServe) Start(ctx context.Context, port int) (Started, error) {
	f.starts.Add(1)
	exited := make(chan string, 1)
	if f.exit != "" {
		exited <- f.exit
		return Started{Exited: exited}, nil
	}
	time.AfterFunc(f.start, func() { f.up.Store(true) })
	return Started{Exited: exited}, nil
}

func serveOptions(e *cmdtest.Env, f *fakeServe) *TokenOptions {
	return &TokenOptions{IO: e.IO, Key: e.Factory.Key, Config: e.Factory.Config, ResolveBaseURL: e.Factory.BaseURL,
		Probe: f.probe, Start: f.Start, Serve: true, StartWait: time.Second, LockWait: 2 * time.Second}
}

func newServeEnv(t *testing.T) *cmdtest.Env {
	e := cmdtest.New(t)
	e.Vars["GW_BASE_URL"] = "http://127.0.0.1:9/v1"
	_ = e.Keyring.Set(cmdutil.Profile, "sk-gw-demo-full")
	return e
}

// TestServeToken_TwoAgentsAtOnceStartOneGwServe: two agents whose credential command runs at the same
// moment, with no gw serve running, both get the local token, and only one gw serve is started (the
// start lock is a real file lock; the port is a fake, see fakeServe).
func TestServeToken_TwoAgentsAtOnceStartOneGwServe(t *testing.T) {
	e := newServeEnv(t)
	f := &fakeServe{start: 5 * time.Millisecond}
	var wg sync.WaitGroup
	tokens := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tokens[i], errs[i] = ensureServe(context.Background(), serveOptions(e, f))
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || !strings.HasPrefix(tokens[i], "gw-local-") {
			t.Fatalf("agent %d: token %q, err %v", i, tokens[i], errs[i])
		}
	}
	if tokens[0] != tokens[1] {
		t.Errorf("the two agents got different tokens: %q, %q", tokens[0], tokens[1])
	}
	if n := f.starts.Load(); n != 1 {
		t.Errorf("gw serve started %d times, want once", n)
	}
}

// TestServeToken_Failures: each way gw serve cannot serve the agent is one line on stderr naming the cause
// and what to do, with no token on stdout, and no gw serve started where it could not serve.
func TestServeToken_Failures(t *testing.T) {
	squatter := fmt.Errorf("%w on 127.0.0.1:8787 (HTTP 404) (held by python3 (pid 7)); gw sent it nothing", proxy.ErrNotGwServe)
	for _, c := range []struct {
		name   string
		fake   *fakeServe
		noKey  bool
		want   string
		code   cmdutil.ExitCode
		starts int32
	}{
		{name: "another program on the port", fake: &fakeServe{other: squatter}, want: "something other than gw serve answers", code: cmdutil.ExitError},
		{name: "no key stored", noKey: true, want: "no API key", code: cmdutil.ExitAuth},
		{name: "gw serve stops at once", fake: &fakeServe{exit: "gw: listen tcp 127.0.0.1:8787: bind: address already in use\nfix: stop it\n"},
			want: "gw serve could not start: listen tcp 127.0.0.1:8787: bind: address already in use; fix: stop it", code: cmdutil.ExitError, starts: 1},
		{name: "gw serve never answers", fake: &fakeServe{start: time.Hour}, want: "did not answer on 127.0.0.1:8787 within 1s", code: cmdutil.ExitError, starts: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newServeEnv(t)
			if c.fake == nil {
				c.fake = &fakeServe{}
			}
			if c.noKey {
				_ = e.Keyring.Delete(cmdutil.Profile)
			}
			f := c.fake
			err := serveTokenRun(context.Background(), serveOptions(e, f))
			if got := cmdutil.ExitCodeFor(err); got != c.code {
				t.Errorf("exit %d, want %d (%v)", got, c.code, err)
			}
			line := cmdutil.ErrorLine(err)
			if !strings.Contains(line, c.want) || strings.Contains(line, "\n") {
				t.Errorf("error %q: want one line with %q", line, c.want)
			}
			if e.Out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", e.Out)
			}
			if n := f.starts.Load(); n != c.starts {
				t.Errorf("gw serve started %d times, want %d", n, c.starts)
			}
		})
	}
}

// TestServeToken_RunningGwServe: with this install's gw serve answering, the token is printed and nothing
// is started.
func TestServeToken_RunningGwServe(t *testing.T) {
	e := newServeEnv(t)
	f := &fakeServe{}
	f.up.Store(true)
	if err := serveTokenRun(context.Background(), serveOptions(e, f)); err != nil {
		t.Fatal(err)
	}
	cfg, _, _ := e.Factory.Config()
	if e.Out.String() != cfg.LocalToken+"\n" || f.starts.Load() != 0 {
		t.Errorf("stdout %q (token %q), %d starts", e.Out, cfg.LocalToken, f.starts.Load())
	}
}

// TestServeToken_LockHeldTooLong: a gw that holds the start lock past the bound does not hang the agent.
func TestServeToken_LockHeldTooLong(t *testing.T) {
	e := newServeEnv(t)
	_, paths, _ := e.Factory.Config()
	unlock, err := acquire(paths.ConfigDir+"/"+StartLock, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	o := serveOptions(e, &fakeServe{})
	o.LockWait = 50 * time.Millisecond
	err = serveTokenRun(context.Background(), o)
	if line := cmdutil.ErrorLine(err); !strings.Contains(line, "another gw has been starting gw serve") || errors.Is(err, nil) {
		t.Errorf("error %q", line)
	}
}
