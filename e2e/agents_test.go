package e2e

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/keychain/keychaintest"
	"github.com/modelgateway/gw/standin"
)

// agentCLI is one real coding agent as the end-to-end tests run it: one task, non-interactively, offline.
type agentCLI struct {
	name  string // gw's name for it (--agent, gw run)
	bin   string // its command
	cache string // where scripts/test.sh keeps the pinned copy, under .cache/
	// require names the variable that makes a missing CLI fail the test instead of skipping it.
	require string
	env     []string // keeps it off the internet
	route   string   // the gw serve route it needs besides chat completions ("" for none)
	tool    string   // the tool the task asks for, as the agent names it
	// task is the command line (after the command) that runs prompt to its end.
	task func(prompt string) []string
	// home are settings files the user already has, by path under HOME.
	home map[string]string
}

// kiloEnv keeps Kilo (OpenCode's fork, with its own variables) off the internet.
func kiloEnv() []string {
	return []string{
		"KILO_DISABLE_AUTOUPDATE=true", "KILO_DISABLE_MODELS_FETCH=true", "KILO_DISABLE_LSP_DOWNLOAD=true",
		"KILO_DISABLE_DEFAULT_PLUGINS=true", "KILO_DISABLE_SHARE=true", "KILO_DISABLE_CLAUDE_CODE=true",
		"KILO_DISABLE_EXTERNAL_SKILLS=true", "KILO_TELEMETRY_LEVEL=off", "DO_NOT_TRACK=1",
	}
}

// codexOffline are Codex's settings that keep it off the internet (see codexSettings).
var codexOffline = []string{"--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
	"-c", "analytics.enabled=false", "-c", "features.plugins=false", "-c", "check_for_update_on_startup=false"}

