package e2e

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/config"
)

// TestOnDemand runs Claude Code and Codex (and pi) as a user does the day after gw init agent: gw serve not running,
// the agent started alone from a shell with no gw or agent variables, with the key in the real keychain.
// Their credential command (gw auth token --serve) starts gw serve, and the agent reads a file with its tool
// and answers through it; two agents started at once start one gw serve; a port held by another program
// gives the agent one line saying so, and that program gets no token.
func TestOnDemand(t *testing.T) {
	claudeBinary(t)
	runStories(t, "GW_REQUIRE_CLAUDE_CODE", []story{
		{"ClaudeCode", func(t *testing.T, gw string) { onDemandAnswers(t, gw, "claude-code") }},
		{"Codex", func(t *testing.T, gw string) { onDemandAnswers(t, gw, "codex") }},
		{"Pi", func(t *testing.T, gw string) { onDemandAnswers(t, gw, "pi") }},
		{"TwoAgentsAtOnce", onDemandTwoAtOnce},
		{"PortHeldByAnotherProgram", onDemandPortHeld},
	}, nil)
}

func agentNamed(t *testing.T, name string) agentCLI {
	t.Helper()
	for _, c := range agentCLIs {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no agent %s", name)
	return agentCLI{}
}

// onDemandMachine is a machine with the key stored, gw serve's port a free one in gw's config, and the
// agents set up by gw init agent while no gw serve runs; the gw serves started for them are stopped when
// the test ends.
func onDemandMachine(t *testing.T, gw string, names ...string) (m *machine, key, notes string, dirs map[string]string) {
	t.Helper()
	dirs = map[string]string{}
	var path []string
	for _, n := range names {
		c := agentNamed(t, n)
		dirs[n] = c.binDir(t)
		path = append(path, dirs[n])
	}
	key = newKey(t)
	svc := startService(t, key)
	m = newMachine(t)
	m.env = append(m.env, "PATH="+strings.Join(append(path, os.Getenv("PATH")), string(os.PathListSeparator)))
	m.run(t, nil, key+"\n", gw, "auth", "login", "--base-url", svc.BaseURL, "--with-key")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if err := config.Update(filepath.Join(m.configHome(), "gw", "config.json"), func(f *config.File) error { f.Port = port; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		out := m.run(t, nil, "", gw, "init", "agent", "--agent", n, "--models", model+","+otherModel, "--default", model, "--yes")
		t.Logf("gw init agent --agent %s:\n%s", n, out)
		if !strings.Contains(out, "gw serve starts with it") {
			t.Errorf("gw init agent --agent %s does not say gw serve starts with the agent:\n%s", n, out)
		}
	}
	t.Cleanup(func() {
		for _, pid := range onDemandServes(t, m) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Signal(syscall.SIGTERM)
			}
		}
	})
	notes = filepath.Join(m.work, "notes.txt")
	if err := os.WriteFile(notes, []byte("The launch code is PINEAPPLE-42.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return m, key, notes, dirs
}

var startedPID = regexp.MustCompile(`gw serve --on-demand: .*started for an agent's credential command \(pid (\d+)\)`)

// onDemandServes are the gw serves started on demand, as serve.log names them.
func onDemandServes(t *testing.T, m *machine) []int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(m.home, ".local", "state", "gw", "serve.log"))
	var pids []int
	for _, s := range startedPID.FindAllStringSubmatch(string(b), -1) {
		pid, _ := strconv.Atoi(s[1])
		pids = append(pids, pid)
	}
	return pids
}

// agentRun runs agent name's task alone: the machine's environment, which sets none of gw's or the agents'
// variables (cleanEnv), and the agent's own that keep it offline.
func agentRun(t *testing.T, m *machine, name, dir, notes string) (string, bool) {
	t.Helper()
	c := agentNamed(t, name)
	return m.runMayFail(t, c.env, filepath.Join(dir, c.bin), c.task(c.prompt(notes))...)
}

