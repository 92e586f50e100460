// Package e2e runs the real OpenCode CLI against gw serve, with the API key in
// a real OS keychain (a throwaway gnome-keyring) and the stand-in of the
// service behind it.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/standin"
)

const model = "vendor-a/model-a-sonnet-4.5"

// requireTools skips (or, with GW_REQUIRE_OPENCODE=1, fails) when OpenCode or
// the keyring tools are missing.
func requireTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gw and runs OpenCode")
	}
	required := os.Getenv("GW_REQUIRE_OPENCODE") == "1" || os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1"
	miss := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+" (GW_REQUIRE_OPENCODE=1 / GW_REQUIRE_REAL_KEYCHAIN=1)", args...)
		}
		t.Skipf(format, args...)
	}
	if runtime.GOOS != "linux" {
		miss("the end-to-end test uses gnome-keyring, which needs Linux, not %s", runtime.GOOS)
	}
	if _, err := exec.LookPath("opencode"); err != nil {
		miss("opencode is not installed; install: npm install -g opencode-ai")
	}
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			miss("%s is not installed; install: apt-get install -y dbus gnome-keyring libsecret-tools", tool)
		}
	}
}

// TestOpenCodeThroughGwServe: the key is stored with gw auth login in the OS
// keychain, gw serve runs, OpenCode is configured with gw serve's address and
// the local token only, and `opencode run` prints the stand-in's streamed
// answer; the stand-in got the real key; no file under $HOME holds it. After
// gw auth logout OpenCode shows gw's "no key stored" error, and with gw serve
// stopped OpenCode's error names the connection to gw serve.
func TestOpenCodeThroughGwServe(t *testing.T) {
	requireTools(t)
	if os.Getenv("GW_ISOLATED_KEYRING") != "1" {
		runIsolated(t, "^TestOpenCodeThroughGwServe$")
		return
	}

	key := "sk-e2e-" + randomHex(t, 16)
	svc := standin.New(standin.Options{Accounts: []standin.Account{{Key: key, BalanceCents: 10_000}}})
	ts := httptest.NewServer(svc) // loopback
	t.Cleanup(func() { svc.Close(); ts.Close() })

	gw := buildGW(t)
	home := t.TempDir()
	env := append(cleanEnv(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		// OpenCode: no model list or updates from the internet.
		"OPENCODE_DISABLE_MODELS_FETCH=true",
		"OPENCODE_DISABLE_AUTOUPDATE=true",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=true",
	)

	// The key goes in on stdin, never on a command line.
	run(t, env, key+"\n", gw, "auth", "login", "--base-url", ts.URL+"/v1", "--with-key")
	var status struct {
		KeySource  string `json:"key_source"`
		LocalToken string `json:"local_token"`
	}
	if err := json.Unmarshal([]byte(run(t, env, "", gw, "auth", "status", "--json")), &status); err != nil {
		t.Fatal(err)
	}
	if status.KeySource != "keychain" || !strings.HasPrefix(status.LocalToken, "gw-local-") {
		t.Fatalf("after login: key source %q, local token %q", status.KeySource, status.LocalToken)
	}

	serve := startServe(t, env, gw)
	writeOpenCodeConfig(t, home, "http://"+serve.addr+"/v1", status.LocalToken)

	out := run(t, env, "", "opencode", "run", "-m", "gw/"+model, "say hello")
	if !strings.Contains(out, standin.Greeting(model)) {
		t.Fatalf("OpenCode did not print the stand-in's answer:\n%s", out)
	}
	chats := 0
	for _, s := range svc.Seen() {
		if s.Key != key {
			t.Errorf("the stand-in got a request for %s without the real key", s.Path)
		}
		if s.Path == "/v1/chat/completions" && s.Stream {
			chats++
		}
	}
	if chats == 0 {
		t.Error("the stand-in saw no streamed chat request")
	}
	if logged := serve.stderr.String(); !regexp.MustCompile(`POST /v1/chat/completions model=` + regexp.QuoteMeta(model) + ` status=200 .*prompt_tokens=\d+ completion_tokens=\d+`).MatchString(logged) {
		t.Errorf("gw serve's log has no line for OpenCode's request with its usage:\n%s", logged)
	}
	noFileHolds(t, home, key)

	// gw auth logout reaches the running gw serve within 5 s.
	run(t, env, "", gw, "auth", "logout")
	time.Sleep(5 * time.Second)
	// OpenCode sometimes spends a long while on start-up checks before it
	// sends anything, hence the generous limits.
	ev := firstError(t, env, 3*time.Minute)
	if !strings.Contains(ev, "API key invalid or unauthorized: no key stored — run gw auth login") {
		t.Errorf("after logout OpenCode shows: %s", ev)
	}

	serve.stop(t)
	ev = firstError(t, env, 3*time.Minute)
	if !strings.Contains(ev, "Cannot connect to API") || !strings.Contains(ev, serve.addr) {
		t.Errorf("with gw serve stopped OpenCode's error does not name the connection to gw serve: %s", ev)
	}
	noFileHolds(t, home, key)
}

// firstError runs OpenCode with JSON events and returns the first error
// event. OpenCode retries failures it considers transient forever, so it is
// stopped once the error is seen.
func firstError(t *testing.T, env []string, limit time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "opencode", "run", "--format", "json", "-m", "gw/"+model, "say hello")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "error" {
			return sc.Text()
		}
	}
	t.Fatalf("OpenCode reported no error within %s; stderr:\n%s", limit, stderr.String())
	return ""
}

type serveProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *syncBuffer
	done   chan error
}

func startServe(t *testing.T, env []string, gw string) *serveProc {
	t.Helper()
	cmd := exec.Command(gw, "serve", "--port", "0")
	cmd.Env = env
	p := &serveProc{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`listening on http://(\S+)/v1`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("gw serve printed %q (%v); stderr:\n%s", line, err, p.stderr.String())
	}
	p.addr = m[1]
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p
}

func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("gw serve exited with %v after SIGINT; stderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("gw serve did not stop after SIGINT")
	}
	if !strings.Contains(p.stderr.String(), "gw serve: stopped") {
		t.Errorf("gw serve did not say it stopped:\n%s", p.stderr.String())
	}
}

// writeOpenCodeConfig declares gw serve as an OpenAI-compatible provider with
// the local token as its key: what gw init agent --mode proxy writes.
func writeOpenCodeConfig(t *testing.T, home, baseURL, token string) {
	t.Helper()
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"gw": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Model Gateway (gw serve)",
			"options": map[string]any{"baseURL": baseURL, "apiKey": token},
			"models":  map[string]any{model: map[string]any{"name": "Model A Sonnet 4.5"}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	dir := filepath.Join(home, ".config", "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// noFileHolds walks dir and fails if any file contains secret.
func noFileHolds(t *testing.T, dir, secret string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		files++
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the API key", path)
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walking %s: %v (%d files)", dir, err, files)
	}
}

func run(t *testing.T, env []string, stdin string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// cleanEnv is the test's environment without anything that would point gw
// or OpenCode at the user's own files or key.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GW_") && name != "GW_ISOLATED_KEYRING" || strings.HasPrefix(name, "XDG_") ||
			strings.HasPrefix(name, "OPENCODE") || name == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func buildGW(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "gw")
	cmd := exec.Command("go", "build", "-o", exe, "github.com/modelgateway/gw/cmd/gw")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building gw: %v\n%s", err, out)
	}
	return exe
}

// runIsolated re-runs this test binary, for one test, inside
// scripts/with-keyring.sh, so the user's own keyring is never touched.
func runIsolated(t *testing.T, pattern string) {
	t.Helper()
	script := filepath.Join(repoRoot(t), "scripts", "with-keyring.sh")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, exe, "-test.run="+pattern, "-test.v", "-test.count=1", "-test.timeout=12m")
	cmd.Env = append(os.Environ(), "GW_REQUIRE_OPENCODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("under %s:\n%s", filepath.Base(script), out)
	if err != nil {
		t.Fatalf("the isolated run failed: %v", err)
	}
	name := strings.Trim(pattern, "^$")
	if !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatal("the isolated run did not pass the test")
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/modelgateway/gw\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal(errors.New("cannot find the repository root above the test's directory"))
		}
		dir = parent
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
