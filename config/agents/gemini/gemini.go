// Package gemini writes gw into Gemini CLI's configuration. Gemini CLI
// speaks the Gemini API, which gw serve translates onto the service's chat
// completions (protocol/gemini); it reaches gw serve through two settings:
//
//   - settings.json: security.auth.selectedType "gemini-api-key" (the API
//     key route, which reads GOOGLE_GEMINI_BASE_URL) and model.name;
//   - the .env file next to it: GOOGLE_GEMINI_BASE_URL (gw serve's origin,
//     without /v1: @google/genai adds /v1beta) and GEMINI_API_KEY, gw serve's
//     local token (Gemini CLI sends it as x-goog-api-key; it does not check
//     the key's form).
//
// Gemini CLI has no settings.json field for its base URL or key: it reads
// them from the environment, and from the first .env file it finds walking
// up from the working directory (.gemini/.env, then .env, in each
// directory), then ~/.gemini/.env; only in a trusted folder. So a
// project's own .env hides ~/.gemini/.env: there, gw init agent --agent
// gemini --project writes .gemini/.env, which is found first.
//
// Checked against Gemini CLI 0.61.0 (@google/gemini-cli): settings are
// $GEMINI_CLI_HOME/.gemini/settings.json (default ~/.gemini/settings.json)
// and the project's .gemini/settings.json, read with comments stripped
// (strip-json-comments, then JSON.parse). With GOOGLE_GEMINI_BASE_URL set
// and no selectedType, Gemini CLI picks its "gateway" auth type, which its
// non-interactive mode then refuses ("Invalid auth method selected."):
// selectedType is what makes the base URL work. gw init agent writes it; gw
// run, which writes nothing of the user's, gives it for the run (Home).
package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/internal/fsutil"
)

const (
	displayName   = "Gemini CLI"
	testedVersion = "0.61.0"
	homeEnv       = "GEMINI_CLI_HOME"
	dirName       = ".gemini"
	settingsFile  = "settings.json"
	envFile       = ".env"
	// AuthType is Gemini CLI's API key route.
	AuthType = "gemini-api-key"
	// The variables gw owns in the .env file, and sets for gw run.
	EnvBaseURL    = "GOOGLE_GEMINI_BASE_URL"
	EnvAPIKey     = "GEMINI_API_KEY"
	EnvModel      = "GEMINI_MODEL"
	directRefusal = "Gemini CLI speaks the Gemini API and the service speaks chat completions only; gw serve translates between them"
)

// dialect: Gemini CLI strips comments and then uses JSON.parse.
var dialect = jsonc.Dialect{Comments: true, Agent: displayName}

// Agent describes Gemini CLI for gw.
func Agent() agents.Agent { return agent{} }

type agent struct{}

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "gemini", Display: displayName, Binary: "gemini", Version: testedVersion,
		UserAgents: []string{"geminicli", "gemini-cli"},
		Install:    "npm install -g @google/gemini-cli", Entry: `the API key route in settings.json, gw serve's address and token in .env`,
		Protocol: agents.GeminiAPI,
	}
}

func (agent) DirectRefusal() string { return directRefusal }

// Files are settings.json and .env in $GEMINI_CLI_HOME/.gemini (default
// ~/.gemini), or in the project's .gemini.
func (agent) Files(s agents.Scope, e agents.Place) ([]string, error) {
	var dir string
	switch s {
	case agents.Global:
		h := e.Getenv(homeEnv)
		if h == "" {
			var err error
			if h, err = e.Home(); err != nil {
				return nil, err
			}
		}
		dir = filepath.Join(h, dirName)
	case agents.Project:
		if e.WorkDir == "" {
			return nil, fmt.Errorf("no working directory for the project settings")
		}
		dir = filepath.Join(e.WorkDir, dirName)
	default:
		return nil, fmt.Errorf("unknown scope %q", s)
	}
	return []string{filepath.Join(dir, settingsFile), filepath.Join(dir, envFile)}, nil
}

