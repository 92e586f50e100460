package agent

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/standin"
	"github.com/modelgateway/gw/tui"
)

// broken is a config the agent's reader refuses.
func broken(name string) string {
	switch name {
	case "codex":
		return "model = \"a\"\n[model_providers.gw\nname = \"x\"\n"
	case "continue":
		return "name: Local\nmodels:\n  - name: a\n    model: [b\n"
	}
	return "{\n  \"theme\": \"dark\"\n  \"share\": \"manual\"\n}\n"
}

// filesOf are the agent's global config files in the test's HOME.
func filesOf(t *testing.T, e *cmdtest.Env, a writer) []string {
	t.Helper()
	files, err := a.Files(agents.Global, agents.Place{Getenv: func(k string) string { return e.Vars[k] }, WorkDir: e.Dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasPrefix(f, filepath.Join(e.Dir, "home")+string(filepath.Separator)) {
			t.Fatalf("%s: config %s is outside the test's HOME", a.Name, f)
		}
	}
	return files
}

func inspectFiles(t *testing.T, a writer, files []string) agents.Inspection {
	t.Helper()
	srcs := make([][]byte, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		srcs[i] = b
	}
	in, err := a.Inspect(srcs)
	if err != nil {
		t.Fatalf("%s: written config does not read back: %v", a.Name, err)
	}
	return in
}

// Every agent, in a HOME of its own: --dry-run prints the diff and writes nothing; the real run writes the
// agent's own files with gw serve's address, the local token (never the key) and the models; a second run
// changes nothing and says so; a smaller subscription is refreshed and the dropped models reported, the
// previous file kept as a private backup; a file the agent could not read is left byte for byte, its
// line and column named.
func TestAgentRun_EveryAgent(t *testing.T) {
	for _, ag := range all.Configurable() {
		a := mustWriter(t, ag.Info().Name)
		t.Run(a.Name, func(t *testing.T) {
			e, _ := env(t)
			e.Vars["GW_API_KEY"] = standin.DemoKeyFull
			files := filesOf(t, e, a)

			if err := run(t, e, AgentOptions{Agent: a.Name, Models: []string{"all"}, DryRun: true}); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if !strings.Contains(e.Out.String(), "+++ "+f+"\n") {
					t.Errorf("the dry run shows no diff for %s:\n%s", f, e.Out)
				}
				if _, err := os.Stat(f); err == nil {
					t.Errorf("the dry run wrote %s", f)
				}
			}
			if !strings.HasSuffix(e.ErrOut.String(), "dry run: nothing was written\n") {
				t.Errorf("stderr:\n%s", e.ErrOut)
			}

			if err := run(t, e, AgentOptions{Agent: a.Name, Models: []string{"all"}, Default: "vendor-a/model-a-sonnet-4.5"}); err != nil {
				t.Fatal(err)
			}
			out := scrub(e, e.Out.String())
			n := "8 models"
			switch a.Name {
			case "claude-code":
				n = "3 models" // the default model and one of each tier: Opus, Sonnet, Haiku
			case "codex", "gemini":
				n = "1 model" // the default model
			}
			// The default model is reported, except for an agent that has no such setting (Continue, which
			// starts with its first chat model).
			noDefault, _ := a.choosesOwn()
			if a.Name == "continue" && !noDefault {
				t.Error("Continue has no default-model setting, but gw would report one")
			}
			if got := strings.Contains(out, "\n"+a.Display+"'s model: vendor-a/model-a-sonnet-4.5") ||
				strings.Contains(out, "\n"+a.Display+"'s model: gw/vendor-a/model-a-sonnet-4.5"); got == noDefault {
				t.Errorf("default model reported: %v, want %v (it chooses its own: %v):\n%s", got, !noDefault, noDefault, out)
			}
			if !strings.HasPrefix(out, "Created "+strings.ReplaceAll(files[0], e.Dir, "$DIR")+": "+a.Entry+" with "+n+"\n") ||
				!regexp.MustCompile(`\nNext: run gw serve \(`+regexp.QuoteMeta(a.Display)+` reaches the service through http://127\.0\.0\.1:8787(/v1)?\)\n$`).MatchString(out) {
				t.Errorf("stdout:\n%s", out)
			}
			c, err := config.Load(filepath.Join(e.Dir, "home", ".config", "gw", "config.json"))
			if err != nil || c.LocalToken == "" {
				t.Fatalf("no local token saved: %v", err)
			}
			in := inspectFiles(t, a, files)
			if !in.Configured || in.KeyKind != agents.KeyLocalToken || in.LocalToken != c.LocalToken || !strings.HasPrefix(in.BaseURL, "http://127.0.0.1:8787") {
				t.Errorf("read back: %+v", in)
			}
			if in.Default != "vendor-a/model-a-sonnet-4.5" && in.Default != "gw/vendor-a/model-a-sonnet-4.5" {
				t.Errorf("default model read back: %q", in.Default)
			}
			for _, f := range files {
				fi, err := os.Stat(f)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("%s has mode %v; it holds the local token, want 0600", f, fi.Mode().Perm())
				}
				if b, _ := os.ReadFile(f); strings.Contains(string(b), standin.DemoKeyFull) {
					t.Errorf("%s holds the API key", f)
				}
			}

			if err := run(t, e, AgentOptions{Agent: a.Name, Models: []string{"all"}}); err != nil {
				t.Fatal(err)
			}
			if out := e.Out.String(); !strings.Contains(out, "already up to date") {
				t.Errorf("second run:\n%s", out)
			}

			// The subscription shrinks to three models: --models all refreshes, the five others go (Codex
			// names only the default model, which stays; Claude Code's Opus tier goes).
			e.Vars["GW_API_KEY"] = standin.DemoKeyPartial
			before := readAll(t, files)
			if err := run(t, e, AgentOptions{Agent: a.Name, Models: []string{"all"}}); err != nil {
				t.Fatal(err)
			}
			out = scrub(e, e.Out.String())
			switch {
			case a.Name == "codex" || a.Name == "gemini":
				if !strings.Contains(out, "already up to date") {
					t.Errorf("refresh:\n%s", out)
				}
			case a.Name == "claude-code":
				// Opus goes; its tier borrows Sonnet's model, and the output says so.
				if !regexp.MustCompile(`(?m)^  removed: vendor-a/model-a-opus-4.6 \(no longer in your subscription\)$`).MatchString(out) ||
					!strings.Contains(out, "Opus vendor-a/model-a-sonnet-4.5 (no Opus-class model; Sonnet's)") {
					t.Errorf("refresh:\n%s", out)
				}
			case !regexp.MustCompile(`^Updated \$DIR/\S+: `+regexp.QuoteMeta(a.Entry)+` with 3 models\n`).MatchString(out) ||
				!regexp.MustCompile(`(?m)^  removed: .*vendor-a/model-a-opus-4.6.* \(no longer in your subscription\)$`).MatchString(out):
				t.Errorf("refresh:\n%s", out)
			}
			in = inspectFiles(t, a, files)
			for _, id := range in.Models {
				if !slices.Contains(standin.PartialPlan(), id) {
					t.Errorf("after the refresh the config still names %s", id)
				}
			}
			for i, f := range files {
				if readAll(t, files[i:i+1])[0] == before[i] {
					continue
				}
				b, err := os.ReadFile(f + ".bak")
				if err != nil || string(b) != before[i] {
					t.Errorf("%s.bak does not hold the previous content (%v)", f, err)
				}
				if fi, err := os.Stat(f + ".bak"); err == nil && fi.Mode().Perm() != 0o600 {
					t.Errorf("%s.bak has mode %v, want 0600", f, fi.Mode().Perm())
				}
			}

			// A file the agent could not read: left byte for byte, nothing else written.
			text := broken(a.Name)
			if err := os.WriteFile(files[0], []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			rest := readAll(t, files[1:])
			err = run(t, e, AgentOptions{Agent: a.Name, Models: []string{"all"}, Yes: true})
			if err == nil || !regexp.MustCompile(`^`+regexp.QuoteMeta(files[0])+`:\d+:\d+: `).MatchString(err.Error()) || !strings.HasSuffix(cmdutil.ErrorWithFix(err), "\n"+a.Display+"'s config does not parse; fix it by hand and run again\n(nothing was changed)") {
				t.Errorf("broken config: %v", err)
			}
			if got := readAll(t, files[:1])[0]; got != text {
				t.Errorf("the broken file was changed:\n%s", got)
			}
			if !slices.Equal(readAll(t, files[1:]), rest) {
				t.Error("another file was changed")
			}
		})
	}
}

