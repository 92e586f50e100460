// Package e2e runs the real OpenCode CLI with gw: through gw serve with the
// API key in a real OS keychain (a throwaway gnome-keyring), and directly to
// the service with the key in OpenCode's environment, always against the
// stand-in of the service on loopback.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/keychain/keychaintest"

	"github.com/modelgateway/gw/standin"
)

// openCodeEnv keeps OpenCode to the machine the test made up. Without the
// first two it asks the internet for updates and for models.dev's model list
// (it waits for that list before sending anything; the config names every
// model anyway); the rest keep out language-server downloads, built-in
// plugins, sharing, and prompts or skills from the user's other tools.
func openCodeEnv() []string {
	return []string{
		"OPENCODE_DISABLE_AUTOUPDATE=true",
		"OPENCODE_DISABLE_MODELS_FETCH=true",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=true",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=true",
		"OPENCODE_DISABLE_SHARE=true",
		"OPENCODE_DISABLE_CLAUDE_CODE=true",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=true",
	}
}

// requireTools skips (or, with GW_REQUIRE_OPENCODE=1, fails) when OpenCode or
// the keyring tools are missing.
func requireTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gw and runs OpenCode")
	}
	miss := requireKeyring(t, "GW_REQUIRE_OPENCODE")
	if _, err := exec.LookPath("opencode"); err != nil {
		miss("opencode is not installed; install: npm install -g opencode-ai")
	}
}

// requireKeyring checks what the real keychain needs (Linux, the keyring
// tools) and returns how to report a missing tool: skip the test, or fail
// it when requireVar or GW_REQUIRE_REAL_KEYCHAIN is 1.
func requireKeyring(t *testing.T, requireVar string) func(format string, args ...any) {
	t.Helper()
	required := os.Getenv(requireVar) == "1" || os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1"
	miss := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+" ("+requireVar+"=1 / GW_REQUIRE_REAL_KEYCHAIN=1)", args...)
		}
		t.Skipf(format, args...)
	}
	if runtime.GOOS != "linux" {
		miss("the end-to-end test uses gnome-keyring, which needs Linux, not %s", runtime.GOOS)
	}
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			miss("%s is not installed; install: apt-get install -y dbus gnome-keyring libsecret-tools", tool)
		}
	}
	return miss
}

// story is one user story of an end-to-end test, run with a build of gw.
type story struct {
	name string
	run  func(t *testing.T, gw string)
}

// runStories runs the stories with one build of gw. Each runs in a
// throwaway keyring session of its own (they would otherwise share the
// keychain item), so they run in parallel; requireVar=1 is set there, where
// a missing tool fails. before, when not nil, runs first with the build.
func runStories(t *testing.T, requireVar string, stories []story, before func(t *testing.T, gw string)) {
	t.Helper()
	if !keychaintest.Isolated() {
		gw := buildGW(t)
		if before != nil {
			before(t, gw)
		}
		for _, s := range stories {
			t.Run(s.name, func(t *testing.T) {
				t.Parallel()
				keychaintest.RunIsolated(t, t.Name(), requireVar+"=1", gwBinaryEnv+"="+gw)
			})
		}
		return
	}
	gw := os.Getenv(gwBinaryEnv)
	if gw == "" {
		gw = buildGW(t)
	}
	for _, s := range stories {
		t.Run(s.name, func(t *testing.T) { s.run(t, gw) })
	}
}

// gwBinaryEnv passes the gw built by the test to its isolated re-runs.
const gwBinaryEnv = "GW_E2E_BINARY"

func buildGW(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "gw")
	cmd := exec.Command("go", "build", "-o", exe, "github.com/modelgateway/gw/cmd/gw")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building gw: %v\n%s", err, out)
	}
	return exe
}

// startService serves the stand-in on loopback with one account holding key.
func startService(t *testing.T, key string) *standin.Running {
	t.Helper()
	svc := standin.Start(standin.Options{Accounts: []standin.Account{{Key: key, BalanceCents: 10_000}}})
	t.Cleanup(svc.Close)
	return svc
}

func newKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "sk-e2e-" + hex.EncodeToString(b)
}

