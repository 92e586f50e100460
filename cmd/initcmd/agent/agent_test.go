package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents/opencodefmt"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/standin"
	"github.com/modelgateway/gw/tui"
)

func TestNewCmdAgent_Flags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		want    AgentOptions
	}{
		{args: nil, want: AgentOptions{Mode: ModeProxy}},
		{args: []string{"--models", "vendor-a/model-a-haiku-4.5, vendor-b/model-b-3-flash-preview", "--default", "vendor-a/model-a-haiku-4.5", "--project", "--dry-run", "--yes"},
			want: AgentOptions{Mode: ModeProxy, Models: []string{"vendor-a/model-a-haiku-4.5", "vendor-b/model-b-3-flash-preview"}, Default: "vendor-a/model-a-haiku-4.5", Project: true, DryRun: true, Yes: true}},
		{args: []string{"--models", "a", "--models", "b,a"}, want: AgentOptions{Mode: ModeProxy, Models: []string{"a", "b"}}},
		{args: []string{"--mode", "direct", "--models", "all"}, want: AgentOptions{Mode: ModeDirect, Models: []string{"all"}}},
		{args: []string{"--port", "9000"}, want: AgentOptions{Mode: ModeProxy, Port: 9000}},
		{args: []string{"--mode", "cloud"}, wantErr: `--mode must be "proxy" or "direct", not "cloud"`},
		{args: []string{"--models", "a,,b"}, wantErr: "--models has an empty entry; give ids separated by commas, e.g. --models vendor-a/model-a-sonnet-4.6,vendor-a/model-a-haiku-4.5"},
		{args: []string{"--models", "all,a"}, wantErr: "--models all cannot be combined with other ids"},
		{args: []string{"--mode", "direct", "--port", "9000"}, wantErr: "--port is for --mode proxy (gw serve's port); direct mode uses the hosted base URL"},
		{args: []string{"--port", "70000"}, wantErr: "--port must be between 1 and 65535, not 70000"},
		{args: []string{"--small-model", "a"}, wantErr: "--small-model goes with --default"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := cmdtest.New(t)
			var got *AgentOptions
			cmd := NewCmdAgent(e.Factory, func(_ context.Context, o *AgentOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(e.Out)
			cmd.SetErr(e.ErrOut)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
					t.Fatalf("err = %v, want usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := *got
			g.Pick = nil
			if g.Mode != tt.want.Mode || !slices.Equal(g.Models, tt.want.Models) || g.Default != tt.want.Default ||
				g.Project != tt.want.Project || g.DryRun != tt.want.DryRun || g.Yes != tt.want.Yes || g.Port != tt.want.Port {
				t.Fatalf("options = %+v, want %+v", g, tt.want)
			}
		})
	}
}

// env is a test environment with the stand-in service and the partial demo
// account (sonnet-4.5, haiku-4.5, flash-preview).
func env(t *testing.T) (*cmdtest.Env, string) {
	t.Helper()
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Vars["GW_API_KEY"] = standin.DemoKeyPartial
	return e, filepath.Join(e.Dir, "home", ".config", "opencode", "opencode.jsonc")
}

func run(t *testing.T, e *cmdtest.Env, opts AgentOptions) error {
	t.Helper()
	e.Out.Reset()
	e.ErrOut.Reset()
	withEnv(e, &opts)
	if opts.Agent == "" {
		opts.Agent = "opencode"
	}
	if opts.Mode == "" {
		opts.Mode = ModeProxy
	}
	if opts.Pick == nil {
		opts.Pick = func(*tui.IOStreams, tui.PickOptions) ([]string, error) {
			t.Fatal("the picker was started")
			return nil, nil
		}
	}
	return agentRun(context.Background(), &opts)
}

// withEnv gives opts what gw init agent uses from e: its terminal, environment, working directory and
// config, and the stand-in's models.
func withEnv(e *cmdtest.Env, opts *AgentOptions) *AgentOptions {
	f := e.Factory
	opts.IO, opts.Getenv, opts.WorkDir, opts.Config = e.IO, f.Getenv, f.WorkDir, f.Config
	opts.ResolveBaseURL, opts.ListModels, opts.DefaultBaseURL = f.BaseURL, f.ListModels, f.DefaultBaseURL
	return opts
}

// scrub replaces the temporary directory, the stand-in's address and the
// local token so that outputs can be compared whole.
func scrub(e *cmdtest.Env, s string) string {
	s = strings.ReplaceAll(s, e.Dir, "$DIR")
	s = strings.ReplaceAll(s, strings.TrimSuffix(e.Vars["GW_BASE_URL"], "/v1"), "$SERVICE")
	if c, err := config.Load(filepath.Join(e.Dir, "home", ".config", "gw", "config.json")); err == nil && c.LocalToken != "" {
		s = strings.ReplaceAll(s, c.LocalToken, "$TOKEN")
	}
	return s
}

func compare(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", what, got, want)
	}
}

