package gemini

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

func TestMergeSettingsCorpus(t *testing.T) {
	agentstest.Corpus(t, MergeSettings, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, "/security", "/model")
		in, err := InspectSettings(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		if d := agentstest.Decl(); !in.Configured || in.Default != d.Default {
			t.Errorf("read back %+v", in)
		}
	})
}

func TestMergeEnvCorpus(t *testing.T) {
	agentstest.CorpusIn(t, "env", MergeEnv, nil, func(t *testing.T, src []byte, res agents.Result) {
		vars := readEnv(res.Data)
		d := agentstest.Decl()
		if vars[EnvBaseURL] != d.Origin() || vars[EnvAPIKey] != d.Token {
			t.Errorf("read back %q", vars)
		}
		// Every line that sets none of gw's variables is kept, in order.
		var kept, had []string
		for _, l := range strings.SplitAfter(string(src), "\n") {
			if k, _ := envKey(l); k != EnvBaseURL && k != EnvAPIKey && l != "" {
				had = append(had, strings.TrimRight(l, "\r\n"))
			}
		}
		for _, l := range strings.SplitAfter(string(res.Data), "\n") {
			if k, _ := envKey(l); k != EnvBaseURL && k != EnvAPIKey && l != "" {
				kept = append(kept, strings.TrimRight(l, "\r\n"))
			}
		}
		if strings.Join(kept, "\n") != strings.Join(had, "\n") {
			t.Errorf("other lines not kept:\n%q\n---\n%q", had, kept)
		}
	})
}

// The user's other settings (and comments) stay; a Google login is replaced
// by the API key route, which is what makes GOOGLE_GEMINI_BASE_URL count.
func TestMergeSettingsReplacesLogin(t *testing.T) {
	src := []byte("{\n  // mine\n  \"security\": { \"auth\": { \"selectedType\": \"oauth-personal\" }, \"folderTrust\": { \"enabled\": true } }\n}\n")
	res, err := agentstest.MergeOnce(t, MergeSettings, src, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	s := string(res.Data)
	if !strings.Contains(s, "// mine") || !strings.Contains(s, `"folderTrust": { "enabled": true }`) || !strings.Contains(s, `"selectedType": "gemini-api-key"`) {
		t.Errorf("got\n%s", s)
	}
	before, _ := InspectSettings(src)
	if before.Configured || len(before.Notes) == 0 || !strings.Contains(before.Notes[0], "oauth-personal") {
		t.Errorf("a Google login read as %+v", before)
	}
}

// gw run: the environment, the base URL without /v1 (@google/genai adds
// /v1beta itself), the token in GEMINI_API_KEY and in no argument; Home
// for the sign-in.
func TestRunEnvironment(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Args) != 0 {
		t.Errorf("args %q", spec.Args)
	}
	env := strings.Join(spec.Env, "\n")
	for _, w := range []string{"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787\n", "GEMINI_API_KEY=" + d.Token + "\n", "GEMINI_MODEL=" + d.Default + "\n",
		"GEMINI_DEFAULT_AUTH_TYPE=gemini-api-key"} {
		if !strings.Contains(env, w) {
			t.Errorf("env lacks %q: %q", w, spec.Env)
		}
	}
	if spec.Prepare == nil || len(spec.Files) != 0 {
		t.Errorf("spec %+v: want Home to prepare the run", spec)
	}
}

