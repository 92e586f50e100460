package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/standin"
)

// The official SDKs run as clients of gw serve's real handler, with the
// stand-in behind it: one node process per SDK (testdata/sdk/*.mjs) runs
// the cases the test writes on its stdin, one JSON line each, and answers
// each with one JSON line. The SDKs are kept in .cache/ (scripts/test.sh
// installs them, pinned); without them, or without node, the tests are
// skipped, and fail when GW_REQUIRE_SDKS=1. sdk_test.go runs the scenarios.

// sdkDir is .cache/<dir> when each of pkgs is installed in it.
func sdkDir(t *testing.T, dir string, pkgs ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs node with the official SDKs")
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("GW_REQUIRE_SDKS") == "1" {
			t.Fatal("node is not installed (GW_REQUIRE_SDKS=1)")
		}
		t.Skip("node is not installed")
	}
	abs, err := filepath.Abs(filepath.Join("..", ".cache", dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(abs, "node_modules", p, "package.json")); err != nil {
			msg := p + " is not installed in .cache/" + dir + "; scripts/test.sh installs it (npm install --prefix .cache/" + dir + " " + strings.Join(pkgs, " ") + ")"
			if os.Getenv("GW_REQUIRE_SDKS") == "1" {
				t.Fatal(msg + " (GW_REQUIRE_SDKS=1)")
			}
			t.Skip(msg)
		}
	}
	return abs
}

// sdkDriver is the node process of one SDK.
type sdkDriver struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	stderr *testutil.SyncBuffer
}

// startSDK runs testdata/sdk/<script> with the SDK in dir (and args)
// against gw serve's base URL and local token (never the key: gw serve
// adds it).
func startSDK(t *testing.T, r *rig, script, dir string, args ...string) *sdkDriver {
	t.Helper()
	cmd := exec.Command("node", append([]string{filepath.Join("testdata", "sdk", script), dir}, args...)...)
	// Only what node needs: the SDKs read their keys, base URLs and extra
	// headers from variables such as ANTHROPIC_AUTH_TOKEN or OPENAI_ORG_ID,
	// and the developer's key (GW_API_KEY) has no business there.
	cmd.Env = []string{"GW_BASE_URL=" + r.base, "GW_TOKEN=" + testToken}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "SYSTEMROOT"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	d := &sdkDriver{t: t, cmd: cmd, lines: make(chan string), stderr: &testutil.SyncBuffer{}}
	cmd.Stderr = d.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.in = in
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(d.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = in.Close()
		for range d.lines { // a result nobody read
		}
		<-done
		_ = cmd.Wait()
	})
	return d
}

// run sends one case and decodes its result into out.
func (d *sdkDriver) run(t *testing.T, c any, out any) {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("writing the case to node: %v\n%s", err, d.stderr.String())
	}
	select {
	case line, ok := <-d.lines:
		if !ok {
			t.Fatalf("node ended without a result: %s", d.stderr.String())
		}
		if strings.Contains(line, realKey) {
			t.Errorf("the service's key reached the SDK: %s", line)
		}
		if err := json.Unmarshal([]byte(line), out); err != nil {
			t.Fatalf("the result is not JSON (%v): %s\n%s", err, line, d.stderr.String())
		}
		t.Logf("result: %.4000s", line)
	case <-time.After(60 * time.Second):
		_ = d.cmd.Process.Kill()
		t.Fatalf("no result from node in 60s: %s", d.stderr.String())
	}
}

// attempt is what a client saw of one HTTP answer.
type attempt struct {
	Status       int     `json:"status"`
	RetryAfter   *string `json:"retryAfter"`
	RetryAfterMs *string `json:"retryAfterMs"`
	ShouldRetry  *string `json:"shouldRetry"`
}

// recorded is what every driver adds to a result: the attempts and the
// delays the SDK chose to sleep before retrying.
type recorded struct {
	Attempts []attempt `json:"attempts"`
	Sleeps   []float64 `json:"sleeps"`
}

// sdkFaults sets the stand-in's fault for the next chat requests only.
type sdkFaults struct {
	mu   sync.Mutex
	up   *standin.Server
	left int // chat requests still to meet the fault; < 0: all
	// secondsOnly takes retry-after-ms out of the stand-in's answers, as
	// services that send Retry-After alone do.
	secondsOnly bool
	bodies      upstreamBodies // the chat requests' bodies
}

// noRetryMs drops retry-after-ms from an answer's header.
type noRetryMs struct{ http.ResponseWriter }

func (w noRetryMs) WriteHeader(code int) {
	w.Header().Del("Retry-After-Ms")
	w.ResponseWriter.WriteHeader(code)
}

func (w noRetryMs) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (f *sdkFaults) wrap(h http.Handler) http.Handler {
	f.up = h.(*standin.Server)
	return f.bodies.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			f.mu.Lock()
			switch {
			case f.left == 0:
				f.up.SetFault(standin.Fault{})
			case f.left > 0:
				f.left--
			}
			if f.secondsOnly {
				w = noRetryMs{w}
			}
			f.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
}

