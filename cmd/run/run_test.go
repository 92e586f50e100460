//go:build unix

package run

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/standin"
)

// fakeAgentEnv makes the test binary act as a coding agent (see fakeAgent).
const fakeAgentEnv = "GW_RUN_TEST_FAKE_AGENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeAgentEnv); mode != "" {
		os.Exit(fakeAgent(mode))
	}
	os.Exit(m.Run())
}

// report is what the fake agent saw, written as JSON to stdout.
type report struct {
	Args   []string          `json:"args"`
	Env    map[string]string `json:"env"`
	Status int               `json:"status"` // of GET {OPENAI_BASE_URL}/models with OPENAI_API_KEY, when set
	// Files are the arguments naming a file that exists while the agent runs, with their content and mode.
	Files map[string]runFile `json:"files"`
	// GeminiSettings is $GEMINI_CLI_HOME/.gemini/settings.json while the agent runs, when it is set.
	GeminiSettings string `json:"gemini_settings"`
}

type runFile struct {
	Data string      `json:"data"`
	Mode os.FileMode `json:"mode"`
	Dir  os.FileMode `json:"dir"` // its directory's
}

// fakeAgent is a real child process standing in for an agent:
//
//	report        print what it got (arguments, environment, the answer of gw serve), exit 0
//	exit:N        exit with status N
//	wait          say "ready", then print each signal it gets; SIGTERM ends it with status 42
//	die           say "ready", then let SIGTERM end it (the default action)
func fakeAgent(mode string) int {
	switch {
	case mode == "report":
		r := report{Args: os.Args[1:], Env: map[string]string{}, Files: map[string]runFile{}}
		for _, a := range r.Args {
			fi, err := os.Stat(a)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			b, _ := os.ReadFile(a)
			di, _ := os.Stat(filepath.Dir(a))
			r.Files[a] = runFile{Data: string(b), Mode: fi.Mode().Perm(), Dir: di.Mode().Perm()}
		}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			r.Env[k] = v
		}
		if h := os.Getenv("GEMINI_CLI_HOME"); h != "" {
			b, _ := os.ReadFile(filepath.Join(h, ".gemini", "settings.json"))
			r.GeminiSettings = string(b)
		}
		if base := os.Getenv("OPENAI_BASE_URL"); base != "" {
			req, _ := http.NewRequest(http.MethodGet, base+"/models", nil)
			req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
			if res, err := http.DefaultClient.Do(req); err == nil {
				r.Status = res.StatusCode
				res.Body.Close()
			}
		}
		_ = json.NewEncoder(os.Stdout).Encode(r)
		return 0
	case strings.HasPrefix(mode, "exit:"):
		n, _ := strconv.Atoi(strings.TrimPrefix(mode, "exit:"))
		return n
	case mode == "wait":
		sigs := make(chan os.Signal, 8)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGWINCH)
		fmt.Println("ready")
		for s := range sigs {
			fmt.Println("got", s)
			if s == syscall.SIGTERM {
				return 42
			}
		}
	case mode == "die":
		fmt.Println("ready")
		time.Sleep(time.Minute)
	}
	return 99
}