func TestAgentRun_ProxyCreatesConfigThenSecondRunChangesNothing(t *testing.T) {
	e, path := env(t)
	err := run(t, e, AgentOptions{Models: []string{"all"}, Default: "vendor-a/model-a-sonnet-4.5", SmallModel: "vendor-a/model-a-haiku-4.5"})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "stdout", scrub(e, e.Out.String()), `Created $DIR/home/.config/opencode/opencode.jsonc: provider "gw" with 3 models
  added:   vendor-a/model-a-sonnet-4.5, vendor-a/model-a-haiku-4.5, vendor-b/model-b-3-flash-preview
OpenCode's model: gw/vendor-a/model-a-sonnet-4.5 (small model: gw/vendor-a/model-a-haiku-4.5)
Next: run gw serve (OpenCode reaches the service through http://127.0.0.1:8787/v1)
`)
	compare(t, "stderr", e.ErrOut.String(), "")

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "config", scrub(e, string(data)), `{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "gw": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Model Gateway",
      "options": {
        "baseURL": "http://127.0.0.1:8787/v1",
        "apiKey": "$TOKEN"
      },
      "models": {
        "vendor-a/model-a-sonnet-4.5": {
          "name": "Model A Sonnet 4.5",
          "limit": {"context": 200000, "output": 64000},
          "tool_call": true,
          "attachment": true,
          "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]}
        },
        "vendor-a/model-a-haiku-4.5": {
          "name": "Model A Haiku 4.5",
          "limit": {"context": 200000, "output": 64000},
          "tool_call": true,
          "attachment": true,
          "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]}
        },
        "vendor-b/model-b-3-flash-preview": {
          "name": "Model B 3 Flash Preview",
          "limit": {"context": 1048576, "output": 65536},
          "tool_call": true,
          "attachment": true,
          "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]},
          "reasoning": true
        }
      }
    }
  },
  "model": "gw/vendor-a/model-a-sonnet-4.5",
  "small_model": "gw/vendor-a/model-a-haiku-4.5"
}
`)
	if bytes.Contains(data, []byte(standin.DemoKeyPartial)) {
		t.Fatal("the API key was written into the agent config")
	}
	if !bytes.Contains(data, []byte(`"apiKey": "gw-local-`)) {
		t.Fatal("proxy mode must write gw serve's local token")
	}

	if err := run(t, e, AgentOptions{Models: []string{"all"}, Default: "vendor-a/model-a-sonnet-4.5", SmallModel: "vendor-a/model-a-haiku-4.5"}); err != nil {
		t.Fatal(err)
	}
	compare(t, "second run", scrub(e, e.Out.String()), "$DIR/home/.config/opencode/opencode.jsonc is already up to date: provider \"gw\" with 3 models; nothing changed\n")
	if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
		t.Fatal("second identical run changed the file")
	}
	if _, err := os.Stat(path + ".bak"); err == nil {
		t.Fatal("an unchanged run left a backup")
	}
}