// set makes the next n chat requests (all when n < 0) meet the fault given
// as gw-standin --fault reads it, until the test ends.
func (f *sdkFaults) set(t *testing.T, fault string, n int) {
	t.Helper()
	flt, err := standin.ParseFault(fault)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.left = n
	f.up.SetFault(flt)
	f.mu.Unlock()
	t.Cleanup(func() {
		f.mu.Lock()
		f.left, f.secondsOnly = -1, false
		f.up.SetFault(standin.Fault{})
		f.mu.Unlock()
	})
}

// cutWords are in the error of a stream whose connection to the service broke.
const cutWords = "before the answer was complete"

// The models of sdkRig and the reasoning dialect each answers in.
const (
	sdkPlain     = sonnet                               // no reasoning
	sdkSigned    = "vendor-a/model-a-opus-4.5-thinking" // OpenRouter's signed and encrypted reasoning
	sdkLiteLLM   = "vendor-a/model-a-sonnet-4.5-thinking"
	sdkGemini    = "vendor-b/model-b-3-pro-preview" // a thought signature on its tool call
	sdkMixed     = "vendor-a/model-a-haiku-4.5"     // all of them in one answer
	overflowWant = "prompt is too long: 200001 tokens > 200000 maximum"
)

// sdkRig is gw serve with the stand-in behind it, for the SDK tests.
func sdkRig(t *testing.T) (*rig, *sdkFaults) {
	f := &sdkFaults{left: -1}
	r := newRig(t, rigOpts{wrapUp: f.wrap, standin: standin.Options{ReasoningByModel: map[string]string{
		sdkSigned:  standin.ReasoningOpenRouter + "+redacted",
		sdkLiteLLM: standin.ReasoningLiteLLM + "+redacted",
		sdkPlain:   standin.ReasoningNone,
		sdkMixed:   standin.ReasoningMixed + "+redacted",
	}}})
	return r, f
}

// chatRequests are the chat requests the stand-in has seen.
func chatRequests(r *rig) []standin.Seen {
	var out []standin.Seen
	for _, s := range r.up.Seen() {
		if strings.HasSuffix(s.Path, "/chat/completions") {
			out = append(out, s)
		}
	}
	return out
}

// longText is a system prompt long enough for the stand-in to cache.
var longText = strings.Repeat("You are a careful coding agent; read before you edit. ", 120)

// The tools offered: Read as Claude Code offers it, and one without
// arguments. toolPrompt makes the stand-in call Read (the word "tool", the
// tool's name), parallelPrompt twice at once, once per `backticked` path;
// wantReads are those calls' inputs. noArgsPrompt calls Status.
var (
	readTool = sdkTool{"Read", "Reads a file", map[string]any{"type": "object",
		"properties": map[string]any{"file_path": map[string]any{"type": "string"}}, "required": []string{"file_path"}}}
	statusTool = sdkTool{"Status", "Shows the status", map[string]any{"type": "object", "properties": map[string]any{}}}
	wantReads  = []string{`{"file_path":"README.md"}`, `{"file_path":"go.mod"}`}
)

const (
	toolPrompt     = "Use the Read tool on `README.md`."
	parallelPrompt = "Use the Read tool on `README.md` and `go.mod`."
	noArgsPrompt   = "Use the Status tool."
)

// retriedAsTold checks that every attempt but the last was answered with
// the retry headers of a fault "…:100ms" (Retry-After in whole seconds,
// retry-after-ms exactly) and that the SDK slept 100 ms before each retry.
func retriedAsTold(t *testing.T, rec recorded, wantAttempts int, lastStatus int) {
	t.Helper()
	if len(rec.Attempts) != wantAttempts {
		t.Fatalf("the SDK made %d attempts, want %d: %+v", len(rec.Attempts), wantAttempts, rec.Attempts)
	}
	for i, a := range rec.Attempts[:wantAttempts-1] {
		if a.RetryAfterMs == nil || *a.RetryAfterMs != "100" || a.RetryAfter == nil || *a.RetryAfter != "1" {
			t.Errorf("attempt %d (status %d) reached the client without the service's retry-after-ms: 100 and Retry-After: 1 (got %v, %v)",
				i+1, a.Status, deref(a.RetryAfterMs), deref(a.RetryAfter))
		}
	}
	if got := rec.Attempts[wantAttempts-1].Status; got != lastStatus {
		t.Errorf("the last attempt got %d, want %d", got, lastStatus)
	}
	want := make([]float64, wantAttempts-1)
	for i := range want {
		want[i] = 100
	}
	if !slices.Equal(rec.Sleeps, want) {
		t.Errorf("the SDK slept %v ms before its retries, want %v (what retry-after-ms says)", rec.Sleeps, want)
	}
}

// deref shows what p points to, or "(none)".
func deref[T any](p *T) string {
	if p == nil {
		return "(none)"
	}
	return fmt.Sprint(*p)
}

// serviceCancelled waits until the stand-in's last chat request has ended
// cancelled by gw serve: the client went away, so the service stops
// generating (and billing).
func serviceCancelled(t *testing.T, r *rig) {
	t.Helper()
	_, err := r.up.WaitFor(waitCtx(t), func(seen []standin.Seen) bool {
		for i := len(seen) - 1; i >= 0; i-- {
			if strings.HasSuffix(seen[i].Path, "/chat/completions") {
				return seen[i].Done && seen[i].Cancelled
			}
		}
		return false
	})
	if err != nil {
		last := chatRequests(r)
		t.Errorf("the service's answer was not cancelled: %+v", last[len(last)-1])
	}
}