// Merge writes d into settings.json and .env (srcs in Paths' order; nil: a
// new file).
func (agent) Merge(srcs [][]byte, d agents.Declaration) ([]agents.Result, error) {
	if d.Mode == agents.Direct {
		return nil, agents.RefuseDirect(displayName, directRefusal)
	}
	if len(srcs) != 2 {
		return nil, fmt.Errorf("internal error: Gemini CLI has two files, got %d", len(srcs))
	}
	settings, err := MergeSettings(srcs[0], d)
	if err != nil {
		return nil, err
	}
	env, err := MergeEnv(srcs[1], d)
	if err != nil {
		return nil, err
	}
	return []agents.Result{settings, env}, nil
}

// MergeSettings writes the auth type and the default model into
// settings.json.
func MergeSettings(src []byte, d agents.Declaration) (agents.Result, error) {
	before, f, top, err := agents.OpenJSON(src, d, InspectSettings, dialect)
	if err != nil {
		return agents.Result{}, err
	}
	def := d.DefaultModel()
	want := jsonc.Want{Fields: []jsonc.Field{
		{Key: "security", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{
			{Key: "auth", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{{Key: "selectedType", Val: AuthType}}}},
		}}},
		{Key: "model", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{{Key: "name", Val: def.ID}}}},
	}}
	if _, err := f.Apply(top, want); err != nil {
		return agents.Result{}, err
	}
	res := agents.Result{Data: f.Pack(), Created: !before.Configured}
	res.Changed = !bytes.Equal(res.Data, src)
	after, err := InspectSettings(res.Data)
	if err != nil {
		return agents.Result{}, fmt.Errorf("internal error: the merged settings do not parse (%v); nothing was written", err)
	}
	if !after.Configured || after.Default != def.ID {
		return agents.Result{}, fmt.Errorf("internal error: the merged settings do not hold gw's values; nothing was written")
	}
	res.Added, res.Removed = agents.ModelChanges(before, after)
	top2, _ := jsonc.ReadTop(res.Data, dialect)
	auth := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top2, "security")), "auth"))
	if et := jsonc.Str(jsonc.Member(auth, "enforcedType")); et != "" && et != AuthType {
		res.Warnings = append(res.Warnings, fmt.Sprintf("security.auth.enforcedType is %q, and Gemini CLI then refuses gw's %q; remove it", et, AuthType))
	}
	if v := jsonc.Member(auth, "useExternal"); v != nil && bytes.Equal(bytes.TrimSpace(v.Pack()), []byte("true")) {
		res.Warnings = append(res.Warnings, "security.auth.useExternal is true, and Gemini CLI then skips gw's key; remove it")
	}
	return res, nil
}

// InspectSettings reads gw's settings back from settings.json: configured
// when the auth type is the API key's.
func InspectSettings(src []byte) (agents.Inspection, error) {
	top, err := jsonc.ReadTop(src, dialect)
	if err != nil {
		return agents.Inspection{}, err
	}
	auth := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "security")), "auth"))
	in := agents.Inspection{Configured: jsonc.Str(jsonc.Member(auth, "selectedType")) == AuthType}
	in.Default = jsonc.Str(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "model")), "name"))
	if in.Default != "" {
		in.Models = []string{in.Default}
	}
	if t := jsonc.Str(jsonc.Member(auth, "selectedType")); t != "" && t != AuthType {
		in.Notes = append(in.Notes, fmt.Sprintf("security.auth.selectedType is %q, so Gemini CLI does not use gw serve", t))
	}
	return in, nil
}

// Inspect reads both files back for doctor.
func (agent) Inspect(srcs [][]byte) (agents.Inspection, error) {
	if len(srcs) != 2 {
		return agents.Inspection{}, fmt.Errorf("internal error: Gemini CLI has two files, got %d", len(srcs))
	}
	in, err := InspectSettings(srcs[0])
	if err != nil {
		return agents.Inspection{}, err
	}
	vars := readEnv(srcs[1])
	in.BaseURL = vars[EnvBaseURL]
	in.Configured = in.Configured && in.BaseURL != ""
	in.SetKey(vars[EnvAPIKey], nil)
	if in.KeyKind == agents.KeyLiteral {
		in.Notes = append(in.Notes, EnvAPIKey+" in .env holds an API key written into the file")
	}
	return in, nil
}