func readAll(t *testing.T, files []string) []string {
	t.Helper()
	out := make([]string, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// Claude Code, Codex and Cline only work through gw serve: --mode direct is a usage error with the reason,
// before anything is asked of the service or written.
func TestNewCmdAgent_DirectModeRefusedWithTheReason(t *testing.T) {
	for _, tt := range []struct{ agent, reason string }{
		{"claude-code", "Claude Code speaks the Anthropic messages API and the service speaks chat completions only; gw serve translates between them"},
		{"codex", "Codex speaks the OpenAI responses API and the service speaks chat completions only; gw serve translates between them"},
		{"cline", "Cline keeps its API key written in providers.json"},
	} {
		e := cmdtest.New(t)
		cmd := NewCmdAgent(e.Factory, nil)
		cmd.SetArgs([]string{"--agent", tt.agent, "--mode", "direct", "--models", "all"})
		cmd.SetOut(e.Out)
		cmd.SetErr(e.ErrOut)
		err := cmd.Execute()
		if cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage || !strings.HasPrefix(err.Error(), "--mode direct is not possible for ") || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s: %v", tt.agent, err)
		}
		if entries, _ := os.ReadDir(filepath.Join(e.Dir, "home")); len(entries) > 0 {
			t.Errorf("%s: something was written under HOME", tt.agent)
		}
	}
}

// Direct mode where the agent can refer to a variable: the reference, never a token or the key.
func TestAgentRun_DirectModeWritesAReferenceForEveryAgentThatCan(t *testing.T) {
	for _, ag := range all.Configurable() {
		a := mustWriter(t, ag.Info().Name)
		if a.directRefusal() != "" {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			e, _ := env(t)
			if err := run(t, e, AgentOptions{Agent: a.Name, Mode: ModeDirect, Models: []string{"all"}}); err != nil {
				t.Fatal(err)
			}
			files := filesOf(t, e, a)
			in := inspectFiles(t, a, files)
			if in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || in.BaseURL != e.Vars["GW_BASE_URL"] {
				t.Errorf("read back %+v", in)
			}
			for _, f := range readAll(t, files) {
				if strings.Contains(f, "gw-local-") || strings.Contains(f, standin.DemoKeyPartial) {
					t.Errorf("direct mode wrote a token or the key:\n%s", f)
				}
			}
			if !strings.Contains(e.Out.String(), "Next: start "+a.Display+" with the key in its environment: GW_API_KEY=$(gw auth token) "+a.Binary+"\n") {
				t.Errorf("stdout:\n%s", e.Out)
			}
		})
	}
}

