package proxy

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

// Listening beyond loopback is not exercised here (tests stay on loopback);
// what decides the warning is (config.IsLoopbackHost, tested there) and the hosts accepted.
func TestListenHosts(t *testing.T) {
	if got := listenHosts("192.168.1.2"); len(got) != 1 || got[0] != "192.168.1.2" {
		t.Errorf("listenHosts: %v", got)
	}
}

// An agent retrying a misspelled id costs one listing per key and minute;
// a failed listing is tried again at the next error.
func TestModelListIsReusedPerKeyForAMinute(t *testing.T) {
	var listed []string
	fail := false
	m := newModelList(func(_ context.Context, key string) ([]string, error) {
		listed = append(listed, key)
		if fail {
			return nil, errors.New("service unreachable")
		}
		return []string{"model-of-" + key}, nil
	})
	clock := time.Unix(1000, 0)
	m.now = func() time.Time { return clock }
	ctx := context.Background()

	for range 3 {
		if ids, err := m.get(ctx, "k1"); err != nil || len(ids) != 1 || ids[0] != "model-of-k1" {
			t.Fatalf("got %v, %v", ids, err)
		}
	}
	clock = clock.Add(modelListTTL - time.Second)
	_, _ = m.get(ctx, "k1")
	if len(listed) != 1 {
		t.Errorf("listed %d times within the minute, want once: %v", len(listed), listed)
	}
	_, _ = m.get(ctx, "k2") // gw auth login with another account
	clock = clock.Add(modelListTTL)
	fail = true
	if _, err := m.get(ctx, "k2"); err == nil {
		t.Error("a failed listing after the minute was answered from the cache")
	}
	fail = false
	if ids, _ := m.get(ctx, "k2"); len(ids) != 1 || ids[0] != "model-of-k2" {
		t.Errorf("after a failed listing: %v", ids)
	}
	if want := []string{"k1", "k2", "k2", "k2"}; len(listed) != len(want) {
		t.Errorf("listings %v, want %v", listed, want)
	}
}

// running is Run on a free port against the stand-in, stopped by the test
// (ctrl-c) or at its end.
type running struct {
	up     *standin.Running
	out    *testutil.SyncBuffer
	errOut *testutil.SyncBuffer
	stop   context.CancelFunc
	done   chan error
	addr   string
}

func startRun(t *testing.T, o RunOptions) *running {
	t.Helper()
	r := &running{up: standin.Start(standin.Options{}), out: &testutil.SyncBuffer{}, errOut: &testutil.SyncBuffer{},
		done: make(chan error, 1)}
	t.Cleanup(r.up.Close)
	o.Out, o.ErrOut = r.out, r.errOut
	if o.Upstream == nil {
		o.Upstream, _ = url.Parse(r.up.BaseURL)
	}
	tr := api.NewTransport(api.TransportOptions{})
	t.Cleanup(tr.CloseIdleConnections)
	o.Transport = tr
	if o.KeySource == nil {
		o.KeySource = func(context.Context) (string, keychain.Source, error) { return realKey, keychain.SourceKeychain, nil }
	}
	if o.LocalToken == "" {
		o.LocalToken = testToken
	}
	if o.Grace == 0 {
		o.Grace = time.Second
	}
	sctx, stop := context.WithCancel(context.Background())
	r.stop = stop
	o.Signals = func(context.Context) (context.Context, context.CancelFunc) { return sctx, stop }
	go func() { r.done <- Run(context.Background(), o) }()
	t.Cleanup(func() { r.wait(t) })
	deadline := time.Now().Add(10 * time.Second)
	for r.addr == "" {
		if m := regexp.MustCompile(`listening on http://(\S+)/v1`).FindStringSubmatch(r.out.String()); m != nil {
			r.addr = m[1]
			break
		}
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("Run ended before it listened: %v\nstderr: %s", err, r.errOut)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("Run printed no address; stderr: %s", r.errOut)
		}
	}
	return r
}

// wait stops Run and returns its error.
func (r *running) wait(t *testing.T) error {
	t.Helper()
	r.stop()
	select {
	case err := <-r.done:
		r.done <- err
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
		return nil
	}
}

