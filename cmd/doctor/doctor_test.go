package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/standin"
)

func TestNewCmdDoctor(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		want    DoctorOptions
		wantErr string
	}{
		{name: "no flags", args: nil},
		{name: "json", args: []string{"--json"}, want: DoctorOptions{JSON: true}},
		{name: "repeated models and configs", args: []string{"--model", "vendor-a/model-a-haiku-4.5", "--model", "vendor-b/model-b-3-pro-preview",
			"--agent-config", "a/opencode.json", "--agent-config", "b/opencode.jsonc", "--base-url", "https://staging.example/v1", "--no-probe"},
			want: DoctorOptions{NoProbe: true, Models: []string{"vendor-a/model-a-haiku-4.5", "vendor-b/model-b-3-pro-preview"},
				AgentConfigs: []string{"a/opencode.json", "b/opencode.jsonc"}, BaseURL: "https://staging.example/v1"}},
		{name: "empty model", args: []string{"--model", " "}, wantErr: "--model needs a model id"},
		{name: "empty agent config", args: []string{"--agent-config", ""}, wantErr: "--agent-config needs the path"},
		{name: "a config of another agent", args: []string{"--agent-config", "p/.kilo/kilo.jsonc"},
			want: DoctorOptions{AgentConfigs: []string{"p/.kilo/kilo.jsonc"}}},
		{name: "a file no agent reads", args: []string{"--agent-config", "notes.json"},
			wantErr: "--agent-config: gw does not know whose config notes.json is; it reads a file named opencode.jsonc, opencode.json, kilo.jsonc, kilo.json"},
		{name: "argument", args: []string{"extra"}, wantErr: `unknown command "extra"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := cmdtest.New(t)
			var got *DoctorOptions
			cmd := NewCmdDoctor(env.Factory, func(_ context.Context, o *DoctorOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(env.Out)
			cmd.SetErr(env.ErrOut)
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.JSON != tc.want.JSON || got.NoProbe != tc.want.NoProbe || got.BaseURL != tc.want.BaseURL ||
				!slices.Equal(got.Models, tc.want.Models) || !slices.Equal(got.AgentConfigs, tc.want.AgentConfigs) {
				t.Errorf("options %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func TestNewCmdDoctor_EmptyModelIsUsageError(t *testing.T) {
	env := cmdtest.New(t)
	cmd := NewCmdDoctor(env.Factory, func(context.Context, *DoctorOptions) error { return nil })
	cmd.SetArgs([]string{"--model", ""})
	err := cmd.Execute()
	if cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
		t.Errorf("exit code %d for %v, want usage (2)", cmdutil.ExitCodeFor(err), err)
	}
}

// setup is a machine with the stand-in as the service (GW_BASE_URL), the key in the keychain, and gw
// serve's port pointing at a port nothing listens on.
func setup(t *testing.T, key string) (env *cmdtest.Env, replace func(string) string) {
	t.Helper()
	env = cmdtest.New(t)
	srv := env.StartService(t, standin.Options{})
	if key != "" {
		if err := env.Keyring.Set(cmdutil.Profile, key); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // released: gw serve is "not running" there
	cfgDir := filepath.Join(env.Dir, "home", ".config", "gw")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"port": port, "local_token": "gw-local-0123456789abcdef0123456789abcdef"})
	if err := os.WriteFile(filepath.Join(cfgDir, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	hostport := strings.TrimPrefix(srv.URL, "http://")
	replace = func(s string) string {
		s = strings.ReplaceAll(s, env.Dir, "$DIR")
		s = strings.ReplaceAll(s, hostport, "$SERVICE")
		return strings.ReplaceAll(s, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), "$PROXY")
	}
	return env, replace
}

// optionsOf is o with what gw doctor uses from env: the stand-in's address in the environment, the config
// under env's directory, and the fake keychain behind gw's one key policy.
func optionsOf(env *cmdtest.Env, o DoctorOptions) *DoctorOptions {
	f := env.Factory
	o.IO, o.Getenv, o.WorkDir, o.Config = env.IO, f.Getenv, f.WorkDir, f.Config
	o.Keychain, o.Key, o.KeychainRemedy, o.Version = f.Keychain, f.Key, f.KeychainRemedy, f.Version
	return &o
}

func TestDoctorRun_AllWell(t *testing.T) {
	env, replace := setup(t, standin.DemoKeyPartial)
	opts := optionsOf(env, DoctorOptions{Models: []string{"vendor-a/model-a-haiku-4.5"}})
	if err := doctorRun(context.Background(), opts); err != nil {
		t.Fatalf("doctorRun: %v\n%s", err, env.Out)
	}
	want := `✓ config file: $DIR/home/.config/gw/config.json
✓ base URL: http://$SERVICE/v1 (from GW_BASE_URL)
✓ DNS lookup: 127.0.0.1 is an IP address: nothing to look up
✓ TCP connection: connected to $SERVICE
- TLS handshake: not used: the base URL is plain http
✓ service answers GET /models: GET http://$SERVICE/v1/models answered HTTP 401: the service asks for a key, as it should
✓ API key accepted: the service accepted the key sk-…tial (from fake keychain (tests)); a one-token request to vendor-a/model-a-haiku-4.5 was answered
✓ models available: 3 available: vendor-a/model-a-sonnet-4.5, vendor-a/model-a-haiku-4.5, vendor-b/model-b-3-flash-preview; not in this subscription: vendor-a/model-a-opus-4.6, vendor-a/model-a-opus-4.5-thinking, vendor-a/model-a-sonnet-4.6, vendor-a/model-a-sonnet-4.5-thinking, vendor-b/model-b-3-pro-preview
✓ model vendor-a/model-a-haiku-4.5: listed by the service and answers a one-token request
- coding agent config: no coding agent config found (looked for the configs of OpenCode, Claude Code, Codex, Qwen Code, Continue, Cline, Kilo, Crush, pi, Factory droid, Gemini CLI)
✓ local proxy (gw serve): gw serve is not running on $PROXY; no agent config found here uses it
✓ key storage: sk-…tial in fake keychain (tests)

All checks passed.
`
	if got := replace(env.Out.String()); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if env.ErrOut.Len() != 0 {
		t.Errorf("stderr not empty when piped: %q", env.ErrOut)
	}
}

func TestDoctorRun_WrongKeyAndMisspelledModel(t *testing.T) {
	env, replace := setup(t, "sk-not-a-real-key-0000")
	opts := optionsOf(env, DoctorOptions{Models: []string{"vendor-a/model-a-haiku-4-5"}})
	err := doctorRun(context.Background(), opts)
	if !errors.Is(err, cmdutil.ErrSilent) || cmdutil.ExitCodeFor(err) != cmdutil.ExitError {
		t.Fatalf("doctorRun returned %v, want the silent error (exit 1)", err)
	}
	want := `✓ config file: $DIR/home/.config/gw/config.json
✓ base URL: http://$SERVICE/v1 (from GW_BASE_URL)
✓ DNS lookup: 127.0.0.1 is an IP address: nothing to look up
✓ TCP connection: connected to $SERVICE
- TLS handshake: not used: the base URL is plain http
✓ service answers GET /models: GET http://$SERVICE/v1/models answered HTTP 401: the service asks for a key, as it should
✗ API key accepted: API key invalid or unauthorized
    cause: the service refused the key as invalid (401): "Incorrect API key provided. You can find your API key on the dashboard."
    fix:   create a new key on the dashboard and run: gw auth login (if the key is right, check the balance: some services refuse an empty account the same way)
- models available: the service did not give the model list (see key)
- model vendor-a/model-a-haiku-4-5: the model list is not available (see key)
- coding agent config: no coding agent config found (looked for the configs of OpenCode, Claude Code, Codex, Qwen Code, Continue, Cline, Kilo, Crush, pi, Factory droid, Gemini CLI)
✓ local proxy (gw serve): gw serve is not running on $PROXY; no agent config found here uses it
✓ key storage: sk-…0000 in fake keychain (tests)

1 check failed, 0 warnings.
`
	if got := replace(env.Out.String()); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

func TestDoctorRun_JSON(t *testing.T) {
	env, _ := setup(t, standin.DemoKeyFull)
	env.Vars["GW_BASE_URL"] += "/" // a trailing slash: the seed's "base address differs"
	opts := optionsOf(env, DoctorOptions{JSON: true, Models: []string{"vendor-a/model-a-opus-4.6"}})
	err := doctorRun(context.Background(), opts)
	if !errors.Is(err, cmdutil.ErrSilent) {
		t.Fatalf("doctorRun returned %v, want the silent error", err)
	}
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct {
			ID, Status, Condition, Message, Cause, Fix string
		} `json:"checks"`
	}
	if err := json.Unmarshal(env.Out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, env.Out)
	}
	if rep.OK {
		t.Error("ok is true")
	}
	statuses := map[string]string{}
	for _, c := range rep.Checks {
		statuses[c.ID] = c.Status
		if c.ID == "base_url" {
			if c.Condition != "service unreachable" || c.Message != "unable to connect to API" ||
				!strings.Contains(c.Cause, "trailing slash") || !strings.Contains(c.Fix, "export GW_BASE_URL=") {
				t.Errorf("base_url check: %+v", c)
			}
		}
	}
	for id, want := range map[string]string{"config": "pass", "base_url": "fail", "http": "pass", "key": "pass",
		"models": "pass", "model:vendor-a/model-a-opus-4.6": "pass", "agent_config": "skip", "proxy": "pass", "keychain": "pass"} {
		if statuses[id] != want {
			t.Errorf("%s: status %q, want %q", id, statuses[id], want)
		}
	}
	if strings.Contains(env.Out.String(), standin.DemoKeyFull) {
		t.Error("the JSON report contains the key")
	}
}

// The agent check reads what --agent-config names, each file as the agent its name says; without it, the
// global and the project config of every agent gw configures, OpenCode's among them like any other's.
func TestAgentConfigs(t *testing.T) {
	env := cmdtest.New(t)
	// The agent check reads the environment and the working directory only.
	opts := &DoctorOptions{Getenv: env.Factory.Getenv, WorkDir: env.Factory.WorkDir}
	got := agentConfigs(opts, []string{"a/opencode.json", "b/.kilo/kilo.jsonc"})
	if len(got) != 2 || got[0].Agent.Info().Display != "OpenCode" || got[0].Files[0] != "a/opencode.json" ||
		got[1].Agent.Info().Display != "Kilo" || got[1].Files[0] != "b/.kilo/kilo.jsonc" {
		t.Fatalf("--agent-config: %+v", got)
	}

	got = agentConfigs(opts, nil)
	var files []string
	var displays []string
	for _, af := range got {
		files = append(files, af.Files...)
		if !slices.Contains(displays, af.Agent.Info().Display) {
			displays = append(displays, af.Agent.Info().Display)
		}
	}
	for _, want := range []string{
		filepath.Join(env.Dir, "home", ".config", "opencode", "opencode.jsonc"),
		filepath.Join(env.Dir, "opencode.jsonc"),
		filepath.Join(env.Dir, "home", ".config", "kilo", "kilo.jsonc"),
		filepath.Join(env.Dir, ".kilo", "kilo.jsonc"),
		filepath.Join(env.Dir, "home", ".claude", "settings.json"),
	} {
		if !slices.Contains(files, want) {
			t.Errorf("default: %s not read; files %v", want, files)
		}
	}
	var want []string
	for _, a := range all.Configurable() {
		want = append(want, a.Info().Display)
	}
	if !slices.Equal(displays, want) {
		t.Errorf("default agents %v, want every configurable agent %v", displays, want)
	}
}

// A cloned repository's Claude Code settings naming a model with an OSC 52 clipboard write, a screen clear
// and an 8-bit CSI: gw doctor's report quotes it with its control characters shown, none of them acting.
func TestDoctorRun_HostileModelInAnAgentConfigIsShownEscaped(t *testing.T) {
	env, _ := setup(t, standin.DemoKeyPartial)
	hostile := `vendor-a/m\u001b]52;c;aGk=\u0007\u001b[2J\u009b31m`
	dir := filepath.Join(env.Dir, ".claude")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "ANTHROPIC_AUTH_TOKEN": "gw-local-00112233445566778899aabbccddeeff", "ANTHROPIC_MODEL": "` + hostile + `"}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.local.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := optionsOf(env, DoctorOptions{})
	_ = doctorRun(context.Background(), opts)
	out := env.Out.String()
	if strings.ContainsFunc(out, func(r rune) bool { return (r < ' ' && r != '\n') || (r >= 0x7f && r <= 0x9f) }) {
		t.Errorf("a control character reached the terminal:\n%q", out)
	}
	if !strings.Contains(out, `vendor-a/m\x1b]52;c;aGk=\x07\x1b[2J\u009b31m`) {
		t.Errorf("the model is not shown escaped:\n%s", out)
	}
}