func TestAgentRun_RefreshReportsRemovedAndKeepsUserEdits(t *testing.T) {
	e, path := env(t)
	before := `{
  // mine
  "theme": "dark",
  "provider": {
    "gw": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "My gateway",
      "options": {"baseURL": "http://127.0.0.1:8787/v1", "apiKey": "gw-local-old", "timeout": 600000},
      "models": {
        "vendor-a/model-a-opus-4.6": {"name": "Opus"},
        "vendor-a/model-a-haiku-4.5": {"name": "Haiku, renamed", "limit": {"context": 200000, "output": 64000}, "tool_call": true, "attachment": true, "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]}}
      }
    }
  },
  "model": "anthropic/claude-sonnet-4-5"
}
`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(t, e, AgentOptions{Models: []string{"vendor-a/model-a-haiku-4.5", "vendor-b/model-b-3-flash-preview"}}); err != nil {
		t.Fatal(err)
	}
	compare(t, "stdout", scrub(e, e.Out.String()), `Updated $DIR/home/.config/opencode/opencode.jsonc: provider "gw" with 2 models
  added:   vendor-b/model-b-3-flash-preview
  removed: vendor-a/model-a-opus-4.6 (no longer in your subscription)
Previous version kept in $DIR/home/.config/opencode/opencode.jsonc.bak
Next: run gw serve (OpenCode reaches the service through http://127.0.0.1:8787/v1)
`)
	data, _ := os.ReadFile(path)
	got := scrub(e, string(data))
	for _, keep := range []string{"// mine", `"theme": "dark"`, `"name": "My gateway"`, `"timeout": 600000`, `"name": "Haiku, renamed"`, `"model": "anthropic/claude-sonnet-4-5"`, `"apiKey": "$TOKEN"`} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %s:\n%s", keep, got)
		}
	}
	if strings.Contains(got, "opus") {
		t.Errorf("opus still configured:\n%s", got)
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != before {
		t.Error("the backup does not hold the previous content")
	}
}

func TestAgentRun_DirectModeNeverWritesTheKey(t *testing.T) {
	e, path := env(t)
	if err := run(t, e, AgentOptions{Mode: ModeDirect, Models: []string{"vendor-a/model-a-haiku-4.5"}}); err != nil {
		t.Fatal(err)
	}
	compare(t, "stdout", scrub(e, e.Out.String()), `Created $DIR/home/.config/opencode/opencode.jsonc: provider "gw" with 1 model
  added:   vendor-a/model-a-haiku-4.5
Next: start OpenCode with the key in its environment: GW_API_KEY=$(gw auth token) opencode
`)
	data, _ := os.ReadFile(path)
	sum, err := opencodefmt.ReadModels(data)
	if err != nil || len(sum.Providers) != 1 {
		t.Fatalf("%v %+v", err, sum)
	}
	p := sum.Providers[0]
	if p.BaseURL != e.Vars["GW_BASE_URL"] || p.KeyKind != opencodefmt.KeyEnv || p.KeyRef != "GW_API_KEY" {
		t.Fatalf("provider = %+v", p)
	}
	if bytes.Contains(data, []byte(standin.DemoKeyPartial)) {
		t.Fatal("the API key was written into the agent config")
	}
}

func TestAgentRun_UnknownModelNamesClosestAndWritesNothing(t *testing.T) {
	e, path := env(t)
	err := run(t, e, AgentOptions{Models: []string{"vendor-a/model-a-haiku-4-5"}})
	if err == nil {
		t.Fatal("want an error")
	}
	compare(t, "error", cmdutil.ErrorWithFix(err), `--models: "vendor-a/model-a-haiku-4-5" is not spelled as the service lists it; the closest listed id is vendor-a/model-a-haiku-4.5
fix: use the exact id: vendor-a/model-a-haiku-4.5
(nothing was changed)`)
	err = run(t, e, AgentOptions{Models: []string{"vendor-a/model-a-opus-4.6"}})
	if err == nil || !strings.Contains(err.Error(), "not in this account's subscription") {
		t.Fatalf("model outside the plan: err = %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a config was written")
	}
}

func TestAgentRun_DefaultMustBeAmongModels(t *testing.T) {
	e, _ := env(t)
	err := run(t, e, AgentOptions{Models: []string{"vendor-a/model-a-haiku-4.5"}, Default: "vendor-a/model-a-sonnet-4.5"})
	if err == nil || cmdutil.ErrorWithFix(err) != "--default vendor-a/model-a-sonnet-4.5 is not among the models being added; add it to --models\n(nothing was changed)" {
		t.Fatalf("err = %v", err)
	}
}

func TestAgentRun_NoTerminalNeedsModels(t *testing.T) {
	e, _ := env(t)
	err := run(t, e, AgentOptions{})
	if err == nil || err.Error() != "--models required when not running interactively (e.g. --models all, or ids from gw models)" || cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
		t.Fatalf("err = %v", err)
	}
}