func TestNewCmdRun_Args(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		agent     string
		rest      []string
		model     string
		wantErr   string
		usageCode bool
	}{
		{args: []string{"opencode"}, agent: "opencode"},
		{args: []string{"opencode", "--", "run", "-m", "x"}, agent: "opencode", rest: []string{"run", "-m", "x"}},
		{args: []string{"claude-code", "-p", "hi", "--model", "y"}, agent: "claude-code", rest: []string{"-p", "hi", "--model", "y"}},
		{args: []string{"--model", "vendor-a/model-a-haiku-4.5", "qwen-code", "--", "--", "x"}, agent: "qwen-code", rest: []string{"--", "x"}, model: "vendor-a/model-a-haiku-4.5"},
		{args: nil, wantErr: "gw run needs the agent to run: one of opencode, claude-code, codex, qwen-code, kilo, pi, droid, copilot, gemini"},
		{args: []string{"cursor"}, wantErr: `unknown agent "cursor"; gw run starts one of opencode, claude-code, codex, qwen-code, kilo, pi, droid, copilot, gemini`},
		{args: []string{"claude", "-p", "hi"}, agent: "claude-code", rest: []string{"-p", "hi"}}, // the command's own name
		{args: []string{"qwen"}, agent: "qwen-code"},
		{args: []string{"claud"}, wantErr: "unknown agent \"claud\"; gw run starts one of opencode, claude-code, codex, qwen-code, kilo, pi, droid, copilot, gemini\n\nDid you mean this?\n\tclaude-code"},
		{args: []string{"codx"}, wantErr: "unknown agent \"codx\"; gw run starts one of opencode, claude-code, codex, qwen-code, kilo, pi, droid, copilot, gemini\n\nDid you mean this?\n\tcodex"},
		{args: []string{"sk-gw-0123456789abcdef"}, wantErr: "unknown agent (not shown, in case it is a secret); gw run starts one of opencode, claude-code, codex, qwen-code, kilo, pi, droid, copilot, gemini"},
		{args: []string{"continue"}, wantErr: "gw run cannot point Continue at gw: Continue takes its models only from a config file\nfix: run: gw init agent --agent continue"},
		{args: []string{"cline"}, wantErr: "gw run cannot point Cline at gw: Cline takes the base URL only from its providers.json\nfix: run: gw init agent --agent cline"},
		{args: []string{"crush"}, wantErr: "gw run cannot point Crush at gw: Crush takes its providers and models only from its config files\nfix: run: gw init agent --agent crush"},
		{args: []string{"--small-model", "x", "opencode"}, wantErr: "--small-model goes with --model"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := cmdtest.New(t)
			var got *RunOptions
			cmd := NewCmdRun(e.Factory, func(_ context.Context, o *RunOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || cmdutil.ErrorWithFix(err) != tt.wantErr || cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
					t.Fatalf("err = %v, want usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Agent != tt.agent || !slices.Equal(got.Args, tt.rest) && len(got.Args)+len(tt.rest) > 0 || got.Model != tt.model {
				t.Fatalf("agent %q args %q model %q", got.Agent, got.Args, got.Model)
			}
		})
	}
}

// fakeAgentOnPath puts the test binary on PATH under the agent's command name, acting in mode.
func fakeAgentOnPath(t *testing.T, binary string) {
	t.Helper()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, binary)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
}

// runEnv is a factory with the stand-in and the partial demo key in GW_API_KEY, and gw run's options for
// agent whose environment makes the test binary act in mode.
func runEnv(t *testing.T, agent, mode string, args ...string) (*cmdtest.Env, *RunOptions) {
	t.Helper()
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Vars["GW_API_KEY"] = standin.DemoKeyPartial
	f := e.Factory
	opts := &RunOptions{IO: e.IO, Getenv: f.Getenv, WorkDir: f.WorkDir, Config: f.Config, Models: f.ListModels,
		ResolveBaseURL: f.BaseURL, Key: cmdutil.Serving(f.Key), Transport: f.Transport,
		Agent: agent, Args: args, Environ: func() []string {
			return []string{fakeAgentEnv + "=" + mode, "HOME=" + e.Vars["HOME"], keyEnv + "=" + standin.DemoKeyPartial, "OPENAI_API_KEY=sk-users-own"}
		}}
	return e, opts
}

const keyEnv = "GW_API_KEY"