func (r *running) get(t *testing.T, path string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+r.addr+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// A serve.log planted as a link (to the user's ~/.bashrc) gets no line: gw
// serve says why and logs on stderr only.
func TestRunRefusesALogFileThatIsALink(t *testing.T) {
	state := t.TempDir()
	outside := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(outside, []byte("export PATH=/usr/bin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.Symlink(t, outside, filepath.Join(state, LogName))
	r := startRun(t, RunOptions{StateDir: state})
	if status := r.get(t, "/v1/models"); status != 200 {
		t.Fatalf("status %d", status)
	}
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "export PATH=/usr/bin\n" {
		t.Errorf("the request log went through the link:\n%s", b)
	}
	stderr := r.errOut.String()
	want := "warning: request log only on stderr: refusing to write the log " + filepath.Join(state, LogName) + ": it is a symlink (to " + outside + ")"
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, " GET /v1/models status=200 ") {
		t.Errorf("stderr:\n%s\nwant it to say %q and log the request", stderr, want)
	}
}

func TestRunLogsToServeLog(t *testing.T) {
	state := t.TempDir()
	r := startRun(t, RunOptions{StateDir: state})
	r.get(t, "/v1/models")
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(state, LogName))
	if err != nil || !strings.Contains(string(b), " GET /v1/models status=200 ") {
		t.Errorf("serve.log: %v\n%s", err, b)
	}
}

// A stranger trying tokens on gw serve's port: serve.log accounts for every
// attempt, in a few lines rather than one each.
func TestRunCountsAStrangersRefusals(t *testing.T) {
	state := t.TempDir()
	r := startRun(t, RunOptions{StateDir: state})
	const tries = 50
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	for range tries {
		req, _ := http.NewRequest("GET", "http://"+r.addr+"/v1/models", nil)
		req.Header.Set("Authorization", "Bearer gw-local-guess")
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(state, LogName))
	if err != nil {
		t.Fatal(err)
	}
	logs := string(b)
	if n := loggedRequests(logs); n != tries || strings.Count(logs, "refused=local_token_invalid") >= tries {
		t.Errorf("serve.log accounts for %d of %d refusals in %d lines:\n%s", n, tries, strings.Count(logs, "\n"), logs)
	}
}

// gw serve on a port other than the configured one says so once at start,
// and notes where it runs for gw doctor while it runs.
func TestRunOnAnotherPortSaysSoAndNotesItsAddress(t *testing.T) {
	state := t.TempDir()
	r := startRun(t, RunOptions{StateDir: state, ConfiguredPort: 1})
	_, port, _ := net.SplitHostPort(r.addr)
	want := "gw serve: port " + port + " is not the configured port 1, where gw init agent points agents: they will not reach this gw serve; restart gw serve without --port (it then listens on 1), or point the agents at port " + port + ": gw init agent --port " + port + "\n"
	st, err := ReadState(state)
	if err != nil || st.Addr != r.addr || st.PID != os.Getpid() {
		t.Errorf("state file: %+v, %v; want %s", st, err, r.addr)
	}
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if got := r.errOut.String(); strings.Count(got, want) != 1 {
		t.Errorf("stderr does not say once %q:\n%s", want, got)
	}
	if _, err := os.Lstat(filepath.Join(state, StateName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the state file outlived gw serve: %v", err)
	}

	// On the configured port (or with none known): not a word about it.
	r = startRun(t, RunOptions{StateDir: t.TempDir()})
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.errOut.String(), "configured port") {
		t.Errorf("stderr:\n%s", r.errOut.String())
	}
}

// The state file is gw's own: a link planted under its name is neither
// written through nor removed, and gw serve says why doctor will not find it.
func TestRunRefusesAStateFileThatIsALink(t *testing.T) {
	state := t.TempDir()
	outside := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(outside, []byte("export PATH=/usr/bin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(state, StateName)
	testutil.Symlink(t, outside, link)
	r := startRun(t, RunOptions{StateDir: state})
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "export PATH=/usr/bin\n" {
		t.Errorf("written through the link: %q", b)
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced or removed: %v", err)
	}
	if !strings.Contains(r.errOut.String(), "warning: gw doctor will not find this gw serve: refusing to use "+link+": it is a symlink") {
		t.Errorf("stderr:\n%s", r.errOut.String())
	}
}

// A key gw serve cannot read at start is a warning whose fix is the key error's own remedy, said by the one
// renderer (the keychain's, here); gw doctor when the error carries none.
func TestRun_KeyUnreadableSaysItsFix(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"keychain failed", &keychain.UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session")},
			"; requests will be refused until it can: start or unlock the OS keychain (on Linux without a desktop, start a Secret Service: gnome-keyring-daemon --unlock --components=secrets, in a D-Bus session), then run: gw auth login;"},
		{"no remedy", errors.New("disk on fire"),
			"warning: the API key cannot be read (disk on fire); requests will be refused until it can: run: gw doctor\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRun(t, RunOptions{KeySource: func(context.Context) (string, keychain.Source, error) { return "", "", tc.err }})
			if err := r.wait(t); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.errOut.String(), tc.want) {
				t.Errorf("stderr:\n%s\nwant it to contain %q", r.errOut, tc.want)
			}
		})
	}
}

// A listing the service is slow to answer holds up no one for longer than
// their own request: callers waiting for it share its one GET, one that
// hangs up stops waiting at once, and its hanging up fails no one else's.
// (The service is a fake listing function: its answer is released by the
// test, to order the steps without timing them.)
func TestModelListSharedAndLeftByCancelledCallers_FakeService(t *testing.T) {
	release := make(chan struct{})
	var fetches atomic.Int32
	m := newModelList(func(ctx context.Context, key string) ([]string, error) {
		fetches.Add(1)
		select {
		case <-release:
			return []string{"model-of-" + key}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	first, cancelFirst := context.WithCancel(context.Background())
	type answer struct {
		ids []string
		err error
	}
	firstDone := make(chan answer, 1)
	go func() {
		ids, err := m.get(first, "k")
		firstDone <- answer{ids, err}
	}()
	const others = 8
	othersDone := make(chan answer, others)
	for range others {
		go func() {
			ids, err := m.get(context.Background(), "k")
			othersDone <- answer{ids, err}
		}()
	}
	// One that has already given up is answered at once, the listing
	// still under way.
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()
	if _, err := m.get(gone, "k"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a caller that hung up: %v, want context.Canceled", err)
	}
	cancelFirst()
	if a := <-firstDone; !errors.Is(a.err, context.Canceled) {
		t.Fatalf("the first caller, hung up: %v, %v", a.ids, a.err)
	}
	close(release)
	for range others {
		if a := <-othersDone; a.err != nil || len(a.ids) != 1 || a.ids[0] != "model-of-k" {
			t.Fatalf("a caller sharing the listing got %v, %v", a.ids, a.err)
		}
	}
	// Callers that came after the listing ended were answered from it too.
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d listings for callers that came together, want 1", n)
	}
	if ids, err := m.get(context.Background(), "k"); err != nil || ids[0] != "model-of-k" || fetches.Load() != 1 {
		t.Errorf("after the listing: %v, %v (%d listings)", ids, err, fetches.Load())
	}
}
