package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/keychain/keychaintest"
	"github.com/modelgateway/gw/standin"
)

// The file of a session, before and after the agent's edit, and the command it runs: the arithmetic shows
// the command really ran in a shell (its output holds what no file and no prompt does).
const (
	sessionBefore = "The launch code is PINEAPPLE-42.\n"
	sessionAfter  = "The launch code is MANGO-7.\n"
	sessionCheck  = "checked 42"
)

// sessionAnswer is the stand-in's answer quoting the command's output: the edited file, then the check.
var sessionAnswer = regexp.MustCompile(`Tool result received: «[^»]*MANGO-7[^»]*` + sessionCheck)

// sessionAgent is how a session test drives one agent: the steps of its prompt, for its own tools, and how
// its output tells the answer and the cached tokens gw reported to it.
type sessionAgent struct {
	name string // as in agentCLIs
	// reasoning is the stand-in's reasoning dialect for the session's model: one that signs, for the agents
	// that must give the signature back ("" for none).
	reasoning string
	// steps are the numbered steps of the prompt for the file at notes (absolute; the project is the
	// agent's working directory): read it, edit it with the agent's own edit tool, run a command on it.
	steps func(notes string) []string
	// args is the command line (after the command) that runs prompt to its end; again the one that runs
	// prompt as the next turn of the same conversation (nil: no second turn).
	args, again func(prompt string) []string
	// result reads the agent's output: its final answer, and the prompt tokens it was told were read from
	// the cache (-1 when the agent does not print them).
	result func(t *testing.T, out string) (answer string, cached int)
	// threadUsage: the cached tokens the agent prints on a resumed conversation count its earlier turns too.
	threadUsage bool
	// runFiles are config files the agent reads (by path under HOME) beyond those gw init agent writes,
	// which gw run must not write either.
	runFiles []string
	// cleanHome: the user has nothing of the agent's under HOME (not its agentCLIs settings either).
	cleanHome bool
}