var agentCLIs = []agentCLI{
	{name: "opencode", bin: "opencode", cache: "opencode/node_modules/.bin", require: "GW_REQUIRE_OPENCODE",
		tool: "read", task: func(p string) []string { return []string{"run", p} }},
	{name: "kilo", bin: "kilo", cache: "kilo/node_modules/@kilocode/cli-linux-x64/bin", require: "GW_REQUIRE_KILO",
		env: kiloEnv(), tool: "read", task: func(p string) []string { return []string{"run", p} }},
	{name: "qwen-code", bin: "qwen", cache: "qwen-code/node_modules/.bin", require: "GW_REQUIRE_QWEN_CODE",
		tool: "read_file", task: func(p string) []string { return []string{p} }},
	{name: "continue", bin: "cn", cache: "continue/node_modules/.bin", require: "GW_REQUIRE_CONTINUE",
		tool: "Read", task: func(p string) []string { return []string{"-p", p} }},
	{name: "cline", bin: "cline", cache: "cline/node_modules/.bin", require: "GW_REQUIRE_CLINE",
		tool: "read_files", task: func(p string) []string { return []string{p} }},
	{name: "claude-code", bin: "claude", cache: "claude-code/node_modules/.bin", require: "GW_REQUIRE_CLAUDE_CODE",
		env: claudeCodeEnv(), route: "/v1/messages", tool: "Read",
		task: func(p string) []string { return []string{"-p", p, "--allowedTools", "Read"} }},
	{name: "pi", bin: "pi", cache: "pi/node_modules/.bin", require: "GW_REQUIRE_PI",
		env: []string{"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}, route: "/v1/messages", tool: "read",
		task: func(p string) []string { return []string{"-p", p} }},
	// droid asks for a Factory login before it starts; a made-up FACTORY_API_KEY lets it start offline
	// (its model requests go to gw serve; the ones to Factory fail, which it tolerates).
	{name: "droid", bin: "droid", cache: "droid/node_modules/@factory/cli-linux-x64/bin", require: "GW_REQUIRE_DROID",
		env: []string{"FACTORY_API_KEY=fk-offline-test", "FACTORY_DROID_AUTO_UPDATE_ENABLED=false"}, tool: "Read",
		task: func(p string) []string { return []string{"exec", "--auto", "low", p} }},
	// Copilot CLI needs no GitHub sign-in with its own provider; COPILOT_OFFLINE keeps it off GitHub.
	{name: "copilot", bin: "copilot", cache: "copilot/node_modules/.bin", require: "GW_REQUIRE_COPILOT",
		env: []string{"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false"}, tool: "view",
		task: func(p string) []string { return []string{"-p", p, "--allow-all-tools", "--no-auto-update"} }},
	{name: "codex", bin: "codex", cache: "codex/node_modules/.bin", require: "GW_REQUIRE_CODEX",
		route: "/v1/responses", tool: "exec_command",
		task: func(p string) []string { return append(append([]string{"exec"}, codexOffline...), p) }},
	// Gemini CLI runs -p only in a trusted folder, and only with a sign-in chosen in its settings: gw init
	// agent chooses the API key route there, gw run for the run only (config/agents/gemini's Home). The
	// user here has turned usage statistics and update checks off, and chosen no sign-in.
	{name: "gemini", bin: "gemini", cache: "gemini-cli/node_modules/.bin", require: "GW_REQUIRE_GEMINI_CLI",
		env:   []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_TELEMETRY_ENABLED=false", "NO_COLOR=1"},
		route: "/v1beta/models", tool: "read_file",
		task: func(p string) []string { return []string{"--yolo", "-p", p} },
		home: map[string]string{".gemini/settings.json": `{"privacy":{"usageStatisticsEnabled":false},` +
			`"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false}}` + "\n"}},
}

// prompt asks for the agent's file-reading tool on path; the stand-in's scripted model calls the offered
// tool named in it with the backticked path, then quotes the tool's result.
func (c agentCLI) prompt(path string) string {
	if c.name == "codex" {
		return "Use the exec_command tool: `cat " + path + "`"
	}
	return "Use the " + c.tool + " tool on `" + path + "` and tell me the launch code."
}

// answered: the agent passed the tool's result back to the model (which quotes it).
var answered = regexp.MustCompile(`Tool result received: «[^»]*PINEAPPLE-42`)

// binDir is the directory holding the agent's command: on PATH, or the pinned copy of scripts/test.sh.
// A missing one skips the test, or fails it when its require variable or GW_REQUIRE_AGENTS is 1.
func (c agentCLI) binDir(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath(c.bin); err == nil {
		return filepath.Dir(p)
	}
	dir := filepath.Join(keychaintest.RepoRoot(t), ".cache", c.cache)
	if _, err := os.Stat(filepath.Join(dir, c.bin)); err == nil {
		return dir
	}
	a, _ := all.Lookup(c.name)
	msg := c.bin + " is not installed; install: " + a.Info().Install + " (scripts/test.sh keeps a pinned copy in .cache/)"
	if os.Getenv(c.require) == "1" || os.Getenv("GW_REQUIRE_AGENTS") == "1" {
		t.Fatal(msg + " (" + c.require + "=1 / GW_REQUIRE_AGENTS=1)")
	}
	t.Skip(msg)
	return ""
}

// TestAgents runs each real agent CLI through gw, with the key only in the OS keychain, against the
// stand-in: after gw init agent --agent NAME the agent completes a task that calls its file-reading tool,
// through gw serve; and through gw run NAME, with none of its config files written. Continue and Cline
// have no gw run route (their init story only). Claude Code and Codex need gw serve's /v1/messages and
// /v1/responses, which gw serve translates onto chat completions.
func TestAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gw and runs the agents")
	}
	requireKeyring(t, "GW_REQUIRE_AGENTS")
	type story struct {
		name string
		cli  agentCLI
		run  bool // gw run, else gw init agent
	}
	var stories []story
	for _, c := range agentCLIs {
		a, _ := all.Lookup(c.name)
		if _, ok := a.(agents.ConfigWriter); ok {
			stories = append(stories, story{strings.ReplaceAll(c.name, "-", "") + "_init", c, false})
		}
		if _, ok := a.(agents.Runner); ok {
			stories = append(stories, story{strings.ReplaceAll(c.name, "-", "") + "_run", c, true})
		}
	}
	if !keychaintest.Isolated() {
		gw := buildGW(t)
		for _, s := range stories {
			t.Run(s.name, func(t *testing.T) {
				dir := s.cli.binDir(t)
				t.Parallel()
				keychaintest.RunIsolated(t, t.Name(), "GW_REQUIRE_AGENTS=1", gwBinaryEnv+"="+gw, agentDirEnv+"="+dir)
			})
		}
		return
	}
	gw := os.Getenv(gwBinaryEnv)
	if gw == "" {
		gw = buildGW(t)
	}
	for _, s := range stories {
		t.Run(s.name, func(t *testing.T) {
			dir := os.Getenv(agentDirEnv)
			if dir == "" {
				dir = s.cli.binDir(t)
			}
			if s.run {
				agentThroughRun(t, gw, s.cli, dir)
			} else {
				agentThroughInit(t, gw, s.cli, dir)
			}
		})
	}
}

// agentDirEnv passes the agent's directory to the isolated re-run.
const agentDirEnv = "GW_E2E_AGENT_DIR"