func TestAgentRun_DryRunPrintsDiffAndWritesNothing(t *testing.T) {
	e, path := env(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(t, e, AgentOptions{Mode: ModeDirect, Models: []string{"vendor-a/model-a-haiku-4.5"}, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	compare(t, "stdout", scrub(e, e.Out.String()), `--- $DIR/home/.config/opencode/opencode.jsonc
+++ $DIR/home/.config/opencode/opencode.jsonc
@@ -1,3 +1,22 @@
 {
-  "theme": "dark"
+  "theme": "dark",
+  "provider": {
+    "gw": {
+      "npm": "@ai-sdk/openai-compatible",
+      "name": "Model Gateway",
+      "options": {
+        "baseURL": "$SERVICE/v1",
+        "apiKey": "{env:GW_API_KEY}"
+      },
+      "models": {
+        "vendor-a/model-a-haiku-4.5": {
+          "name": "Model A Haiku 4.5",
+          "limit": {"context": 200000, "output": 64000},
+          "tool_call": true,
+          "attachment": true,
+          "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]}
+        }
+      }
+    }
+  }
 }
`)
	compare(t, "stderr", e.ErrOut.String(), "  added:   vendor-a/model-a-haiku-4.5\ndry run: nothing was written\n")
	if data, _ := os.ReadFile(path); string(data) != "{\n  \"theme\": \"dark\"\n}\n" {
		t.Fatal("dry run changed the file")
	}
}

func TestAgentRun_BrokenConfigIsLeftUntouched(t *testing.T) {
	e, path := env(t)
	broken := "{\n  \"theme\": \"dark\"\n  \"share\": \"manual\"\n}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(t, e, AgentOptions{Models: []string{"all"}})
	if err == nil {
		t.Fatal("want an error")
	}
	compare(t, "error", scrub(e, cmdutil.ErrorWithFix(err)), `$DIR/home/.config/opencode/opencode.jsonc:3:3: invalid character '"' after object value (expecting ',' or '}')
OpenCode's config does not parse; fix it by hand and run again
(nothing was changed)`)
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Fatal("the broken file was changed")
	}
	if _, err := os.Stat(path + ".bak"); err == nil {
		t.Fatal("a backup was written")
	}
}

func TestAgentRun_ProjectScopeWritesWorkDir(t *testing.T) {
	e, global := env(t)
	if err := os.WriteFile(filepath.Join(e.Dir, "opencode.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(t, e, AgentOptions{Project: true, Models: []string{"vendor-a/model-a-haiku-4.5"}, Port: 9999}); err != nil {
		t.Fatal(err)
	}
	compare(t, "stdout", scrub(e, e.Out.String()), `Updated $DIR/opencode.json: provider "gw" with 1 model
  added:   vendor-a/model-a-haiku-4.5
Previous version kept in $DIR/opencode.json.bak
gw serve will listen on port 9999 (saved in gw's config)
Next: run gw serve (OpenCode reaches the service through http://127.0.0.1:9999/v1)
`)
	compare(t, "stderr", e.ErrOut.String(), "note: the project config holds gw serve's local token; it opens only your local proxy, but keep it out of version control (or use --mode direct)\n")
	if _, err := os.Stat(global); err == nil {
		t.Fatal("--project wrote the global config")
	}
}

// The picker is replaced by a scripted one (the real picker is tested in a
// terminal by the tui package); the confirmation is read from stdin.
func TestAgentRun_Interactive_FakePicker(t *testing.T) {
	e, path := env(t)
	ios := e.Factory.IOStreams
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	var titles []string
	var offered []tui.PickItem
	pick := func(_ *tui.IOStreams, o tui.PickOptions) ([]string, error) {
		titles = append(titles, o.Title)
		if o.Multi {
			offered = o.Items
			return []string{"vendor-a/model-a-haiku-4.5", "vendor-b/model-b-3-flash-preview"}, nil
		}
		return []string{"vendor-b/model-b-3-flash-preview"}, nil
	}
	e.In.WriteString("y\n")
	if err := run(t, e, AgentOptions{Pick: pick}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(titles, []string{"Models to add to OpenCode (tab toggles, enter confirms)", "Default model for OpenCode (esc: leave it unchanged)"}) {
		t.Fatalf("pickers = %q", titles)
	}
	var disabled []string
	for _, it := range offered {
		if it.Disabled {
			disabled = append(disabled, it.ID)
		}
	}
	if len(offered) != 8 || len(disabled) != 5 {
		t.Fatalf("offered %d models, %d disabled; want all 8 with the 5 outside the plan disabled", len(offered), len(disabled))
	}
	out := scrub(e, e.Out.String())
	if !strings.Contains(out, "Write these changes to $DIR/home/.config/opencode/opencode.jsonc? [Y/n] ") ||
		!strings.HasSuffix(out, `Created $DIR/home/.config/opencode/opencode.jsonc: provider "gw" with 2 models
  added:   vendor-a/model-a-haiku-4.5, vendor-b/model-b-3-flash-preview
OpenCode's model: gw/vendor-b/model-b-3-flash-preview (small model: gw/vendor-a/model-a-haiku-4.5)
Next: run gw serve (OpenCode reaches the service through http://127.0.0.1:8787/v1)
`) {
		t.Fatalf("stdout:\n%s", out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}

	// Answering no writes nothing and exits as cancelled.
	e2, path2 := env(t)
	for _, f := range []func(bool){e2.Factory.IOStreams.SetStdinTTY, e2.Factory.IOStreams.SetStdoutTTY, e2.Factory.IOStreams.SetStderrTTY} {
		f(true)
	}
	e2.In.WriteString("n\n")
	err := run(t, e2, AgentOptions{Pick: pick})
	if cmdutil.ExitCodeFor(err) != cmdutil.ExitCancel {
		t.Fatalf("err = %v, want cancel", err)
	}
	if _, err := os.Stat(path2); err == nil {
		t.Fatal("a config was written after answering no")
	}
}

func TestAgentRun_ReadOnlyConfig(t *testing.T) {
	e, path := env(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	err := run(t, e, AgentOptions{Models: []string{"all"}})
	if err == nil {
		t.Fatal("want an error")
	}
	compare(t, "error", scrub(e, cmdutil.ErrorWithFix(err)), "$DIR/home/.config/opencode/opencode.jsonc is read-only (mode 0444); make it writable with: chmod u+w $DIR/home/.config/opencode/opencode.jsonc\n(nothing was changed)")
}

// editWhileAsked is stdin whose answer arrives after the file was edited
// elsewhere, as when the user changes the config while the prompt waits.
type editWhileAsked struct {
	t          *testing.T
	path, edit string
	done       bool
}

func (r *editWhileAsked) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	r.done = true
	if err := os.WriteFile(r.path, []byte(r.edit), 0o644); err != nil {
		r.t.Error(err)
	}
	return copy(p, "y\n"), nil
}

func TestAgentRun_FileEditedAtThePromptIsKept(t *testing.T) {
	e, path := env(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios := e.Factory.IOStreams
	for _, f := range []func(bool){ios.SetStdinTTY, ios.SetStdoutTTY, ios.SetStderrTTY} {
		f(true)
	}
	edit := "{\n  \"theme\": \"light\"\n}\n"
	ios.In = &editWhileAsked{t: t, path: path, edit: edit}
	err := run(t, e, AgentOptions{Mode: ModeDirect, Models: []string{"vendor-a/model-a-haiku-4.5"}})
	if err == nil {
		t.Fatal("want an error")
	}
	compare(t, "error", scrub(e, cmdutil.ErrorWithFix(err)), "$DIR/home/.config/opencode/opencode.jsonc changed since gw read it\nfix: run the command again\n(nothing was changed)")
	if data, _ := os.ReadFile(path); string(data) != edit {
		t.Fatalf("the edit made at the prompt was lost; file holds:\n%s", data)
	}
}

// gw's own config gets the new local token and --port only once OpenCode's
// config holds them: a run that writes nothing there changes nothing in gw's
// config either.
func TestAgentRun_TokenAndPortSavedOnlyWithTheOpenCodeConfig(t *testing.T) {
	gwConfig := func(e *cmdtest.Env) string { return filepath.Join(e.Dir, "home", ".config", "gw", "config.json") }
	snapshot := func(e *cmdtest.Env) (string, bool) {
		b, err := os.ReadFile(gwConfig(e))
		return string(b), err == nil
	}
	interactive := func(e *cmdtest.Env, answer string) {
		ios := e.Factory.IOStreams
		for _, f := range []func(bool){ios.SetStdinTTY, ios.SetStdoutTTY, ios.SetStderrTTY} {
			f(true)
		}
		e.In.WriteString(answer)
	}
	for _, tt := range []struct {
		name    string
		prepare func(t *testing.T, e *cmdtest.Env, path string)
		opts    AgentOptions
	}{
		{"answered no", func(t *testing.T, e *cmdtest.Env, _ string) { interactive(e, "n\n") }, AgentOptions{Models: []string{"all"}, Port: 18999}},
		{"dry run", nil, AgentOptions{Models: []string{"all"}, Port: 18999, DryRun: true}},
		{"config does not parse", func(t *testing.T, e *cmdtest.Env, path string) {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("{\n  \"theme\": \"dark\"\n  \"share\": \"manual\"\n}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, AgentOptions{Models: []string{"all"}, Port: 18999}},
		{"existing gw config, answered no", func(t *testing.T, e *cmdtest.Env, _ string) {
			if err := os.MkdirAll(filepath.Dir(gwConfig(e)), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gwConfig(e), []byte("{\"port\":9000}"), 0o600); err != nil {
				t.Fatal(err)
			}
			interactive(e, "n\n")
		}, AgentOptions{Models: []string{"all"}, Port: 18999}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, path := env(t)
			if tt.prepare != nil {
				tt.prepare(t, e, path)
			}
			before, existed := snapshot(e)
			run(t, e, tt.opts)
			after, exists := snapshot(e)
			if exists != existed || after != before {
				t.Fatalf("gw's config changed although OpenCode's was not written:\nbefore (exists %v): %q\nafter (exists %v): %q", existed, before, exists, after)
			}
		})
	}

	// The run that writes OpenCode's config saves the same token and port in gw's, and says so.
	e, path := env(t)
	if err := run(t, e, AgentOptions{Models: []string{"all"}, Port: 18999}); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(gwConfig(e))
	if err != nil || c.LocalToken == "" || c.Port != 18999 {
		t.Fatalf("gw's config = token %q, port %d (err %v); want a token and port 18999", c.LocalToken, c.Port, err)
	}
	if !strings.Contains(e.Out.String(), "gw serve will listen on port 18999 (saved in gw's config)\n") {
		t.Errorf("the saved port is not reported:\n%s", e.Out.String())
	}
	sum, err := opencodefmt.ReadModels([]byte(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	if data := readFile(t, path); !strings.Contains(data, `"apiKey": "`+c.LocalToken+`"`) || !strings.Contains(data, `"baseURL": "http://127.0.0.1:18999/v1"`) || len(sum.Providers) != 1 {
		t.Fatalf("OpenCode's config does not hold gw's saved token:\n%s", data)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Moving a config off a key written in plain text: the key lives on only in the backup, which is owner-only
// and which the user is told to delete.
func TestAgentRun_BackupOfAPlainKeyIsPrivateAndNamed(t *testing.T) {
	e, _ := env(t)
	path := filepath.Join(e.Dir, "home", ".config", "opencode", "opencode.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	const plain = `{"provider":{"gw":{"npm":"@ai-sdk/openai-compatible","options":{"apiKey":"sk-gw-demo-full","baseURL":"http://127.0.0.1:18080/v1"},"models":{"vendor-a/model-a-haiku-4.5":{}}}}}`
	if err := os.WriteFile(path, []byte(plain), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(t, e, AgentOptions{Mode: ModeDirect, Models: []string{"all"}, Yes: true}); err != nil {
		t.Fatal(err)
	}
	bak := path + agentfile.BackupSuffix
	if readFile(t, bak) != plain {
		t.Fatal("the backup does not hold the previous config")
	}
	if fi, err := os.Stat(bak); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("backup mode = %v (%v), want 0600: it holds the key in plain text", fi.Mode().Perm(), err)
	}
	compare(t, "stderr", scrub(e, e.ErrOut.String()),
		`warning: $DIR/home/.config/opencode/opencode.json.bak holds the previous config, with the API key of provider "gw" in plain text (readable only by you); once OpenCode works with the new config, delete it: rm $DIR/home/.config/opencode/opencode.json.bak
`)

	// A later change that removes no plain key says nothing about the backup.
	if err := run(t, e, AgentOptions{Mode: ModeDirect, Models: []string{"vendor-a/model-a-haiku-4.5"}, Yes: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.ErrOut.String(), "plain text") {
		t.Fatalf("stderr warns about a key that is not there:\n%s", e.ErrOut.String())
	}
}

// gw writes opencode.jsonc where both files exist, which OpenCode applies
// last; should it ever be handed opencode.json with an opencode.jsonc beside
// it that configures gw, writing would change nothing OpenCode uses: refused.
func TestCheckCompanion_RefusesWhenTheOtherFileWins(t *testing.T) {
	dir := t.TempDir()
	jsonc := filepath.Join(dir, "opencode.jsonc")
	if err := os.WriteFile(jsonc, []byte("{\n  // old\n  \"provider\": {\"gw\": {}}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	note, err := checkCompanion(mustWriter(t, "opencode"), filepath.Join(dir, "opencode.json"))
	if err == nil {
		t.Fatalf("checkCompanion = %q, nil; want an error", note)
	}
	for _, want := range []string{jsonc + ` also sets provider "gw"`, "so what opencode.jsonc sets overrides " + filepath.Join(dir, "opencode.json"), `remove the "gw" provider`, "merge the two files", "nothing was changed"} {
		if !strings.Contains(cmdutil.ErrorWithFix(err), want) {
			t.Errorf("error %q does not contain %q", cmdutil.ErrorWithFix(err), want)
		}
	}

	// The other file without gw: only a note, whichever wins.
	if err := os.WriteFile(jsonc, []byte(`{"theme": "light"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	note, err = checkCompanion(mustWriter(t, "opencode"), filepath.Join(dir, "opencode.json"))
	if err != nil || !strings.HasPrefix(note, "note: OpenCode also reads "+jsonc) || !strings.Contains(note, "opencode.jsonc wins") {
		t.Errorf("checkCompanion = %q, %v; want a note that %s is read too and wins", note, err, jsonc)
	}
}

// An other file that does not parse cannot be checked for gw: a warning
// naming where, and the write goes ahead.
func TestCheckCompanion_OtherDoesNotParse(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), []byte("{\n  \"theme\": \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	note, err := checkCompanion(mustWriter(t, "opencode"), filepath.Join(dir, "opencode.jsonc"))
	if err != nil || !strings.HasPrefix(note, "warning: OpenCode also reads "+filepath.Join(dir, "opencode.json")+", which does not parse (3:") {
		t.Errorf("checkCompanion = %q, %v; want a warning with line:column", note, err)
	}
}

// What gw's config gains (a new token, --port) is saved in one update after OpenCode's config was written:
// when another run saved a different token while this one asked, neither is saved, and the error says
// what to run.
func TestAgentRun_TokenSavedMeanwhileSavesNothingOfGwConfig(t *testing.T) {
	e, path := env(t)
	ios := e.Factory.IOStreams
	for _, f := range []func(bool){ios.SetStdinTTY, ios.SetStdoutTTY, ios.SetStderrTTY} {
		f(true)
	}
	gwConfig := filepath.Join(e.Dir, "home", ".config", "gw", "config.json")
	if err := os.MkdirAll(filepath.Dir(gwConfig), 0o700); err != nil {
		t.Fatal(err)
	}
	other := `{"local_token": "gw-local-00000000000000000000000000000000"}`
	ios.In = &editWhileAsked{t: t, path: gwConfig, edit: other}
	err := run(t, e, AgentOptions{Models: []string{"vendor-a/model-a-haiku-4.5"}, Port: 18999})
	if err == nil {
		t.Fatal("want an error")
	}
	compare(t, "error", scrub(e, cmdutil.ErrorWithFix(err)), "$DIR/home/.config/opencode/opencode.jsonc was written, but gw serve's local token and port were not saved: another gw run set a different token meanwhile\nrun gw init agent --agent opencode --port 18999 again")
	if data, _ := os.ReadFile(gwConfig); string(data) != other {
		t.Errorf("gw's config changed:\n%s", data)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("OpenCode's config was not written: %v", err)
	}
}

// Claude Code's status line goes into the user's own settings only: a
// project's settings.local.json would override a status line the user has
// in theirs.
func TestAgentRun_StatusLineInTheUsersSettingsOnly(t *testing.T) {
	for _, project := range []bool{false, true} {
		e, _ := env(t)
		if err := run(t, e, AgentOptions{Agent: "claude-code", Project: project, Models: []string{"vendor-a/model-a-haiku-4.5"}}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(e.Vars["HOME"], ".claude", "settings.json")
		if project {
			path = filepath.Join(e.Dir, ".claude", "settings.local.json")
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"statusLine": {"type": "command", "command": "gw statusline"}`); got == project {
			t.Errorf("project %v: status line written %v:\n%s", project, got, b)
		}
	}
}

// On a terminal, a run for an agent that finds gw serve only while it runs ends with what keeps gw serve
// running here: gw service install where the platform can start it at login, the line that starts it
// where it cannot, nothing to start where gw's login service runs it. The service manager is a stand-in
// (the real one is gw service's, tested with systemd itself): only its answer matters here.
func TestAgentRun_OnATerminalEndsWithWhatKeepsGwServeRunning_StandInServiceManager(t *testing.T) {
	noSystemd := fmt.Errorf("%w: systemd is not this system's service manager (there is no systemctl)", autostart.ErrNotReady)
	for _, c := range []struct {
		name string
		ls   cmdutil.LoginService
		want string
	}{
		{"a service manager", cmdutil.LoginService{},
			"Next: run gw service install: it starts gw serve now and at every login, so OpenCode finds it whenever you start it (or keep gw serve running in a terminal of its own)\n"},
		{"none", cmdutil.LoginService{NotReady: noSystemd},
			"Next: start gw serve and leave it running: nohup gw serve >/dev/null 2>&1 &\n(cannot start gw serve at login here: systemd is not this system's service manager (there is no systemctl))\n"},
		{"installed and running", cmdutil.LoginService{Installed: true, Running: true},
			"Next: start OpenCode: gw serve runs already, started at login by gw service\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, _ := env(t)
			e.IO.SetStdoutTTY(true)
			err := run(t, e, AgentOptions{Models: []string{"all"}, Yes: true,
				LoginService: func(context.Context) cmdutil.LoginService { return c.ls }})
			if err != nil {
				t.Fatal(err)
			}
			if out := e.Out.String(); !strings.HasSuffix(out, "\n"+c.want) || strings.Contains(out, "Next: run gw serve") {
				t.Errorf("stdout:\n%s\nwant it to end with:\n%s", out, c.want)
			}
		})
	}
}

// Enter in the default model's picker takes what a careful user picks, not the first model listed (the
// most expensive): a Sonnet; the small model is then the cheapest, fastest one chosen, not the default.
func TestAgentRun_PickerOffersABalancedDefaultAndACheapSmallModel_FakePicker(t *testing.T) {
	e, path := env(t)
	e.Vars["GW_API_KEY"] = standin.DemoKeyFull
	ios := e.Factory.IOStreams
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	pick := func(_ *tui.IOStreams, o tui.PickOptions) ([]string, error) {
		var ids []string
		for _, it := range o.Items {
			if o.Multi && it.Selected || !o.Multi && it.Selected {
				ids = append(ids, it.ID) // enter: what is offered
			}
		}
		return ids, nil
	}
	e.In.WriteString("y\n")
	if err := run(t, e, AgentOptions{Pick: pick}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"model": "gw/vendor-a/model-a-sonnet-4.6"`) || !strings.Contains(string(data), `"small_model": "gw/vendor-a/model-a-haiku-4.5"`) {
		t.Errorf("enter, enter wrote:\n%s", data)
	}
}

// Claude Code takes one model a tier: its model picker preselects those it takes of the subscription (3 of
// 8), and its title says so, instead of preselecting 8 of which 5 would vanish.
func TestAgentRun_ClaudeCodePickerPreselectsWhatItTakes_FakePicker(t *testing.T) {
	e, _ := env(t)
	e.Vars["GW_API_KEY"] = standin.DemoKeyFull
	ios := e.Factory.IOStreams
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	var title string
	var selected []string
	pick := func(_ *tui.IOStreams, o tui.PickOptions) ([]string, error) {
		var ids []string
		for _, it := range o.Items {
			if it.Selected {
				ids = append(ids, it.ID)
			}
		}
		if o.Multi {
			title, selected = o.Title, ids
		}
		return ids, nil
	}
	e.In.WriteString("y\n")
	if err := run(t, e, AgentOptions{Agent: "claude-code", Pick: pick}); err != nil {
		t.Fatal(err)
	}
	if title != "Models to add to Claude Code, which takes 3 of your 8 (those selected; tab toggles, enter confirms)" ||
		!slices.Equal(selected, []string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-sonnet-4.6", "vendor-a/model-a-haiku-4.5"}) {
		t.Errorf("picker %q preselected %v", title, selected)
	}
	if strings.Contains(e.Out.String(), "not written") {
		t.Errorf("what was chosen was not all written:\n%s", e.Out)
	}
}