// homeMachine is a user's home (with files by path under it) and a project in it, and the environment
// gw run sees there; Gemini CLI's system settings are a file of the test's (none unless written).
func homeMachine(t *testing.T, files map[string]string) (home string, e agents.Place, vars map[string]string) {
	t.Helper()
	root := t.TempDir()
	home = filepath.Join(root, "home")
	vars = map[string]string{"HOME": home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(root, "etc", "settings.json")}
	files["project/notes.txt"] = "notes\n"
	for name, content := range files {
		p := filepath.Join(home, name)
		if strings.HasPrefix(name, "/etc/") {
			p = filepath.Join(root, name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, agents.Place{Getenv: func(k string) string { return vars[k] }, WorkDir: filepath.Join(home, "project")}, vars
}

// snapshot is every file under dir with its content (links as their target).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[p] = "-> " + target
			return err
		case d.IsDir():
			out[p+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			out[p] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// prepared is gw run's spec for `gemini -p …` on a terminal, and the run's directory.
func prepared(t *testing.T, e agents.Place) (spec agents.RunSpec, dir string) {
	t.Helper()
	return preparedFor(t, e, true, "-p", "fix it")
}

func preparedFor(t *testing.T, e agents.Place, terminal bool, args ...string) (spec agents.RunSpec, dir string) {
	t.Helper()
	spec, err := agent{}.Run(agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	spec, err = spec.Prepare(spec, agents.RunPlace{Dir: dir, User: e, Args: args, Terminal: terminal})
	if err != nil {
		t.Fatal(err)
	}
	return spec, dir
}

// Interactively, Gemini CLI keeps its own home (its auth dialog asks once, and it saves the choice
// itself); a task, no terminal or CI gives it the run's home.
func TestHomeOnlyWithoutItsInteractiveInterface(t *testing.T) {
	cases := []struct {
		args     []string
		terminal bool
		ci       bool
		want     bool
	}{
		{nil, true, false, false},
		{nil, false, false, true},
		{nil, true, true, true},
		{[]string{"-m", "x", "--yolo"}, true, false, false},
		{[]string{"-p", "fix it"}, true, false, true},
		{[]string{"--prompt=fix it"}, true, false, true},
		{[]string{"--yolo", "fix it"}, true, false, true}, // a query
		{[]string{"-m", "fix"}, true, false, false},       // a model, not a query
		{[]string{"-r", "latest"}, true, false, false},
		{[]string{"-i", "fix it"}, false, false, false},
		{[]string{"extensions", "list"}, false, false, false},
		{[]string{"--", "fix it"}, true, false, true},
	}
	for _, c := range cases {
		env := map[string]string{}
		if c.ci {
			env["CI"] = "true"
		}
		if got := headless(c.args, c.terminal, func(k string) string { return env[k] }); got != c.want {
			t.Errorf("gemini %q (terminal %v, CI %v): headless %v, want %v", c.args, c.terminal, c.ci, got, c.want)
		}
	}
	_, e, _ := homeMachine(t, map[string]string{})
	spec, dir := preparedFor(t, e, true)
	want, _ := agent{}.Run(agentstest.Decl())
	if entries, _ := os.ReadDir(dir); !slices.Equal(spec.Env, want.Env) || len(spec.Notes)+len(spec.Warnings) != 0 || len(entries) != 0 {
		t.Errorf("interactively: env %q, notes %q, warnings %q, the run's directory %v", spec.Env, spec.Notes, spec.Warnings, entries)
	}
}

// A user who never chose a sign-in: Gemini CLI gets a home of its own for the run, with the API key route
// chosen in a copy of the user's settings (their comments and other settings kept) and links to
// everything else of theirs; the user's files are as they were, also once the run's directory is gone.
func TestHomeChoosesTheAPIKeyRouteForTheRun(t *testing.T) {
	userSettings := "{\n  // mine\n  \"ui\": { \"theme\": \"GitHub\" },\n  \"context\": { \"includeDirectories\": [\"~/docs\"] }\n}\n"
	home, e, _ := homeMachine(t, map[string]string{
		".gemini/settings.json": userSettings, ".gemini/GEMINI.md": "remember this\n", ".gemini/tmp/chat.json": "{}",
		".env": "OTHER=1\n", "docs/a.md": "doc\n",
	})
	before := snapshot(t, home)
	spec, dir := prepared(t, e)
	if len(spec.Warnings) != 0 || len(spec.Notes) != 1 || !strings.Contains(spec.Notes[0], "gw init agent --agent gemini") {
		t.Errorf("warnings %q, notes %q", spec.Warnings, spec.Notes)
	}
	if !slices.Contains(spec.Env, "GEMINI_CLI_HOME="+dir) {
		t.Errorf("env %q: no GEMINI_CLI_HOME for the run", spec.Env)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if typ, _ := selectedType(b); typ != AuthType || !strings.Contains(string(b), "// mine") || !strings.Contains(string(b), `"theme": "GitHub"`) {
		t.Errorf("the run's settings:\n%s", b)
	}
	for name, want := range map[string]string{".gemini/GEMINI.md": "remember this\n", ".gemini/tmp/chat.json": "{}", ".env": "OTHER=1\n", "docs/a.md": "doc\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s in the run's home holds %q (%v), want the user's %q", name, got, err, want)
		}
	}
	if after := snapshot(t, home); !maps.Equal(before, after) {
		t.Errorf("the user's files changed:\n%v\n%v", before, after)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, home); !maps.Equal(before, after) {
		t.Errorf("removing the run's directory changed the user's files:\n%v\n%v", before, after)
	}
}

// A clean home: the run's settings choose the API key route, and nothing is written under HOME.
func TestHomeOnACleanHome(t *testing.T) {
	home, e, _ := homeMachine(t, map[string]string{})
	before := snapshot(t, home)
	spec, dir := prepared(t, e)
	b, err := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if typ, _ := selectedType(b); err != nil || typ != AuthType || !slices.Contains(spec.Env, "GEMINI_CLI_HOME="+dir) {
		t.Errorf("the run's settings %q (%v), env %q", b, err, spec.Env)
	}
	if after := snapshot(t, home); !maps.Equal(before, after) {
		t.Errorf("HOME changed:\n%v\n%v", before, after)
	}
}

// GEMINI_CLI_HOME set by the user: that is the home whose settings are copied.
func TestHomeFollowsGeminiCLIHome(t *testing.T) {
	_, e, vars := homeMachine(t, map[string]string{"elsewhere/.gemini/settings.json": `{"ui":{"theme":"X"}}`})
	vars["GEMINI_CLI_HOME"] = filepath.Join(vars["HOME"], "elsewhere")
	spec, dir := prepared(t, e)
	b, _ := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if typ, _ := selectedType(b); typ != AuthType || !strings.Contains(string(b), `"theme":"X"`) || !slices.Contains(spec.Env, "GEMINI_CLI_HOME="+dir) {
		t.Errorf("the run's settings %s, env %q", b, spec.Env)
	}
}

// A sign-in already chosen: the API key route needs nothing more; another one wins (over gw run's
// environment), which gw run says, naming the file; so does the system settings', which win over the
// user's; a settings file that does not parse is Gemini CLI's to report. Gemini CLI keeps its own home.
func TestHomeWhenASignInIsChosen(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		warning string
	}{
		{"UserAPIKey", map[string]string{".gemini/settings.json": `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`}, ""},
		{"ProjectAPIKey", map[string]string{"project/.gemini/settings.json": `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`}, ""},
		{"UserGoogleLogin", map[string]string{".gemini/settings.json": `{"security":{"auth":{"selectedType":"oauth-personal"}}}`},
			`security.auth.selectedType is "oauth-personal" in HOME/.gemini/settings.json (the user's settings), so Gemini CLI signs in that way and does not use gw serve; set it to "gemini-api-key" there, or remove it`},
		{"ProjectVertex", map[string]string{"project/.gemini/settings.json": `{"security":{"auth":{"selectedType":"vertex-ai"}}}`,
			".gemini/settings.json": `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`}, `"vertex-ai" in HOME/project/.gemini/settings.json (the project's settings)`},
		{"SystemVertex", map[string]string{"/etc/settings.json": `{"security":{"auth":{"selectedType":"vertex-ai"}}}`,
			".gemini/settings.json": `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`}, `(Gemini CLI's system settings, which win over the user's)`},
		{"Unparsable", map[string]string{".gemini/settings.json": `{"security": {`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, e, _ := homeMachine(t, c.files)
			before := snapshot(t, home)
			spec, dir := prepared(t, e)
			want, _ := agent{}.Run(agentstest.Decl())
			if !slices.Equal(spec.Env, want.Env) || len(spec.Notes) != 0 {
				t.Errorf("env %q, notes %q: want Gemini CLI's own home", spec.Env, spec.Notes)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the run's directory holds %v", entries)
			}
			got := strings.ReplaceAll(strings.Join(spec.Warnings, "\n"), home, "HOME")
			if (c.warning == "") != (got == "") || !strings.Contains(got, c.warning) {
				t.Errorf("warnings %q, want %q", got, c.warning)
			}
			if after := snapshot(t, home); !maps.Equal(before, after) {
				t.Errorf("the user's files changed")
			}
		})
	}
}

func TestPaths(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, _ := agent{}.Files(agents.Global, agents.Place{Getenv: env(map[string]string{"HOME": "/h"})})
	if strings.Join(p, " ") != "/h/.gemini/settings.json /h/.gemini/.env" {
		t.Error(p)
	}
	p, _ = agent{}.Files(agents.Global, agents.Place{Getenv: env(map[string]string{"HOME": "/h", "GEMINI_CLI_HOME": "/g"})})
	if strings.Join(p, " ") != "/g/.gemini/settings.json /g/.gemini/.env" {
		t.Error(p)
	}
	p, _ = agent{}.Files(agents.Project, agents.Place{Getenv: env(nil), WorkDir: "/w"})
	if strings.Join(p, " ") != "/w/.gemini/settings.json /w/.gemini/.env" {
		t.Error(p)
	}
}