// agentMachine is a machine with the key stored by gw auth login, the agent's command first on PATH,
// its offline settings, and a project with a file to read.
func agentMachine(t *testing.T, gw string, c agentCLI, dir string) (m *machine, svc *standin.Running, key, notes string) {
	t.Helper()
	key = newKey(t)
	svc = startService(t, key)
	m = newMachine(t)
	m.env = append(m.env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	m.env = append(m.env, c.env...)
	m.run(t, nil, key+"\n", gw, "auth", "login", "--base-url", svc.BaseURL, "--with-key")
	m.writeHome(t, c.home)
	notes = filepath.Join(m.work, "notes.txt")
	if err := os.WriteFile(notes, []byte("The launch code is PINEAPPLE-42.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return m, svc, key, notes
}

// writeHome writes the settings files the user already has (by path under HOME, with their content).
func (m *machine) writeHome(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(m.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// configFiles are the agent's config files gw init agent writes, global and project, with their content
// ("" for none).
func configFiles(t *testing.T, m *machine, name string) map[string]string {
	t.Helper()
	ag, _ := all.Lookup(name)
	a, ok := ag.(agents.ConfigWriter)
	if !ok {
		return map[string]string{}
	}
	env := agents.Place{Getenv: m.getenv, WorkDir: m.work}
	out := map[string]string{}
	for _, scope := range []agents.Scope{agents.Global, agents.Project} {
		files, err := a.Files(scope, env)
		if err != nil {
			continue
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			out[f] = string(b)
		}
	}
	return out
}

// getenv reads the machine's environment (the last setting wins, as for a process).
func (m *machine) getenv(k string) string {
	v := ""
	for _, kv := range m.env {
		if name, val, ok := strings.Cut(kv, "="); ok && name == k {
			v = val
		}
	}
	return v
}

// agentThroughInit: gw serve runs, gw init agent --agent NAME writes the agent's config for it, and the
// agent reads a file with its tool and passes the result back, through gw serve, with the real key added
// there; no file under HOME holds the key.
func agentThroughInit(t *testing.T, gw string, c agentCLI, dir string) {
	m, svc, key, notes := agentMachine(t, gw, c, dir)
	serve := m.startServe(t, gw, "--port", "0")
	out := m.run(t, nil, "", gw, "init", "agent", "--agent", c.name, "--models", model+","+otherModel, "--default", model, "--port", serve.port(), "--yes")
	t.Logf("gw init agent --agent %s:\n%s", c.name, out)
	for f, content := range configFiles(t, m, c.name) {
		if strings.HasPrefix(f, m.work) {
			continue
		}
		if content == "" {
			t.Errorf("gw init agent wrote no %s", f)
		}
	}

	seen := len(svc.Seen())
	out, ok := m.runMayFail(t, nil, filepath.Join(dir, c.bin), c.task(c.prompt(notes))...)
	if !ok {
		t.Errorf("%s failed:\n%s", c.bin, out)
	}
	t.Logf("%s answered:\n%s", c.bin, lastLines(out, 5))
	if !answered.MatchString(out) {
		t.Fatalf("%s did not pass the file back through gw serve:\n%s\ngw serve:\n%s", c.bin, out, serve.stderr)
	}
	if n := chats(t, svc, key, seen); n < 2 {
		t.Errorf("the stand-in saw %d chat requests with the key, want the tool call and the answer", n)
	}
	path := "/v1/chat/completions"
	if c.route != "" {
		path = c.route
	}
	if !regexp.MustCompile(`POST ` + regexp.QuoteMeta(path) + `\S* .*status=200`).MatchString(serve.stderr.String()) {
		t.Errorf("gw serve's log has no line for %s's requests:\n%s", c.bin, serve.stderr)
	}
	fullStrength(t, c, svc, func(args ...string) (string, bool) {
		return m.runMayFail(t, nil, filepath.Join(dir, c.bin), args...)
	})
	if c.name == "codex" {
		// Codex fetched gw serve's catalog of the models, and never tried a websocket (a GET of the
		// responses route, which would show "Reconnecting…").
		if !regexp.MustCompile(`GET /v1/codex/models\S* .*status=200`).MatchString(serve.stderr.String()) ||
			regexp.MustCompile(`GET /v1/responses`).MatchString(serve.stderr.String()) {
			t.Errorf("gw serve's log:\n%s", serve.stderr)
		}
	}
	noFileHolds(t, m.home, key)
	serve.stop(t)
}

// agentThroughRun: no gw serve and no config of the agent: gw run NAME starts it pointed at a gw serve of
// its own, and the agent reads a file with its tool and passes the result back; the agent's config files
// are as they were (none), and no file under HOME holds the key.
func agentThroughRun(t *testing.T, gw string, c agentCLI, dir string) {
	m, svc, key, notes := agentMachine(t, gw, c, dir)
	// gw serve's port, free: gw run serves there (not on 8787, which other programs of this machine may use).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if err := config.Update(filepath.Join(m.configHome(), "gw", "config.json"), func(f *config.File) error { f.Port = port; return nil }); err != nil {
		t.Fatal(err)
	}
	before := configFiles(t, m, c.name)
	seen := len(svc.Seen())
	args := append([]string{"run", "--model", model, c.name, "--"}, c.task(c.prompt(notes))...)
	out := m.run(t, nil, "", gw, args...)
	t.Logf("gw run %s answered:\n%s", c.name, lastLines(out, 5))
	if !answered.MatchString(out) {
		t.Fatalf("%s did not pass the file back through gw run:\n%s", c.bin, out)
	}
	if n := chats(t, svc, key, seen); n < 2 {
		t.Errorf("the stand-in saw %d chat requests with the key, want the tool call and the answer", n)
	}
	fullStrength(t, c, svc, func(args ...string) (string, bool) {
		return m.runMayFail(t, nil, gw, append([]string{"run", "--model", model, c.name, "--"}, args...)...)
	})
	for f, now := range configFiles(t, m, c.name) {
		if now != before[f] {
			t.Errorf("gw run wrote %s:\n%s", f, now)
		}
	}
	noFileHolds(t, m.home, key)
}

// fullStrength checks what an agent gets beyond its basic tools, with run running it with args. Claude
// Code: its "haiku" tier, the model of its background tasks, is the Haiku-class model (the stories declare model, a Sonnet, as the default, and otherModel, a Haiku);
// with `claude -p` nothing runs in the background, so the tier is asked for by its name. Codex: it offers
// its apply_patch tool, which the stand-in's model calls when asked to (with a patch Codex refuses: the
// refusal passed back shows the tool was Codex's apply_patch, not the shell tool offered first).
func fullStrength(t *testing.T, c agentCLI, svc *standin.Running, run func(args ...string) (string, bool)) {
	t.Helper()
	switch c.name {
	case "claude-code":
		from := len(svc.Seen())
		if out, ok := run(append(c.task("say hello"), "--model", "haiku")...); !ok {
			t.Errorf("claude --model haiku failed:\n%s", out)
		}
		var models []string
		for _, s := range svc.Seen()[from:] {
			if s.Path == "/v1/chat/completions" {
				models = append(models, s.Model)
			}
		}
		if len(models) == 0 || slices.ContainsFunc(models, func(m string) bool { return m != otherModel }) {
			t.Errorf("Claude Code's haiku tier asked the stand-in for %q, want %s", models, otherModel)
		}
	case "pi":
		// pi speaks the Messages API through gw serve so that reasoning survives between turns: a Gemini-class
		// model's thought signature, sealed by gw serve into the tool call's id, comes back on the next request
		// (the stand-in refuses a Gemini tool call sent back without it). Only where pi has that model: gw
		// run declares the whole subscription, the init story two Anthropic-class models.
		const gemini = "vendor-b/model-b-3-flash-preview"
		if out, _ := run("--list-models"); !strings.Contains(out, gemini) {
			t.Logf("pi's config has no %s; the thought-signature round trip is checked through gw run", gemini)
			return
		}
		from := len(svc.Seen())
		out, ok := run(append(c.task(c.prompt("notes.txt")), "--model", gemini)...)
		if !ok || !answered.MatchString(out) {
			t.Fatalf("pi with %s:\n%s", gemini, out)
		}
		var sent, received int
		for _, s := range svc.Seen()[from:] {
			if s.Path == "/v1/chat/completions" && s.Model == gemini {
				sent += len(s.Sent)
				received += len(s.Received)
			}
		}
		t.Logf("the stand-in sent %d thought signatures and got %d back", sent, received)
		if sent == 0 || received == 0 {
			t.Errorf("the stand-in sent %d thought signatures and got %d back", sent, received)
		}
	case "codex":
		out, _ := run(c.task("Use the apply_patch tool: `no patch here`")...)
		if !regexp.MustCompile(`Tool result received: «[^»]*(?i:patch)`).MatchString(out) {
			t.Errorf("codex did not run apply_patch:\n%s", out)
		}
	}
}

// chats counts the chat requests the stand-in saw after the first `after`, failing the test for any
// request without the real key.
func chats(t *testing.T, svc *standin.Running, key string, after int) int {
	t.Helper()
	n := 0
	for _, s := range svc.Seen()[after:] {
		if s.Key != key {
			t.Errorf("the stand-in got a request for %s without the real key", s.Path)
		}
		if s.Path == "/v1/chat/completions" {
			n++
		}
	}
	return n
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func isConfigWriter(a agents.Agent) bool { _, ok := a.(agents.ConfigWriter); return ok }