// gw run qwen-code: the agent is started with gw's settings in its environment and flags, the local token
// in the environment only, the user's arguments after gw's, without GW_API_KEY; gw serves in-process and
// the agent's request through it reaches the service; nothing is written under HOME but the request log.
func TestRunRun_TokenInEnvironmentOnlyAndServedInProcess(t *testing.T) {
	fakeAgentOnPath(t, "qwen")
	e, opts := runEnv(t, "qwen-code", "report", "-p", "hello")
	before := tree(t, e.Dir)
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, e.Out)
	}
	token := r.Env["OPENAI_API_KEY"]
	if !strings.HasPrefix(token, config.LocalTokenPrefix) {
		t.Fatalf("OPENAI_API_KEY = %q, want a local token", token)
	}
	for _, a := range r.Args {
		if strings.Contains(a, token) || strings.Contains(a, standin.DemoKeyPartial) {
			t.Errorf("argument %q holds the token or the key", a)
		}
	}
	if _, ok := r.Env[keyEnv]; ok {
		t.Error("the agent got GW_API_KEY")
	}
	for k, v := range r.Env {
		if strings.Contains(v, standin.DemoKeyPartial) {
			t.Errorf("the agent's %s holds the key", k)
		}
	}
	if !slices.Equal(r.Args[len(r.Args)-2:], []string{"-p", "hello"}) || !slices.Contains(r.Args, "--openai-base-url") {
		t.Errorf("args = %q", r.Args)
	}
	if r.Status != http.StatusOK {
		t.Errorf("the agent's GET /models through gw run's serve answered %d", r.Status)
	}
	u, _ := url.Parse(r.Env["OPENAI_BASE_URL"])
	if u == nil || u.Hostname() != "127.0.0.1" || u.Port() == "8787" {
		t.Errorf("OPENAI_BASE_URL = %q, want a free loopback port", r.Env["OPENAI_BASE_URL"])
	}
	if e.ErrOut.Len() > 0 {
		t.Errorf("gw printed: %s", e.ErrOut)
	}
	if after := tree(t, e.Dir); !slices.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}
	// The request log is the one thing written: gw serve's, naming the agent gw run started.
	if b, err := os.ReadFile(filepath.Join(e.Vars["XDG_STATE_HOME"], "gw", "serve.log")); err != nil ||
		!strings.Contains(string(b), " GET /v1/models agent=qwen-code status=200 ") {
		t.Errorf("serve.log (%v):\n%s", err, b)
	}
	// The in-process gw serve is gone with the agent.
	if _, err := http.Get(r.Env["OPENAI_BASE_URL"] + "/models"); err == nil {
		t.Error("gw run's gw serve still answers after the agent ended")
	}
}

// A running gw serve (the configured port, answering gw serve's probe with the configured token) is used.
func TestRunRun_UsesTheRunningGwServe(t *testing.T) {
	fakeAgentOnPath(t, "qwen")
	e, opts := runEnv(t, "qwen-code", "report")
	const token = "gw-local-0123456789abcdef0123456789abcdef"
	upstream, _ := url.Parse(e.Vars["GW_BASE_URL"])
	h, err := proxy.New(proxy.Options{Upstream: upstream, Transport: http.DefaultTransport, Key: proxy.NewKeyCache(func(context.Context) (string, error) { return standin.DemoKeyPartial, nil }, time.Minute), LocalToken: token, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := proxy.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan struct{})
	go func() { defer close(served); _ = proxy.Serve(ctx, ln, h, time.Second) }()
	t.Cleanup(func() { cancel(); <-served })
	port := ln.Addr().(interface{ String() string }).String()
	_, p, _ := strings.Cut(port, ":")
	n, _ := strconv.Atoi(p)
	if err := config.Save(filepath.Join(e.Dir, "home", ".config", "gw", "config.json"), config.File{LocalToken: token, Port: n}); err != nil {
		t.Fatal(err)
	}
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Env["OPENAI_BASE_URL"] != "http://"+port+"/v1" || r.Env["OPENAI_API_KEY"] != token || r.Status != http.StatusOK {
		t.Errorf("base %q token %q status %d; want the running gw serve at %s", r.Env["OPENAI_BASE_URL"], r.Env["OPENAI_API_KEY"], r.Status, port)
	}
}

// gw exits with the agent's status.
func TestRunRun_ExitStatusOfTheAgent(t *testing.T) {
	fakeAgentOnPath(t, "opencode")
	for _, code := range []int{0, 3, 77} {
		_, opts := runEnv(t, "opencode", "exit:"+strconv.Itoa(code))
		err := runRun(t.Context(), opts)
		if got := cmdutil.ExitCodeFor(err); int(got) != code {
			t.Errorf("agent exited %d, gw run's status %d (%v)", code, got, err)
		}
	}
}

// An agent that is not installed: an error naming its command and how to install it.
func TestRunRun_AgentNotOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, opts := runEnv(t, "kilo", "report")
	err := runRun(t.Context(), opts)
	if err == nil || err.Error() != "kilo is not on PATH (Kilo's command); install it: npm install -g @kilocode/cli" {
		t.Errorf("err = %v", err)
	}
}