// An agent without a project config: --project is a usage error saying so.
func TestAgentRun_ProjectScopeRefusedWhereTheAgentHasNone(t *testing.T) {
	for _, name := range []string{"codex", "continue", "cline"} {
		e, _ := env(t)
		err := run(t, e, AgentOptions{Agent: name, Project: true, Models: []string{"all"}})
		if cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage || !strings.HasPrefix(err.Error(), "--project: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Without a terminal, --agent is required: a usage error naming every agent, nothing asked or written.
func TestAgentRun_NoTerminalNeedsAgent(t *testing.T) {
	e, _ := env(t)
	opts := AgentOptions{Mode: ModeProxy, Models: []string{"all"}, Pick: func(*tui.IOStreams, tui.PickOptions) ([]string, error) {
		t.Fatal("the picker was started")
		return nil, nil
	}}
	err := agentRun(t.Context(), withEnv(e, &opts))
	if cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage || err.Error() != "--agent required when not running interactively: one of opencode, claude-code, codex, qwen-code, continue, cline, kilo, crush, pi, droid, gemini" {
		t.Errorf("err = %v", err)
	}
}

// On a terminal without --agent: the agents found on PATH or by their config come first, each with the
// state of its config; the one picked is configured.
func TestAgentRun_PicksAmongTheAgentsFound_FakePicker(t *testing.T) {
	e, _ := env(t)
	ios := e.Factory.IOStreams
	for _, f := range []func(bool){ios.SetStdinTTY, ios.SetStdoutTTY, ios.SetStderrTTY} {
		f(true)
	}
	bin := filepath.Join(e.Dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"qwen", "codex"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.Vars["PATH"] = bin
	// Codex configured by hand for another port, with a key in plain text; Crush's config only.
	codexHome := filepath.Join(e.Dir, "home", ".codex")
	crushDir := filepath.Join(e.Dir, "home", ".config", "crush")
	for _, d := range []string{codexHome, crushDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte("model = \"vendor-a/model-a-haiku-4.5\"\nmodel_provider = \"gw\"\n\n[model_providers.gw]\nbase_url = \"http://127.0.0.1:9999/v1\"\nexperimental_bearer_token = \"sk-plain\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(crushDir, "crush.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var offered []tui.PickItem
	pick := func(_ *tui.IOStreams, o tui.PickOptions) ([]string, error) {
		if o.Title == "Agent to point at gw (enter chooses)" {
			offered = o.Items
			return []string{"qwen-code"}, nil
		}
		t.Fatalf("unexpected picker %q", o.Title)
		return nil, nil
	}
	e.In.WriteString("y\n")
	opts := AgentOptions{Mode: ModeProxy, Pick: pick, Models: []string{"all"}, Yes: true}
	if err := agentRun(t.Context(), withEnv(e, &opts)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range offered {
		s := it.ID + ": " + it.Note
		if it.Disabled {
			s = it.ID + " (disabled): " + it.Reason
		}
		got = append(got, s)
	}
	want := []string{
		"codex: configured: other port, plain key, setting to check",
		"qwen-code: not configured",
		"crush: not configured; not on PATH",
		"opencode: not installed (npm install -g opencode-ai)",
		"claude-code: not installed (npm install -g @anthropic-ai/claude-code)",
		"continue: not installed (npm install -g @continuedev/cli)",
		"cline: not installed (npm install -g cline)",
		"kilo: not installed (npm install -g @kilocode/cli)",
		"pi: not installed (npm install -g @mariozechner/pi-coding-agent)",
		"droid: not installed (npm install -g @factory/cli)",
		"gemini: not installed (npm install -g @google/gemini-cli)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("offered:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(scrub(e, e.Out.String()), "Created $DIR/home/.qwen/settings.json: gw's entries in modelProviders.openai with 3 models\n") {
		t.Errorf("stdout:\n%s", e.Out)
	}
}

// mustWriter is the agent gw init agent writes a config for by that name.
func mustWriter(t testing.TB, name string) writer {
	t.Helper()
	w, err := lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