// machine is one user's machine: a HOME of its own with the XDG directories
// in it, a working directory outside any repository (OpenCode would otherwise
// read the repository's own config and snapshot it), and an environment that
// points gw and OpenCode there only.
type machine struct {
	home, work string
	env        []string
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	home := t.TempDir()
	m := &machine{home: home, work: filepath.Join(home, "project")}
	if err := os.Mkdir(m.work, 0o700); err != nil {
		t.Fatal(err)
	}
	m.env = append(cleanEnv(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+m.configHome(),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
	)
	m.env = append(m.env, openCodeEnv()...)
	return m
}

func (m *machine) configHome() string { return filepath.Join(m.home, ".config") }

// cleanEnv is the test's environment without anything that would point gw,
// OpenCode or Claude Code at the user's own files or key.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GW_") && name != "GW_ISOLATED_KEYRING" || strings.HasPrefix(name, "XDG_") ||
			strings.HasPrefix(name, "OPENCODE") || strings.HasPrefix(name, "CODEX_") || strings.HasPrefix(name, "ANTHROPIC_") ||
			strings.HasPrefix(name, "CLAUDE_") || name == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// run runs a command to completion on the machine, with extra variables
// (e.g. GW_API_KEY) added to its environment, and returns its stdout; a
// failure or a run over two minutes fails the test.
func (m *machine) run(t *testing.T, extraEnv []string, stdin string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	m.prepare(cmd, extraEnv)
	testutil.CancelKillsGroup(cmd)
	cmd.WaitDelay = 10 * time.Second // a child left holding the output does not hold the test
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	// Durations in -v output show where a slow run spends its time.
	t.Logf("%.1fs: %s %s", time.Since(began).Seconds(), filepath.Base(name), strings.Join(args, " "))
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

func (m *machine) prepare(cmd *exec.Cmd, extraEnv []string) {
	// PWD too: the test's own (inherited through cleanEnv) would make agents that read it (OpenCode, Kilo)
	// take the repository for the project and the project's files for outside ones.
	cmd.Env = append(append(append([]string(nil), m.env...), extraEnv...), "PWD="+m.work)
	cmd.Dir = m.work
	// Its own process group, so that everything OpenCode starts goes with it.
	testutil.OwnProcessGroup(cmd)
}

// proc is a command running in the background; its output is readable while
// it runs.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *testutil.SyncBuffer
	began          time.Time
	done           chan struct{}
	err            error // valid once done is closed
}

// start starts a command on the machine; the test's cleanup kills whatever
// is left of it.
func (m *machine) start(t *testing.T, extraEnv []string, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(name, args...)
	m.prepare(cmd, extraEnv)
	p := &proc{cmd: cmd, stdout: &testutil.SyncBuffer{}, stderr: &testutil.SyncBuffer{}, began: time.Now(), done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	return p
}

func (p *proc) kill() {
	_ = testutil.KillGroup(p.cmd)
	<-p.done
}

// exited reports whether the command has ended, and how.
func (p *proc) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// wait waits for the command to end; limit only keeps a hung command from
// holding the test.
func (p *proc) wait(t *testing.T, limit time.Duration) error {
	t.Helper()
	select {
	case <-p.done:
		t.Logf("%.1fs: %s ended", time.Since(p.began).Seconds(), filepath.Base(p.cmd.Path))
		return p.err
	case <-time.After(limit):
		t.Fatalf("%s did not end within %s\nstdout:\n%s\nstderr:\n%s", p.cmd.Path, limit, p.stdout, p.stderr)
		return nil
	}
}

// await polls cond until it holds; it fails the test when the command ends
// first or limit passes (a guard against hanging, not a time assertion).
func (p *proc) await(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	began := time.Now()
	deadline := began.Add(limit)
	defer func() { t.Logf("%.1fs: %s", time.Since(began).Seconds(), what) }()
	for !cond() {
		if ended, err := p.exited(); ended && !cond() {
			t.Fatalf("%s ended (%v) before %s\nstdout:\n%s\nstderr:\n%s", p.cmd.Path, err, what, p.stdout, p.stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s\nstdout:\n%s\nstderr:\n%s", what, limit, p.stdout, p.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serveProc is a running gw serve.
type serveProc struct {
	*proc
	addr string // 127.0.0.1:PORT
}

var listening = regexp.MustCompile(`listening on http://(\S+)/v1`)

// startServe runs gw serve with args (e.g. --port 0) and waits until it
// listens.
func (m *machine) startServe(t *testing.T, gw string, args ...string) *serveProc {
	t.Helper()
	p := m.start(t, nil, gw, append([]string{"serve"}, args...)...)
	p.await(t, "gw serve listening", time.Minute, func() bool { return listening.MatchString(p.stdout.String()) })
	return &serveProc{proc: p, addr: listening.FindStringSubmatch(p.stdout.String())[1]}
}

func (s *serveProc) port() string {
	_, port, _ := strings.Cut(s.addr, ":")
	return port
}

// stop sends SIGINT, as Ctrl-C in a terminal does, and checks gw serve ends
// cleanly and says so.
func (s *serveProc) stop(t *testing.T) {
	t.Helper()
	_ = s.cmd.Process.Signal(os.Interrupt)
	if err := s.wait(t, 30*time.Second); err != nil {
		t.Errorf("gw serve exited with %v after SIGINT; stderr:\n%s", err, s.stderr)
	}
	if !strings.Contains(s.stderr.String(), "gw serve: stopped") {
		t.Errorf("gw serve did not say it stopped:\n%s", s.stderr)
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