// MergeEnv writes gw's two variables into the .env file: a line that sets
// one is rewritten in place (an "export " before it kept), every other
// line is kept byte for byte (comments, order, CRLF), and a variable not
// there yet is added at the end.
func MergeEnv(src []byte, d agents.Declaration) (agents.Result, error) {
	if err := d.Validate(); err != nil {
		return agents.Result{}, err
	}
	if bytes.IndexByte(src, 0) >= 0 {
		return agents.Result{}, &agents.ParseError{Line: bytes.Count(src[:bytes.IndexByte(src, 0)], []byte("\n")) + 1, Column: 1,
			Msg: "the .env file holds a NUL byte, so it is not text; fix or remove it"}
	}
	before := readEnv(src)
	want := [][2]string{{EnvBaseURL, d.Origin()}, {EnvAPIKey, d.Token}}
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	lines := strings.SplitAfter(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	done := map[string]bool{}
	var out strings.Builder
	for _, line := range lines {
		key, export := envKey(line)
		v, ours := lookup(want, key)
		if !ours {
			out.WriteString(line)
			continue
		}
		if done[key] {
			continue // a later line setting it again would win: gone
		}
		done[key] = true
		end := ""
		if strings.HasSuffix(line, "\n") {
			end = nl
		}
		out.WriteString(export + key + "=" + v + end)
	}
	for _, w := range want {
		if done[w[0]] {
			continue
		}
		if s := out.String(); s != "" && !strings.HasSuffix(s, "\n") {
			out.WriteString(nl)
		}
		out.WriteString(w[0] + "=" + w[1] + nl)
	}
	data := []byte(out.String())
	res := agents.Result{Data: data, Changed: !bytes.Equal(data, src), Created: before[EnvBaseURL] == ""}
	after := readEnv(data)
	if after[EnvBaseURL] != d.Origin() || after[EnvAPIKey] != d.Token {
		return agents.Result{}, fmt.Errorf("internal error: the merged .env does not hold gw's values; nothing was written")
	}
	if k, _ := agents.ClassifyKey(before[EnvAPIKey], nil); k == agents.KeyLiteral {
		res.Warnings = append(res.Warnings, "replaced "+EnvAPIKey+" in .env: it held an API key in plain text; gw serve's local token is there now")
	}
	return res, nil
}

func lookup(want [][2]string, key string) (string, bool) {
	for _, w := range want {
		if w[0] == key {
			return w[1], true
		}
	}
	return "", false
}

// envKey is the variable a .env line sets ("" for a comment or a blank
// line), and its "export " prefix with the indentation before it.
func envKey(line string) (key, prefix string) {
	t := strings.TrimLeft(line, " \t\ufeff")
	lead := line[:len(line)-len(t)]
	if rest, ok := strings.CutPrefix(t, "export "); ok {
		lead += "export "
		t = strings.TrimLeft(rest, " \t")
	}
	if t == "" || t[0] == '#' {
		return "", ""
	}
	k, _, ok := strings.Cut(t, "=")
	if !ok {
		return "", ""
	}
	return strings.TrimSpace(k), lead
}

// readEnv reads the variables of a .env file, as dotenv does: the last
// line setting a variable wins, quotes around a value are taken off, an
// unquoted value ends at " #".
func readEnv(src []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(src), "\n") {
		key, _ := envKey(line)
		if key == "" {
			continue
		}
		_, v, _ := strings.Cut(line, "=")
		v = strings.TrimSpace(strings.TrimSuffix(v, "\r"))
		switch {
		case len(v) >= 2 && (v[0] == '"' || v[0] == '\'' || v[0] == '`') && v[len(v)-1] == v[0]:
			v = v[1 : len(v)-1]
		default:
			if i := strings.Index(v, " #"); i >= 0 {
				v = strings.TrimSpace(v[:i])
			}
		}
		out[key] = v
	}
	return out
}

// Run is gw run's route: GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY (the local
// token) and GEMINI_MODEL in the environment, where they win over .env
// files (Gemini CLI never overrides a variable already set), and Home for
// the sign-in.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) {
	if d.Mode == agents.Direct {
		return agents.RunSpec{}, agents.RefuseDirect(displayName, directRefusal)
	}
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	return agents.RunSpec{Env: []string{
		EnvBaseURL + "=" + d.Origin(),
		EnvAPIKey + "=" + d.Token,
		EnvModel + "=" + d.DefaultModel().ID,
		"GEMINI_DEFAULT_AUTH_TYPE=" + AuthType,
	}, Prepare: Home}, nil
}