// Signals sent to gw reach the agent, which a real child process shows by printing them; gw's status is
// the agent's, 128+N when signal N ended it. (No terminal here: the terminal hand-over is checked in a
// real one by the end-to-end tests.)
func TestRunChild_ForwardsSignals(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mode  string
		sigs  []syscall.Signal
		want  int
		lines []string
	}{
		{"wait", []syscall.Signal{syscall.SIGWINCH, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM}, 42,
			[]string{"ready", "got window changed", "got hangup", "got interrupt", "got terminated"}},
		{"die", []syscall.Signal{syscall.SIGTERM}, 128 + int(syscall.SIGTERM), []string{"ready"}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			cmd := exec.Command(self)
			cmd.Env = append(os.Environ(), fakeAgentEnv+"="+tt.mode)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = pw
			type result struct {
				code int
				err  error
			}
			done := make(chan result, 1)
			go func() {
				code, err := runChild(cmd)
				pw.Close()
				done <- result{code, err}
			}()
			lines := bufio.NewScanner(pr)
			var got []string
			next := func() bool {
				if !lines.Scan() {
					return false
				}
				got = append(got, lines.Text())
				return true
			}
			if !next() || got[0] != "ready" {
				t.Fatalf("the agent did not start: %q", got)
			}
			for i, s := range tt.sigs {
				if err := syscall.Kill(os.Getpid(), s); err != nil {
					t.Fatal(err)
				}
				if i < len(tt.lines)-1 && (!next() || got[len(got)-1] != tt.lines[i+1]) {
					t.Fatalf("after %v the agent printed %q", s, got)
				}
			}
			for next() {
			}
			r := <-done
			if r.err != nil || r.code != tt.want {
				t.Errorf("status %d (%v), want %d", r.code, r.err, tt.want)
			}
			if !slices.Equal(got, tt.lines) {
				t.Errorf("the agent printed %q, want %q", got, tt.lines)
			}
		})
	}
}

