package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"

	"github.com/modelgateway/gw/standin"
)

// TestMain lets the test binary act as gw-standin for the signal test.
func TestMain(m *testing.M) {
	if os.Getenv("GW_STANDIN_RUN_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// lineWriter hands the first line written to it to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first chan string
	sent  bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if line, _, ok := strings.Cut(w.buf.String(), "\n"); ok && !w.sent {
		w.sent = true
		w.first <- line
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// serve runs gw-standin in-process; stop ends it and returns its exit code.
func serve(t *testing.T, args ...string) (baseURL string, stdout *lineWriter, stderr *testutil.SyncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stdout = &lineWriter{first: make(chan string, 1)}
	stderr = &testutil.SyncBuffer{}
	code := make(chan int, 1)
	go func() { code <- run(ctx, args, stdout, stderr) }()
	select {
	case line := <-stdout.first:
		baseURL = strings.TrimPrefix(line, "base_url=")
		if baseURL == line {
			t.Fatalf("first stdout line %q, want base_url=...", line)
		}
	case c := <-code:
		t.Fatalf("gw-standin exited %d before listening: %s", c, stderr)
	case <-time.After(20 * time.Second):
		t.Fatal("gw-standin printed no base_url")
	}
	var once sync.Once
	var exit int
	stop = func() int {
		once.Do(func() { cancel(); exit = <-code })
		return exit
	}
	t.Cleanup(func() { stop() })
	return baseURL, stdout, stderr, stop
}

func get(t *testing.T, c *http.Client, url, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRun_ServesAndStops(t *testing.T) {
	base, stdout, stderr, stop := serve(t)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/v1$`).MatchString(base) {
		t.Fatalf("base URL %q", base)
	}
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	if status, body := get(t, c, base+"/models", standin.DemoKeyPartial); status != 200 || !strings.Contains(body, "vendor-b/model-b-3-flash-preview") {
		t.Errorf("models: %d %s", status, body)
	}
	if status, _ := get(t, c, base+"/models", standin.DemoKeyNoBalance); status != 402 {
		t.Errorf("models with no balance: %d", status)
	}
	for _, k := range []string{standin.DemoKeyFull, standin.DemoKeyNoBalance, standin.DemoKeyPartial} {
		if !strings.Contains(stderr.String(), k) {
			t.Errorf("stderr does not list demo key %s:\n%s", k, stderr)
		}
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after stop", code)
	}
	if out := stdout.String(); strings.Count(out, "\n") != 1 {
		t.Errorf("stdout %q: want exactly the base_url line", out)
	}
}

func TestRun_Flags(t *testing.T) {
	dir := t.TempDir()
	accounts := filepath.Join(dir, "accounts.json")
	os.WriteFile(accounts, []byte(`[{"key":"sk-test-one","balance_cents":0,"plan":["vendor-a/model-a-haiku-4.5"]}]`), 0o600)
	base, _, stderr, _ := serve(t, "--dialect", "litellm", "--balance-status", "429", "--accounts", accounts, "--fault", "503@/chat/completions")
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	if status, body := get(t, c, base+"/models", "sk-test-one"); status != 429 || !strings.Contains(body, `"code":"429"`) {
		t.Errorf("litellm balance error: %d %s", status, body)
	}
	if status, body := get(t, c, base+"/models", standin.DemoKeyFull); status != 401 {
		t.Errorf("demo key with an accounts file: %d %s, want refused", status, body)
	}
	if strings.Contains(stderr.String(), "sk-test-one") || !strings.Contains(stderr.String(), "1 accounts from") {
		t.Errorf("stderr must count the file's accounts, not print their keys:\n%s", stderr)
	}
	if !strings.Contains(stderr.String(), "fault 503@/chat/completions") {
		t.Errorf("stderr does not show the fault:\n%s", stderr)
	}
}

func TestRun_TLS(t *testing.T) {
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	base, _, _, _ := serve(t, "--tls", "--cert-out", certFile)
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("base URL %q", base)
	}
	pem, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", certFile)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	defer c.CloseIdleConnections()
	if status, _ := get(t, c, base+"/models", standin.DemoKeyFull); status != 200 {
		t.Errorf("models over TLS: %d", status)
	}
	res, err := c.Get(base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.ProtoMajor != 1 {
		t.Errorf("without --http2 the stand-in answered over %s", res.Proto)
	}
}

// With --http2 a client that offers HTTP/2 gets it; one that does not
// (Node's fetch) still gets HTTP/1.1.
func TestRun_HTTP2(t *testing.T) {
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	base, _, stderr, _ := serve(t, "--tls", "--http2", "--cert-out", certFile)
	pem, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	for _, h2 := range []bool{true, false} {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: h2}}
		req, _ := http.NewRequest(http.MethodGet, base+"/models", nil)
		req.Header.Set("Authorization", "Bearer "+standin.DemoKeyFull)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		c.CloseIdleConnections()
		if want := map[bool]int{true: 2, false: 1}[h2]; res.StatusCode != 200 || res.ProtoMajor != want {
			t.Errorf("client offering HTTP/2: %v: %d over %s, want 200 over HTTP/%d", h2, res.StatusCode, res.Proto, want)
		}
	}
	if !strings.Contains(stderr.String(), "HTTP/2 offered") {
		t.Errorf("stderr does not say HTTP/2 is offered:\n%s", stderr)
	}
}

func TestRun_BadFlags(t *testing.T) {
	dir := t.TempDir()
	badAccounts := filepath.Join(dir, "bad.json")
	os.WriteFile(badAccounts, []byte(`[{"key":"k","plan":["vendor-a/model-a-haiku-4-5"]}]`), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dialect", "xml"}, `--dialect "xml": use one of openai, openrouter, litellm, newapi, flat, text`},
		{[]string{"--balance-status", "500"}, "--balance-status 500: use 401, 402, 403 or 429"},
		{[]string{"--model-status", "422"}, "--model-status 422: use 400 or 404"},
		{[]string{"--fault", "explode"}, `--fault: fault "explode": unknown fault "explode"`},
		{[]string{"--reasoning", "deepseek"}, `--reasoning: reasoning dialect "deepseek": use one of none, reasoning_content, reasoning, openrouter, litellm, gemini`},
		{[]string{"--context-tokens", "-1"}, "--context-tokens must be ≥ 0"},
		{[]string{"--tls"}, "--tls needs --cert-out FILE"},
		{[]string{"--cert-out", "x.pem"}, "--cert-out is only used with --tls"},
		{[]string{"--http2"}, "--http2 needs --tls"},
		{[]string{"--idle-timeout", "-1s"}, "--idle-timeout must be ≥ 0"},
		{[]string{"--accounts", filepath.Join(dir, "missing.json")}, "--accounts: open"},
		{[]string{"--accounts", badAccounts}, `plan model "vendor-a/model-a-haiku-4-5" is not one of the service's ids`},
		{[]string{"serve"}, `unexpected argument "serve"`},
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), tc.args, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

func TestRun_AddressInUse(t *testing.T) {
	base, _, _, _ := serve(t)
	addr := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/v1")
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"--addr", addr}, io.Discard, &stderr); code != exitError || !strings.Contains(stderr.String(), "address already in use") {
		t.Errorf("exit %d, %s", code, stderr.String())
	}
}

// The real binary stops cleanly on SIGTERM, even with a request hanging: a stream stalled after its first
// event, which the client has read, so the request is known to be inside the handler when the signal comes.
func TestMain_StopsOnSIGTERM(t *testing.T) {
	cmd := exec.Command(os.Args[0], "--fault", "slow-stream:1h")
	cmd.Env = append(os.Environ(), "GW_STANDIN_RUN_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line := make([]byte, 0, 64)
	buf := make([]byte, 1)
	for !bytes.HasSuffix(line, []byte("\n")) {
		if _, err := stdout.Read(buf); err != nil {
			t.Fatalf("reading base_url: %v; stderr: %s", err, stderr.String())
		}
		line = append(line, buf[0])
	}
	base := strings.TrimPrefix(strings.TrimSpace(string(line)), "base_url=")

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/chat/completions",
		strings.NewReader(`{"model":"vendor-a/model-a-haiku-4.5","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer "+standin.DemoKeyFull)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("the streamed request: %v", err)
	}
	defer resp.Body.Close()
	first := make([]byte, 0, 512)
	for !bytes.Contains(first, []byte("\n\n")) {
		n, err := resp.Body.Read(buf)
		if err != nil {
			t.Fatalf("reading the first event: %v (read %q)", err, first)
		}
		first = append(first, buf[:n]...)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "gw-standin: stopped") {
		t.Errorf("stderr %q", stderr.String())
	}
	// The stalled stream was cut by the stop, not finished, and not left hanging until the client's deadline.
	rest, _ := io.ReadAll(resp.Body)
	if ctx.Err() != nil {
		t.Fatal("the stalled stream was still open when the stand-in had stopped")
	}
	if bytes.Contains(rest, []byte("[DONE]")) {
		t.Errorf("the stalled stream finished after the stop: %q", rest)
	}
}

func TestRun_ReasoningAndContextFlags(t *testing.T) {
	base, _, stderr, _ := serve(t, "--reasoning", "openrouter+redacted", "--context-tokens", "40")
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	chat := func(content string) (int, string) {
		body := `{"model":"vendor-a/model-a-opus-4.5-thinking","messages":[{"role":"user","content":"` + content + `"}]}`
		req, _ := http.NewRequest("POST", base+"/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+standin.DemoKeyFull)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if status, body := chat("hi"); status != 200 || !strings.Contains(body, `"type":"reasoning.encrypted"`) || !strings.Contains(body, `"signature":"`) {
		t.Errorf("--reasoning openrouter+redacted: %d %s", status, body)
	}
	if status, body := chat(strings.Repeat("long ", 40)); status != 400 || !strings.Contains(body, "context_length_exceeded") {
		t.Errorf("--context-tokens 40, a prompt of 53 tokens: %d %s", status, body)
	}
	if !strings.Contains(stderr.String(), "reasoning openrouter+redacted, context window 40 tokens") {
		t.Errorf("stderr does not show the settings:\n%s", stderr)
	}
}