// Home chooses the API key route for a run of gw run without a terminal,
// or with a task to do (-p, a query), when the user's settings choose no
// sign-in, without writing them. Gemini CLI's auth type cannot be set in
// its environment: with GOOGLE_GEMINI_BASE_URL and no selectedType it
// picks its "gateway" type, which it refuses without a terminal or with a
// task ("Invalid auth method selected."); and it reads a system settings
// file only when root owns it and every directory above it. What it does
// read from a place of gw run's choosing is its home, $GEMINI_CLI_HOME: so
// Home makes one in the run's private directory, with a copy of the user's
// settings.json (as private as the original, gone with the directory) with
// security.auth.selectedType "gemini-api-key" added, and a link to each
// other entry of the user's .gemini (history, trusted folders, GEMINI.md,
// extensions, commands…) and of the home directory itself (~ in a setting
// still finds the user's files). The user's files are only read; gw run
// removes the directory, and so the links, when Gemini CLI ends (the next
// gw run removes one a killed gw run left): what
// Gemini CLI saves meanwhile into its settings, or into a file of its
// .gemini the user did not have yet, is not kept. The system settings
// still apply, above it.
//
// Interactively Gemini CLI keeps its own home: its auth dialog asks once,
// with the API key route preselected (GEMINI_DEFAULT_AUTH_TYPE), and saves
// the choice itself. When a settings file already chooses a sign-in, it
// keeps it too: the API key route works as it is, and another (a Google
// login, Vertex AI) is the user's or the administrator's choice, which
// wins and is said as a warning, since Gemini CLI then does not use gw
// serve. So does a settings file Home cannot read: Gemini CLI reports it.
func Home(spec agents.RunSpec, p agents.RunPlace) (agents.RunSpec, error) {
	e := p.User
	home := e.Getenv(homeEnv)
	if home == "" {
		var err error
		if home, err = e.Home(); err != nil {
			return spec, err
		}
	}
	userPath := filepath.Join(home, dirName, settingsFile)
	files := []struct{ path, what string }{{systemSettingsPath(e), "Gemini CLI's system settings, which win over the user's"}}
	if e.WorkDir != "" && filepath.Clean(e.WorkDir) != filepath.Clean(home) {
		files = append(files, struct{ path, what string }{filepath.Join(e.WorkDir, dirName, settingsFile), "the project's settings"})
	}
	files = append(files, struct{ path, what string }{userPath, "the user's settings"})
	var user []byte
	for _, f := range files {
		// A cloned repository's file may be a named pipe or a link to /dev/zero: read capped, regular
		// files only, refused at once otherwise.
		src, err := fsutil.ReadRegular(f.path, fsutil.MaxConfigSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			spec.Warnings = append(spec.Warnings, fmt.Sprintf("cannot read %s (%v); without a terminal Gemini CLI needs security.auth.selectedType %q there", f.path, err, AuthType))
			return spec, nil
		}
		t, err := selectedType(src)
		if err != nil {
			return spec, nil // Gemini CLI says what is wrong with the file
		}
		switch {
		case t == AuthType:
			return spec, nil
		case t != "":
			spec.Warnings = append(spec.Warnings, fmt.Sprintf("security.auth.selectedType is %q in %s (%s), so Gemini CLI signs in that way and does not use gw serve; set it to %q there, or remove it", t, f.path, f.what, AuthType))
			return spec, nil
		}
		if f.path == userPath {
			user = src
		}
	}
	if !headless(p.Args, p.Terminal, e.Getenv) {
		return spec, nil
	}
	settings, err := withAuthType(user)
	if err != nil {
		return spec, nil
	}
	if err := mirror(home, p.Dir, dirName); err != nil {
		return withoutHome(spec, err), nil
	}
	if err := mirror(filepath.Join(home, dirName), filepath.Join(p.Dir, dirName), settingsFile); err != nil {
		return withoutHome(spec, err), nil
	}
	if err := fsutil.WriteOwn(filepath.Join(p.Dir, dirName, settingsFile), settings, 0o600); err != nil {
		return spec, err
	}
	spec.Env = append(spec.Env, homeEnv+"="+p.Dir)
	spec.Notes = append(spec.Notes, fmt.Sprintf("Gemini CLI's settings choose no sign-in, so this run gets a home of its own with a copy of them choosing the API key route (gw serve's); "+
		"what it saves meanwhile into its settings or into a new file of its .gemini is not kept (gw init agent --agent gemini chooses the route in %s for good)", userPath))
	return spec, nil
}