// tree lists the files under dir with their sizes and modification times.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// The request log (serve.log and its lock), which every gw serve appends to, gw run's included.
		if d.Type().IsRegular() && !strings.Contains(p, filepath.Join(".local", "state", "gw", "serve.log")) &&
			!strings.HasSuffix(p, ".serve.log.lock") {
			fi, _ := d.Info()
			out = append(out, fmt.Sprintf("%s %d %d", strings.TrimPrefix(p, dir), fi.Size(), fi.ModTime().UnixNano()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// What in the agent's own config wins over gw run's environment is said before the agent starts: Claude
// Code's token in settings.json, Qwen Code's entries under another base URL. gw's own current token does
// not count.
func TestOverrides(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	write := func(rel, content string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const tok = "gw-local-0123456789abcdef0123456789abcdef"
	d := agentsDecl(tok)
	write(".claude/settings.json", `{"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8787", "ANTHROPIC_AUTH_TOKEN": "`+tok+`"}}`)
	write(".qwen/settings.json", `{"modelProviders": {"openai": [{"id": "vendor-a/model-a-haiku-4.5", "baseUrl": "http://127.0.0.1:9999/v1", "envKey": "GW_LOCAL_TOKEN"}]}}`)
	for _, tt := range []struct {
		agent, want string
	}{
		{"claude-code", ""},
		{"qwen-code", "settings.json declares gw's models with base URL http://127.0.0.1:9999/v1, which Qwen Code uses instead of gw run's for the same model ids; run: gw init agent --agent qwen-code"},
	} {
		a, _ := all.Lookup(tt.agent)
		got := strings.Join(overrides(a, readConfigs(a, agents.Place{Getenv: env, WorkDir: t.TempDir()}), d), "\n")
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasSuffix(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.agent, got, tt.want)
		}
	}
	write(".claude/settings.json", `{"env": {"ANTHROPIC_AUTH_TOKEN": "gw-local-ffffffffffffffffffffffffffffffff"}}`)
	a, _ := all.Lookup("claude-code")
	if got := overrides(a, readConfigs(a, agents.Place{Getenv: env, WorkDir: t.TempDir()}), d); len(got) != 1 || !strings.HasSuffix(got[0], `/settings.json sets ANTHROPIC_AUTH_TOKEN or ANTHROPIC_API_KEY in "env", which Claude Code sends instead of gw run's token; remove it, or run: gw init agent --agent claude-code`) {
		t.Errorf("claude-code with another token: %q", got)
	}
}

func agentsDecl(token string) agents.Declaration {
	return agents.Declaration{Mode: agents.Proxy, BaseURL: "http://127.0.0.1:40000/v1", Token: token,
		Models: []agents.Model{{ID: "vendor-a/model-a-haiku-4.5", Name: "H", Context: 200000, Output: 64000}}}
}

// Without a running gw serve, gw run's own serves with gw's local token: the one gw init agent wrote into
// Claude Code's settings.json (which Claude Code prefers to the environment) is accepted, and no warning is
// said; gw's config is not changed.
func TestRunRun_InProcessServeUsesGwsToken(t *testing.T) {
	fakeAgentOnPath(t, "claude")
	e, opts := runEnv(t, "claude-code", "report")
	const token = "gw-local-0123456789abcdef0123456789abcdef"
	cfgPath := filepath.Join(e.Dir, "home", ".config", "gw", "config.json")
	port := freePort(t)
	if err := config.Save(cfgPath, config.File{LocalToken: token, Port: port}); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(e.Dir, "home", ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	addr := "http://127.0.0.1:" + strconv.Itoa(port)
	if err := os.WriteFile(settings, []byte(`{"env": {"ANTHROPIC_BASE_URL": "`+addr+`", "ANTHROPIC_AUTH_TOKEN": "`+token+`"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := tree(t, e.Dir)
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	// gw serve's port was free: gw run served there, where the settings point anyway.
	if r.Env["ANTHROPIC_AUTH_TOKEN"] != token || r.Env["ANTHROPIC_BASE_URL"] != addr {
		t.Errorf("token %q base %q; want gw's token and gw serve's address %s", r.Env["ANTHROPIC_AUTH_TOKEN"], r.Env["ANTHROPIC_BASE_URL"], addr)
	}
	// Only the note on Claude Code's tiers (this plan has no Opus-class model): no warning.
	if strings.Contains(e.ErrOut.String(), "warning") || !strings.HasPrefix(e.ErrOut.String(), "note: Claude Code's tiers: Opus vendor-a/model-a-sonnet-4.5 (no Opus-class model; Sonnet's)") {
		t.Errorf("gw printed: %s", e.ErrOut)
	}
	if after := tree(t, e.Dir); !slices.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}
}

// freePort is a loopback port nothing listens on (free when it was asked for).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Qwen Code configured by gw init agent for gw serve's port, gw serve not running: gw run serves on that
// port, so the entries Qwen Code prefers to the environment reach it, and nothing is said.
func TestRunRun_InProcessServeOnGwServesPort(t *testing.T) {
	fakeAgentOnPath(t, "qwen")
	e, opts := runEnv(t, "qwen-code", "report")
	const token = "gw-local-0123456789abcdef0123456789abcdef"
	port := freePort(t)
	if err := config.Save(filepath.Join(e.Dir, "home", ".config", "gw", "config.json"), config.File{LocalToken: token, Port: port}); err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port) + "/v1"
	settings := filepath.Join(e.Dir, "home", ".qwen", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"env": {"GW_LOCAL_TOKEN": "`+token+`"}, "modelProviders": {"openai": [{"id": "vendor-a/model-a-haiku-4.5", "baseUrl": "`+base+`", "envKey": "GW_LOCAL_TOKEN"}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Env["OPENAI_BASE_URL"] != base || r.Status != http.StatusOK || e.ErrOut.Len() > 0 {
		t.Errorf("base %q status %d stderr %q; want gw serve's address %s answering", r.Env["OPENAI_BASE_URL"], r.Status, e.ErrOut, base)
	}
}

// An agent that takes gw's settings only from a file named on its command line (Factory droid's
// --settings): the file is there while it runs, readable by the user only, without the token (which is in
// the environment), and gone with its directory when the agent has ended.
func TestRunRun_RunFilesLiveAsLongAsTheAgent(t *testing.T) {
	fakeAgentOnPath(t, "droid")
	e, opts := runEnv(t, "droid", "report", "exec", "hello")
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, e.Out)
	}
	token := r.Env["GW_LOCAL_TOKEN"]
	if len(r.Args) < 2 || r.Args[0] != "--settings" || !strings.HasPrefix(token, config.LocalTokenPrefix) {
		t.Fatalf("args %q, token %q", r.Args, token)
	}
	path := r.Args[1]
	f, ok := r.Files[path]
	if !ok || !strings.Contains(f.Data, `"${GW_LOCAL_TOKEN}"`) || strings.Contains(f.Data, token) || f.Mode != 0o600 || f.Dir != 0o700 {
		t.Errorf("the settings file while droid ran: %+v", f)
	}
	if _, err := os.Stat(filepath.Dir(path)); err == nil {
		t.Errorf("%s is still there after droid ended", filepath.Dir(path))
	}
}

// An agent whose settings for the run are made from the user's own files (Gemini CLI with a task and
// without a sign-in chosen): they are there while it runs, in a directory gone when it has ended, gw run
// says so, and nothing under HOME changed. On a terminal without a task, Gemini CLI is interactive and
// keeps its own home. A sign-in of another kind chosen in the user's settings is said as a warning.
func TestRunRun_PreparedHomeLivesAsLongAsTheAgent(t *testing.T) {
	fakeAgentOnPath(t, "gemini")
	e, opts := runEnv(t, "gemini", "report", "-p", "do it")
	e.Vars["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = filepath.Join(t.TempDir(), "settings.json")
	before := tree(t, e.Dir)
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, e.Out)
	}
	home := r.Env["GEMINI_CLI_HOME"]
	if home == "" || !strings.Contains(r.GeminiSettings, `"selectedType": "gemini-api-key"`) {
		t.Fatalf("GEMINI_CLI_HOME %q, its settings %q", home, r.GeminiSettings)
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("%s is still there after gemini ended", home)
	}
	if !strings.Contains(e.ErrOut.String(), "note: Gemini CLI's settings choose no sign-in") {
		t.Errorf("gw printed: %s", e.ErrOut)
	}
	if after := tree(t, e.Dir); !slices.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}

	e.Out.Reset()
	e.ErrOut.Reset()
	e.Factory.IOStreams.SetStdinTTY(true)
	e.Factory.IOStreams.SetStdoutTTY(true)
	interactive := *opts
	interactive.Args = nil
	if err := runRun(t.Context(), &interactive); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	r = report{}
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, e.Out)
	}
	if r.Env["GEMINI_CLI_HOME"] != "" || e.ErrOut.Len() > 0 {
		t.Errorf("interactively: GEMINI_CLI_HOME %q; gw printed: %s", r.Env["GEMINI_CLI_HOME"], e.ErrOut)
	}

	settings := filepath.Join(e.Vars["HOME"], ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"security":{"auth":{"selectedType":"oauth-personal"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Out.Reset()
	e.ErrOut.Reset()
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	r = report{}
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, e.Out)
	}
	if r.Env["GEMINI_CLI_HOME"] != "" || !strings.Contains(e.ErrOut.String(), `warning: security.auth.selectedType is "oauth-personal" in `+settings) {
		t.Errorf("GEMINI_CLI_HOME %q; gw printed: %s", r.Env["GEMINI_CLI_HOME"], e.ErrOut)
	}
}

// With no --model and no default in the agent's config, gw run starts the agent on a middle model of the
// subscription, not on the first listed (the largest, the most expensive).
func TestModels_DefaultIsNotTheLargest(t *testing.T) {
	ids := []string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-opus-4.5-thinking", "vendor-a/model-a-sonnet-4.6", "vendor-a/model-a-haiku-4.5"}
	def, small, err := models(&RunOptions{}, ids, nil)
	if err != nil || def != "vendor-a/model-a-sonnet-4.6" || small != "" {
		t.Errorf("models = %q, %q, %v; want vendor-a/model-a-sonnet-4.6", def, small, err)
	}
}
