package all

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
	"github.com/modelgateway/gw/reqlog"
)

func TestNames(t *testing.T) {
	want := []string{"opencode", "claude-code", "codex", "qwen-code", "continue", "cline", "kilo", "crush",
		"pi",
		"droid",
		"copilot",
		"gemini",
	}
	if got := Names(All()); !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
	if _, ok := Lookup("cursor"); ok {
		t.Error("cursor is not configured by gw")
	}
}

func home(m map[string]string) agents.Place {
	return agents.Place{Getenv: func(k string) string { return m[k] }, WorkDir: "/src/project"}
}

// Every agent: a new config written for gw serve reads back as pointing at
// it with the local token and every model; merging again changes nothing;
// direct mode is refused with the reason (by the merge and gw run's route) or
// writes a reference to the key's variable, never a token; gw run keeps the
// token out of the arguments.
func TestEveryAgent(t *testing.T) {
	for _, ag := range All() {
		info := ag.Info()
		t.Run(info.Name, func(t *testing.T) {
			if info.Display == "" || info.Binary == "" || info.Version == "" || info.Install == "" || info.Entry == "" {
				t.Errorf("incomplete description: %+v", info)
			}
			a, ok := ag.(agents.ConfigWriter)
			if !ok {
				runOnly(t, ag)
				return
			}
			if info.NoConfig != "" {
				t.Errorf("a ConfigWriter says why it is none: %q", info.NoConfig)
			}
			files, err := a.Files(agents.Global, home(map[string]string{"HOME": "/home/u"}))
			if err != nil || len(files) == 0 {
				t.Fatalf("files %q: %v", files, err)
			}
			for _, f := range files {
				if !strings.HasPrefix(f, "/home/u/") {
					t.Errorf("global file %s is not under HOME", f)
				}
			}
			d := agentstest.Decl()
			srcs := make([][]byte, len(files))
			rs, err := a.Merge(srcs, d)
			if err != nil || len(rs) != len(files) {
				t.Fatalf("merge: %v", err)
			}
			out := make([][]byte, len(rs))
			for i, r := range rs {
				out[i] = r.Data
			}
			in, err := a.Inspect(out)
			if err != nil {
				t.Fatal(err)
			}
			base := d.BaseURL
			if info.Protocol == agents.AnthropicMessages || info.Protocol == agents.GeminiAPI {
				base = d.Origin()
			}
			if !in.Configured || in.BaseURL != base || in.KeyKind != agents.KeyLocalToken || in.LocalToken != d.Token {
				t.Errorf("read back %+v", in)
			}
			if len(in.Models) == 0 {
				t.Error("no models read back")
			}
			for _, id := range in.Models {
				if _, ok := d.Model(id); !ok {
					t.Errorf("read back model %q that was not declared", id)
				}
			}
			again, err := a.Merge(out, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range again {
				if r.Changed {
					t.Errorf("a second merge changed the file:\n%s", r.Data)
				}
			}

			dd := agentstest.DirectDecl()
			rs, err = a.Merge(make([][]byte, len(files)), dd)
			refuser, refuses := ag.(agents.DirectRefuser)
			switch {
			case refuses:
				if !errors.Is(err, agents.ErrDirectRefused) || refuser.DirectRefusal() == "" || !strings.Contains(err.Error(), refuser.DirectRefusal()) {
					t.Errorf("direct mode: %v", err)
				}
			case err != nil:
				t.Errorf("direct mode: %v", err)
			default:
				out := make([][]byte, len(rs))
				for i, r := range rs {
					out[i] = r.Data
					if strings.Contains(string(r.Data), "gw-local-") {
						t.Errorf("direct mode wrote a local token:\n%s", r.Data)
					}
				}
				in, err := a.Inspect(out)
				if err != nil || in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || in.BaseURL != dd.BaseURL {
					t.Errorf("direct mode read back %+v %v", in, err)
				}
			}

			r, ok := ag.(agents.Runner)
			if !ok {
				// Why, in the agent's terms; what to do (gw init agent) is the command's remedy, in render's words.
				if info.NoRun == "" || strings.Contains(info.NoRun, "gw init") || strings.Contains(info.NoRun, "gw run") {
					t.Errorf("no run route, and NoRun does not say why, or names a gw command: %q", info.NoRun)
				}
				return
			}
			if info.NoRun != "" {
				t.Errorf("a Runner says why it is none: %q", info.NoRun)
			}
			checkRun(t, r, d)
		})
	}
}

// runOnly: an agent gw only runs says why it writes no config (gw init agent's remedy names gw run), and
// is a Runner.
func runOnly(t *testing.T, a agents.Agent) {
	r, ok := a.(agents.Runner)
	if why := a.Info().NoConfig; !ok || why == "" || strings.Contains(why, "gw run") {
		t.Fatalf("NoConfig does not say why, or names a gw command, or gw cannot run it either: %q", why)
	}
	checkRun(t, r, agentstest.Decl())
}

func checkRun(t *testing.T, a agents.Runner, d agents.Declaration) {
	t.Helper()
	if dr, ok := a.(agents.DirectRefuser); ok {
		why := dr.DirectRefusal()
		if _, err := a.Run(agentstest.DirectDecl()); !errors.Is(err, agents.ErrDirectRefused) || !strings.Contains(err.Error(), why) {
			t.Errorf("gw run in direct mode: %v, want it refused for its reason", err)
		}
	}
	spec, err := a.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range spec.Files {
		if strings.Contains(string(data), d.Token) {
			t.Errorf("the token is in the run file %s", name)
		}
	}
	for _, arg := range spec.Args {
		if strings.Contains(arg, d.Token) {
			t.Errorf("the token is in an argument: %q", arg)
		}
	}
	if !strings.Contains(strings.Join(spec.Env, "\n"), d.Token) {
		t.Errorf("the token is not in the environment: %q", spec.Env)
	}
	for _, e := range spec.Env {
		if !strings.Contains(e, "=") {
			t.Errorf("env entry %q is not KEY=VALUE", e)
		}
	}
}

// Project scope: a path under the working directory, or an error that says
// why the agent has none.
func TestProjectScope(t *testing.T) {
	for _, ag := range Configurable() {
		a, name := ag.(agents.ConfigWriter), ag.Info().Name
		files, err := a.Files(agents.Project, home(map[string]string{"HOME": "/home/u"}))
		if err != nil {
			if !strings.Contains(err.Error(), "project") && !strings.Contains(err.Error(), "--project") {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		for _, f := range files {
			if !strings.HasPrefix(f, "/src/project/") {
				t.Errorf("%s: project file %s is not in the project", name, f)
			}
		}
	}
}

// gw doctor --agent-config tells whose file it is given by its name: no two agents claim a name, and a file
// is found by its name wherever it lies.
func TestForFile(t *testing.T) {
	owner := map[string]string{}
	for _, ag := range All() {
		a := ag.Info()
		for _, n := range a.FileNames {
			if o, ok := owner[n]; ok {
				t.Errorf("%s and %s both claim %s", o, a.Name, n)
			}
			owner[n] = a.Name
		}
	}
	for path, want := range map[string]string{
		"/home/u/.config/opencode/opencode.jsonc": "opencode",
		"opencode.json":                 "opencode",
		"/src/project/.kilo/kilo.jsonc": "kilo",
		"kilo.json":                     "kilo",
	} {
		if a, ok := ForFile(path); !ok || a.Info().Name != want {
			t.Errorf("ForFile(%s) = %v, %v; want %s", path, a, ok, want)
		}
	}
	if a, ok := ForFile("/home/u/notes.json"); ok {
		t.Errorf("ForFile(notes.json) = %s; no agent reads it", a.Info().Name)
	}
	if got := FileNames(); !slices.Equal(got, []string{"opencode.jsonc", "opencode.json", "kilo.jsonc", "kilo.json"}) {
		t.Errorf("FileNames = %q", got)
	}
}

// gw serve's request log names the agent behind a request from its User-Agent, as each agent's own
// package lists its products: the headers here are what the agents send.
func TestUserAgentIndex(t *testing.T) {
	agentOf := UserAgentIndex()
	for ua, want := range map[string]string{
		"claude-cli/2.1.330 (external, cli)":                           "claude-code",
		"codex_cli_rs/0.46.0 (Ubuntu 24.4.0; x86_64) xterm-256color":   "codex",
		"codex_exec/0.46.0 (Mac OS 15.0.0; arm64) dumb":                "codex",
		"opencode/1.18.2 ai-sdk/provider-utils/3.0.10 runtime/bun/1.3": "opencode",
		"GeminiCLI/0.9.0 (linux; x64)":                                 "gemini",
		"QwenCode/0.1.0 (linux; x64)":                                  "qwen-code",
		"OpenAI/JS 5.20.0":                                             "",
		"curl/8.5.0":                                                   "",
		"":                                                             "",
	} {
		if got := agentOf(reqlog.Product(ua)); got != want {
			t.Errorf("the agent of %q is %q, want %q", ua, got, want)
		}
	}
	seen := map[string]string{}
	for _, ag := range All() {
		a := ag.Info()
		for _, p := range a.UserAgents {
			if p != strings.ToLower(p) || strings.ContainsAny(p, "/ ") {
				t.Errorf("%s: %q is not a User-Agent product as reqlog.Product gives it", a.Name, p)
			}
			if other, dup := seen[p]; dup {
				t.Errorf("%q is both %s's and %s's", p, other, a.Name)
			}
			seen[p] = a.Name
		}
		if len(a.UserAgents) == 0 {
			t.Errorf("%s lists no User-Agent product: gw logs cannot name it", a.Name)
		}
	}
}