// onDemandAnswers: with no gw serve running, the agent answers from the file through a gw serve its
// credential command started; the agent's file holds no local token, and no file the key.
func onDemandAnswers(t *testing.T, gw, name string) {
	m, key, notes, dirs := onDemandMachine(t, gw, name)
	for f, content := range configFiles(t, m, name) {
		if strings.Contains(content, config.LocalTokenPrefix) {
			t.Errorf("%s holds the local token:\n%s", f, content)
		}
	}
	out, ok := agentRun(t, m, name, dirs[name], notes)
	if !ok || !answered.MatchString(out) {
		t.Fatalf("%s did not answer through an on-demand gw serve:\n%s", name, out)
	}
	if n := len(onDemandServes(t, m)); n != 1 {
		t.Errorf("%d gw serves started, want 1", n)
	}
	// A second run finds it running.
	if out, ok := agentRun(t, m, name, dirs[name], notes); !ok || !answered.MatchString(out) {
		t.Fatalf("%s's second run did not answer:\n%s", name, out)
	}
	if n := len(onDemandServes(t, m)); n != 1 {
		t.Errorf("%d gw serves started after the second run, want 1", n)
	}
	noFileHolds(t, m.home, key)
}

// onDemandTwoAtOnce: Claude Code and Codex started at the same moment, with no gw serve running, both
// answer, through one gw serve.
func onDemandTwoAtOnce(t *testing.T, gw string) {
	m, _, notes, dirs := onDemandMachine(t, gw, "claude-code", "codex")
	var wg sync.WaitGroup
	outs := map[string]string{}
	var mu sync.Mutex
	for _, n := range []string{"claude-code", "codex"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, _ := agentRun(t, m, n, dirs[n], notes)
			mu.Lock()
			outs[n] = out
			mu.Unlock()
		}()
	}
	wg.Wait()
	for n, out := range outs {
		if !answered.MatchString(out) {
			t.Errorf("%s did not answer:\n%s", n, out)
		}
	}
	if pids := onDemandServes(t, m); len(pids) != 1 {
		t.Errorf("%d gw serves started for two agents at once (pids %v), want 1", len(pids), pids)
	}
}

// onDemandPortHeld: another program holds gw serve's port: Claude Code and Codex show gw's one line naming
// it and what to do, within seconds; pi says its command failed and sends the program nothing; the program
// never gets the local token.
func onDemandPortHeld(t *testing.T, gw string) {
	m, _, notes, dirs := onDemandMachine(t, gw, "claude-code", "codex", "pi")
	cfg, err := config.Load(filepath.Join(m.configHome(), "gw", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.ServePort())))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	other := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+" "+r.Header.Get("X-Api-Key")+" "+r.URL.RawQuery)
		mu.Unlock()
		http.NotFound(w, r)
	})}
	go func() { _ = other.Serve(ln) }()
	t.Cleanup(func() { other.Close() })

	line := "gw: something other than gw serve answers on 127.0.0.1:" + strconv.Itoa(cfg.ServePort())
	for _, n := range []string{"claude-code", "codex"} {
		c := agentNamed(t, n)
		p := m.start(t, c.env, filepath.Join(dirs[n], c.bin), c.task(c.prompt(notes))...)
		p.await(t, n+" showing gw's line", 30*time.Second, func() bool {
			return strings.Contains(p.stdout.String()+p.stderr.String(), line)
		})
		out := p.stdout.String() + p.stderr.String()
		t.Logf("%s shows: %s", n, out[strings.Index(out, line):][:min(len(out)-strings.Index(out, line), 300)])
		if !strings.Contains(out, "fix: stop the program on 127.0.0.1:"+strconv.Itoa(cfg.ServePort())) {
			t.Errorf("%s does not show the fix:\n%s", n, out)
		}
		p.kill()
	}
	// pi hides the command's words, says it failed, and sends the program nothing.
	mu.Lock()
	before := len(seen)
	mu.Unlock()
	out, ok := agentRun(t, m, "pi", dirs["pi"], notes)
	if ok || !strings.Contains(out, `Failed to resolve API key for provider "gw" from shell command`) {
		t.Errorf("pi with the port held:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen[before:] {
		if !strings.Contains(s, "nonce=") { // gw's probes only
			t.Errorf("pi sent the program on the port a request: %s", s)
		}
	}
	for _, s := range seen {
		if strings.Contains(s, config.LocalTokenPrefix) {
			t.Errorf("the program on the port got the local token: %s", s)
		}
	}
	if pids := onDemandServes(t, m); len(pids) != 0 {
		t.Errorf("gw serve was started (pids %v) with the port held", pids)
	}
}