// Gemini CLI's options (0.61.0) that take a value, and those that may; its
// subcommands, which need no sign-in.
var (
	valueFlags = []string{"-m", "--model", "--approval-mode", "--policy", "--admin-policy", "--allowed-mcp-server-names",
		"--allowed-tools", "-e", "--extensions", "--session-file", "--session-id", "--include-directories", "-o", "--output-format"}
	optionalValueFlags = []string{"-w", "--worktree", "-r", "--resume", "--delete-session", "--fake-responses",
		"--fake-responses-non-strict", "--record-responses"}
	subcommands = []string{"mcp", "extensions", "extension", "skills", "skill", "hooks", "hook", "gemma"}
)

// headless reports whether Gemini CLI, started with args, runs without its
// interactive interface, as it decides: a task given with -p or as a query,
// no terminal, or CI; -i (a task, then interactive) and a subcommand are
// not.
func headless(args []string, terminal bool, getenv func(string) string) bool {
	task := !terminal
	if getenv("GEMINI_CLI_INTEGRATION_TEST") != "true" && (getenv("CI") == "true" || getenv("GITHUB_ACTIONS") == "true") {
		task = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--":
			return len(args) > i+1 || task
		case name == "-i" || name == "--prompt-interactive":
			return false
		case name == "-p" || name == "--prompt":
			task = true
			if !hasValue {
				i++
			}
		case slices.Contains(valueFlags, name):
			if !hasValue {
				i++
			}
		case slices.Contains(optionalValueFlags, name):
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
		case strings.HasPrefix(a, "-"):
		case slices.Contains(subcommands, a):
			return false
		default:
			task = true // a query
		}
	}
	return task
}

// withoutHome is spec when Home could not make Gemini CLI's home (links not
// allowed): -p then needs the API key route chosen in the user's settings.
func withoutHome(spec agents.RunSpec, err error) agents.RunSpec {
	spec.Warnings = append(spec.Warnings, fmt.Sprintf("could not give Gemini CLI a home of its own for this run (%v); its -p mode then needs security.auth.selectedType %q in its settings, which gw init agent writes", err, AuthType))
	return spec
}

// selectedType is security.auth.selectedType in a settings file ("" for
// none).
func selectedType(src []byte) (string, error) {
	top, err := jsonc.ReadTop(src, dialect)
	if err != nil {
		return "", err
	}
	auth := jsonc.ObjOf(jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "security")), "auth"))
	return jsonc.Str(jsonc.Member(auth, "selectedType")), nil
}

// withAuthType is settings.json src (nil: none) with the API key route
// chosen, everything else kept.
func withAuthType(src []byte) ([]byte, error) {
	f, err := jsonc.Parse(src, dialect)
	if err != nil {
		return nil, err
	}
	top, err := f.Top(displayName)
	if err != nil {
		return nil, err
	}
	want := jsonc.Want{Fields: []jsonc.Field{
		{Key: "security", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{
			{Key: "auth", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{{Key: "selectedType", Val: AuthType}}}},
		}}},
	}}
	if _, err := f.Apply(top, want); err != nil {
		return nil, err
	}
	return f.Pack(), nil
}

// mirror links every entry of directory from, but skip, into directory to
// (made when missing, only the user can read it). A missing from is empty.
func mirror(from, to, skip string) error {
	if _, err := fsutil.MkdirAll(to, 0o700); err != nil {
		return err
	}
	names, err := fsutil.ReadDirNames(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range names {
		if name == skip {
			continue
		}
		if err := fsutil.Symlink(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
			return err
		}
	}
	return nil
}

// systemSettingsPath is where Gemini CLI reads its system settings:
// $GEMINI_CLI_SYSTEM_SETTINGS_PATH, else the system's place for them.
func systemSettingsPath(e agents.Place) string {
	if p := e.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/settings.json"
	case "windows":
		return `C:\ProgramData\gemini-cli\settings.json`
	}
	return "/etc/gemini-cli/settings.json"
}