var sessionAgents = []sessionAgent{
	{
		name: "claude-code", reasoning: standin.ReasoningLiteLLM,
		steps: func(notes string) []string {
			return []string{
				"Use the Read tool on `" + notes + "`.",
				"Use the Edit tool: `file_path=" + notes + "` `old_string=PINEAPPLE-42` `new_string=MANGO-7`",
				"Use the Bash tool: `cat " + notes + "; echo checked $((6*7))`",
			}
		},
		args: func(p string) []string {
			return []string{"-p", p, "--output-format", "json", "--allowedTools", "Read,Edit,Bash"}
		},
		again: func(p string) []string {
			return []string{"-p", p, "--continue", "--output-format", "json", "--allowedTools", "Read,Edit,Bash"}
		},
		result: func(t *testing.T, out string) (string, int) {
			var res struct {
				Type    string `json:"type"`
				IsError bool   `json:"is_error"`
				Result  string `json:"result"`
				Usage   struct {
					CacheRead int `json:"cache_read_input_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || res.Type != "result" || res.IsError {
				t.Fatalf("claude printed no result (%v):\n%s", err, out)
			}
			return res.Result, res.Usage.CacheRead
		},
	},
	{
		name: "codex", reasoning: standin.ReasoningOpenRouter, threadUsage: true,
		// Codex's shell tool reads and runs; its apply_patch edits (offered because gw serve's catalog
		// names the model). Paths in a patch are the project's.
		steps: func(notes string) []string {
			name := filepath.Base(notes)
			return []string{
				"Use the shell_command tool: `cat " + notes + "`",
				"Use the apply_patch tool: `input=*** Begin Patch\\n*** Update File: " + name + "\\n@@\\n-" +
					strings.TrimSuffix(sessionBefore, "\n") + "\\n+" + strings.TrimSuffix(sessionAfter, "\n") + "\\n*** End Patch\\n`",
				"Use the shell_command tool: `cat " + notes + "; echo checked $((6*7))`",
			}
		},
		args: func(p string) []string {
			return append(append([]string{"exec", "--json"}, codexOffline...), p)
		},
		again: func(p string) []string {
			return append(append([]string{"exec", "--json"}, codexOffline...), "resume", "--last", p)
		},
		result: func(t *testing.T, out string) (string, int) {
			answer, cached, turns := "", 0, 0
			for line := range strings.Lines(out) {
				var ev struct {
					Type string `json:"type"`
					Item struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"item"`
					Usage struct {
						Cached int `json:"cached_input_tokens"`
					} `json:"usage"`
				}
				if json.Unmarshal([]byte(line), &ev) != nil {
					continue
				}
				switch {
				case ev.Type == "item.completed" && ev.Item.Type == "agent_message":
					answer = ev.Item.Text
				case ev.Type == "turn.completed":
					turns++
					cached += ev.Usage.Cached
				}
			}
			if turns == 0 {
				t.Fatalf("codex reported no completed turn:\n%s", out)
			}
			return answer, cached
		},
	},
	{
		name: "opencode",
		steps: func(notes string) []string {
			return []string{
				"Use the read tool on `" + notes + "`.",
				"Use the edit tool: `filePath=" + notes + "` `oldString=PINEAPPLE-42` `newString=MANGO-7`",
				"Use the bash tool: `cat " + notes + "; echo checked $((6*7))`",
			}
		},
		args:   func(p string) []string { return []string{"run", p} },
		result: func(t *testing.T, out string) (string, int) { return out, -1 },
	},
	{
		// pi's edit takes its replacements as an array.
		name: "pi",
		steps: func(notes string) []string {
			return []string{
				"Use the read tool on `" + notes + "`.",
				"Use the edit tool: `path=" + notes + "` `edits=[{\"oldText\":\"PINEAPPLE-42\",\"newText\":\"MANGO-7\"}]`",
				"Use the bash tool: `cat " + notes + "; echo checked $((6*7))`",
			}
		},
		args:   func(p string) []string { return []string{"-p", p} },
		result: func(t *testing.T, out string) (string, int) { return out, -1 },
	},
	{
		// Gemini CLI's replace asks for an instruction besides the strings; its shell tool refuses any `$(`
		// (command substitution, and so the arithmetic of the other agents' command), so awk computes. On a
		// clean HOME, where it has chosen no sign-in, gw run gives it one for the run: its directory under
		// HOME is still missing afterwards (what Gemini CLI keeps of the run went to the run's own home).
		name: "gemini", cleanHome: true, runFiles: []string{".gemini"},
		steps: func(notes string) []string {
			return []string{
				"Use the read_file tool on `" + notes + "`.",
				"Use the replace tool: `file_path=" + notes + "` `old_string=PINEAPPLE-42` `new_string=MANGO-7` `instruction=Change the launch code.`",
				"Use the run_shell_command tool: `cat " + notes + "; awk 'BEGIN { print \"checked\", 6*7 }'`",
			}
		},
		args:   func(p string) []string { return []string{"--yolo", "-p", p} },
		result: func(t *testing.T, out string) (string, int) { return out, -1 },
	},
	{
		// Copilot CLI has no config file gw writes (gw run only): its user settings and the providers it
		// manages stay unwritten (it keeps config.json itself, its first launch's time in it).
		name: "copilot", runFiles: []string{".copilot/settings.json", ".copilot/providers.json"},
		steps: func(notes string) []string {
			return []string{
				"Use the view tool on `" + notes + "`.",
				"Use the edit tool: `path=" + notes + "` `old_str=PINEAPPLE-42` `new_str=MANGO-7`",
				"Use the bash tool: `cat " + notes + "; echo checked $((6*7))`",
			}
		},
		args:   func(p string) []string { return []string{"-p", p, "--allow-all-tools", "--no-auto-update"} },
		result: func(t *testing.T, out string) (string, int) { return out, -1 },
	},
	{
		// droid's Execute asks for a short summary that starts with a capital (its schema's pattern); the
		// stand-in's model rates every command "low", which droid exec --auto low runs.
		name: "droid",
		steps: func(notes string) []string {
			return []string{
				"Use the Read tool on `" + notes + "`.",
				"Use the Edit tool: `file_path=" + notes + "` `old_str=PINEAPPLE-42` `new_str=MANGO-7`",
				"Use the Execute tool: `cat " + notes + "; echo checked $((6*7))` `summary=Show the edited notes`",
			}
		},
		args:   func(p string) []string { return []string{"exec", "--auto", "low", p} },
		result: func(t *testing.T, out string) (string, int) { return out, -1 },
	},
}

// prompt is the agent's task: the numbered steps the stand-in's model follows one request at a time,
// then an answer quoting the last tool's result.
func (a sessionAgent) prompt(notes string) string {
	var b strings.Builder
	b.WriteString("Do these steps in order:\n")
	for i, s := range a.steps(notes) {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	b.WriteString("Then answer with the command's output.")
	return b.String()
}

func (a sessionAgent) cli() agentCLI {
	i := slices.IndexFunc(agentCLIs, func(c agentCLI) bool { return c.name == a.name })
	return agentCLIs[i]
}

// TestSession: each agent does a multi-step session through gw serve, with the key only in the OS
// keychain, against the stand-in: it reads a file, edits it with its own edit tool (Claude Code's Edit,
// Codex's apply_patch, OpenCode's, pi's and Copilot CLI's edit, Gemini CLI's replace, droid's Edit), runs
// a command with its shell tool and answers with the command's output; the file really changed on disk.
// After gw init agent --agent NAME (not Copilot CLI, which has no config gw writes), and through gw run
// NAME, which leaves the agent's config files as they were and the local token in none of its files. The
// stand-in signs its reasoning (LiteLLM's dialect for Claude Code, OpenRouter's for Codex): every request
// after the first gives back the signatures of the answers before it; Claude Code's cache breakpoints and
// Codex's prompt_cache_key reach the stand-in, whose cache then reports cached tokens, which gw passes on to
// the agent. The same holds for the conversation's next turn, in a new run of Claude Code and Codex.
func TestSession(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gw and runs the agents")
	}
	requireKeyring(t, "GW_REQUIRE_AGENTS")
	type story struct {
		name  string
		agent sessionAgent
		run   bool // gw run, else gw init agent
	}
	var stories []story
	for _, a := range sessionAgents {
		n := strings.ReplaceAll(a.name, "-", "")
		if d, _ := all.Lookup(a.name); isConfigWriter(d) {
			stories = append(stories, story{n + "_init", a, false})
		}
		stories = append(stories, story{n + "_run", a, true})
	}
	if !keychaintest.Isolated() {
		gw := buildGW(t)
		for _, s := range stories {
			t.Run(s.name, func(t *testing.T) {
				dir := s.agent.cli().binDir(t)
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
				dir = s.agent.cli().binDir(t)
			}
			session(t, gw, s.agent, dir, s.run)
		})
	}
}

// sessionLimit bounds one run of an agent (four requests, three tools; seconds here): generous for a
// loaded machine, only a guard against a hung agent; two runs fit in the isolated run's 5 minutes.
const sessionLimit = 150 * time.Second

// session is one story of TestSession: agent a, from dir, through gw run (viaRun) or gw init agent.
func session(t *testing.T, gw string, a sessionAgent, dir string, viaRun bool) {
	c := a.cli()
	key := newKey(t)
	opts := standin.Options{Accounts: []standin.Account{{Key: key, BalanceCents: 10_000}}}
	if a.reasoning != "" {
		opts.ReasoningByModel = map[string]string{model: a.reasoning}
	}
	svc := standin.Start(opts)
	t.Cleanup(svc.Close)
	m := newMachine(t)
	m.env = append(m.env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	m.env = append(m.env, c.env...)
	m.run(t, nil, key+"\n", gw, "auth", "login", "--base-url", svc.BaseURL, "--with-key")
	if !a.cleanHome {
		m.writeHome(t, c.home)
	}
	notes := filepath.Join(m.work, "notes.txt")
	if err := os.WriteFile(notes, []byte(sessionBefore), 0o600); err != nil {
		t.Fatal(err)
	}

	// agent runs the agent with args to its end, through gw run or the gw serve gw init agent set it up for,
	// and returns its output and the requests for the session's model the stand-in saw meanwhile.
	var agent func(args []string) (string, []standin.Seen)
	var serve *serveProc
	var before map[string]string // the agent's config files before gw run
	if viaRun {
		// gw serve's port, free: gw run serves there (not on 8787, which other programs may use).
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if err := config.Update(filepath.Join(m.configHome(), "gw", "config.json"), func(f *config.File) error { f.Port = port; return nil }); err != nil {
			t.Fatal(err)
		}
		before = configFiles(t, m, c.name)
		agent = func(args []string) (string, []standin.Seen) {
			return m.session(t, svc, key, gw, append([]string{"run", "--model", model, c.name, "--"}, args...)...)
		}
	} else {
		serve = m.startServe(t, gw, "--port", "0")
		m.run(t, nil, "", gw, "init", "agent", "--agent", c.name, "--models", model+","+otherModel, "--default", model, "--port", serve.port(), "--yes")
		agent = func(args []string) (string, []standin.Seen) {
			return m.session(t, svc, key, filepath.Join(dir, c.bin), args...)
		}
	}

	out, turns := agent(a.args(a.prompt(notes)))
	answer, cached := a.result(t, out)
	t.Logf("%s answered: %s (told of %d cached prompt tokens)", c.bin, lastLines(answer, 5), cached)
	if b, err := os.ReadFile(notes); err != nil || string(b) != sessionAfter {
		t.Errorf("after the session %s holds %q (%v), want %q: the agent's edit did not reach the file", notes, b, err, sessionAfter)
	}
	// The answer quotes the command's result (some agents print their tool calls too, command lines included).
	if !sessionAnswer.MatchString(answer) {
		t.Errorf("%s's answer does not carry the command's output (the edited file and %q):\n%s", c.bin, sessionCheck, answer)
	}
	// read, edit, run, answer
	if len(turns) < 4 {
		t.Fatalf("the stand-in saw %d chat requests for %s, want the 3 tool calls and the answer", len(turns), model)
	}
	earlier := a.carried(t, "", nil, turns, cached)

	// The next turn of the conversation, in a new run of the agent: what the agent kept of the first one
	// (the signed reasoning, the cacheable prefix) reaches the stand-in again.
	if a.again != nil {
		out, more := agent(a.again("Now say hello."))
		answer, cached := a.result(t, out)
		t.Logf("%s answered the next turn: %s (told of %d cached prompt tokens)", c.bin, lastLines(answer, 5), cached)
		if !strings.Contains(answer, standin.Greeting(model)) {
			t.Errorf("%s's next turn does not carry the stand-in's answer:\n%s", c.bin, answer)
		}
		if len(more) == 0 {
			t.Fatalf("the stand-in saw no chat request for %s on the next turn", model)
		}
		a.carried(t, "on the next turn, ", earlier, more, cached)
	}
	if viaRun {
		for f, now := range configFiles(t, m, c.name) {
			if now != before[f] {
				t.Errorf("gw run wrote %s:\n%s", f, now)
			}
		}
		for _, f := range a.runFiles {
			if _, err := os.Stat(filepath.Join(m.home, f)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after gw run ~/%s exists (%v): gw run wrote the agent's config", f, err)
			}
		}
		// Nor did it leave the local token it gave the agent in any of the agent's files.
		cfg, err := config.Load(filepath.Join(m.configHome(), "gw", "config.json"))
		if err != nil || cfg.LocalToken == "" {
			t.Fatalf("gw's config has no local token (%v)", err)
		}
		noAgentFileHolds(t, m, cfg.LocalToken)
	}
	noFileHolds(t, m.home, key)
	if serve != nil {
		serve.stop(t)
	}
}

// carried checks what the requests of a turn carried to the stand-in, given those of the turns before
// (earlier), and that the agent was told of the tokens the stand-in's cache read (cached, as the agent
// printed it); it returns earlier and this turn's. Each request gives back the signatures of every answer
// before it, in order; Claude Code's carry its cache breakpoints, Codex's the session's prompt_cache_key;
// the stand-in's cache reads every prompt but the very first, which grows from the one before; and gw
// passes on the counts of cached tokens as the stand-in reported them.
func (a sessionAgent) carried(t *testing.T, when string, earlier, turns []standin.Seen, cached int) []standin.Seen {
	t.Helper()
	all := append(slices.Clone(earlier), turns...)
	if a.reasoning == "" {
		return all
	}
	var sent []string
	for _, s := range earlier {
		sent = append(sent, s.Sent...)
	}
	reported := 0
	for i, s := range all {
		if i >= len(earlier) || a.threadUsage {
			reported += s.CachedTokens
		}
		if i < len(earlier) {
			continue
		}
		n := i - len(earlier) + 1
		if len(s.Sent) == 0 {
			t.Errorf("%srequest %d: the stand-in signed nothing in the %s dialect", when, n, a.reasoning)
		}
		var got []string
		for _, r := range s.Received {
			got = append(got, r.Value)
		}
		if !slices.Equal(got, sent) {
			t.Errorf("%srequest %d gave the stand-in back the signatures %q, want those of the answers before it %q", when, n, got, sent)
		}
		sent = append(sent, s.Sent...)
		switch {
		case a.name == "claude-code" && len(s.Breakpoints) == 0:
			t.Errorf("%srequest %d reached the stand-in with no cache breakpoint", when, n)
		case a.name == "codex" && s.PromptCacheKey == "":
			t.Errorf("%srequest %d reached the stand-in with no prompt_cache_key", when, n)
		case a.name == "codex" && s.PromptCacheKey != all[0].PromptCacheKey:
			t.Errorf("%srequest %d reached the stand-in with prompt_cache_key %q, want the session's %q", when, n, s.PromptCacheKey, all[0].PromptCacheKey)
		}
		if s.CachedTokens == 0 && i > 0 {
			t.Errorf("%srequest %d: the stand-in's cache read nothing of a prompt that grew from the one before", when, n)
		}
	}
	if cached != reported || cached == 0 {
		t.Errorf("%sthe agent was told of %d cached prompt tokens, want the %d the stand-in's cache reported", when, cached, reported)
	}
	return all
}

// noAgentFileHolds fails the test for a file under HOME, gw's own config aside, that holds the local token.
func noAgentFileHolds(t *testing.T, m *machine, token string) {
	t.Helper()
	own := filepath.Join(m.configHome(), "gw")
	err := filepath.WalkDir(m.home, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path == own:
			return filepath.SkipDir
		case !d.Type().IsRegular():
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(token)) {
			t.Errorf("after gw run %s holds the local token gw run gave the agent", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// session runs a command on the machine to its end (within sessionLimit) and returns its stdout and the
// chat requests for the session's model the stand-in saw meanwhile, all of which must carry the key.
func (m *machine) session(t *testing.T, svc *standin.Running, key, name string, args ...string) (string, []standin.Seen) {
	t.Helper()
	from := len(svc.Seen())
	p := m.start(t, nil, name, args...)
	if err := p.wait(t, sessionLimit); err != nil {
		t.Fatalf("%s failed: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), err, p.stdout, p.stderr)
	}
	var turns []standin.Seen
	for _, s := range svc.Seen()[from:] {
		if s.Key != key {
			t.Errorf("the stand-in got a request for %s without the real key", s.Path)
		}
		if s.Path == "/v1/chat/completions" {
			t.Logf("chat request: model %s status %d, %d breakpoints, prompt_cache_key %q, %d/%d prompt tokens cached, received %d signatures, sent %d",
				s.Model, s.Status, len(s.Breakpoints), s.PromptCacheKey, s.CachedTokens, s.PromptTokens, len(s.Received), len(s.Sent))
			if s.Model == model {
				turns = append(turns, s)
			}
		}
	}
	return p.stdout.String(), turns
}
