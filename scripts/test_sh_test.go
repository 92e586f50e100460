package scripts_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The tests of scripts/test.sh and scripts/canary.sh run them in a copy of the repository's scripts/ with
// every tool that installs or tests replaced by a fake that logs how it was called (npm, apt-get, sudo, go,
// gofmt, git, actionlint, the keyring tools, tmux, systemd-analyze): they reach no registry and install nothing, and
// assert on what the scripts would have run. Only basic shell tools (bash, awk, sed, …) are the real ones.

// shTools are the real tools the scripts use, linked into the fake PATH.
var shTools = []string{"bash", "sh", "awk", "sed", "grep", "mktemp", "tee", "id", "dirname", "basename", "head",
	"tail", "cat", "rm", "mkdir", "cp", "env", "date", "printf"}

// faked are the tools replaced by fakes, present unless a test says a tool is missing.
var faked = []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool", "tmux", "systemd-analyze", "gofmt", "go",
	"git", "npm", "apt-get", "sudo", "actionlint"}

// fakeNpm "installs" by writing each package's package.json under --prefix (what the scripts read back to
// know the installed version) and answers npm view PACKAGE version from $FAKE_NEWEST (lines "PACKAGE VERSION").
const fakeNpm = `case "$1" in
install)
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--prefix) prefix=$2; shift 2 ;;
		-*) shift ;;
		*) pkg=${1%@*}; mkdir -p "$prefix/node_modules/$pkg"
			printf '{\n  "name": "%s",\n  "version": "%s",\n}\n' "$pkg" "${1##*@}" >"$prefix/node_modules/$pkg/package.json"
			shift ;;
		esac
	done ;;
view) awk -v p="$2" '$1 == p { print $2 }' "$FAKE_NEWEST" ;;
*) exit 1 ;;
esac`

// fakeActionlint is the version test.sh wants.
const fakeActionlint = `[ "$1" = -version ] && printf 'v1.7.12\ninstalled by building from source\n'; exit 0`

// repo is a copy of the repository's test scripts, in the layout they expect (scripts/ beside .cache/).
type repo struct {
	root, bin, log string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("test.sh is a bash script")
	}
	r := &repo{root: t.TempDir(), bin: t.TempDir()}
	r.log = filepath.Join(r.bin, "calls.log")
	if err := os.Mkdir(filepath.Join(r.root, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"test.sh", "canary.sh"} {
		writeFile(t, filepath.Join(r.root, "scripts", name), string(readFile(t, name)), 0o755)
	}
	workflows, err := filepath.Glob(filepath.Join("..", ".github", "workflows", "*.yml"))
	if err != nil || len(workflows) == 0 {
		t.Fatalf("no workflows in .github/workflows (%v)", err)
	}
	for _, w := range workflows {
		writeFile(t, filepath.Join(r.root, ".github", "workflows", filepath.Base(w)), string(readFile(t, w)), 0o644)
	}
	for _, tool := range shTools {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not installed", tool)
		}
		if err := os.Symlink(p, filepath.Join(r.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	r.fake(t, map[string]string{"npm": fakeNpm, "sudo": `exec "$@"`, "actionlint": fakeActionlint})
	for _, name := range faked {
		if _, err := os.Stat(filepath.Join(r.bin, name)); err != nil {
			r.fake(t, map[string]string{name: "exit 0"})
		}
	}
	return r
}

// fake replaces tools (name → body of a sh script); each logs its arguments first.
func (r *repo) fake(t *testing.T, fakes map[string]string) {
	t.Helper()
	for name, body := range fakes {
		script := fmt.Sprintf("#!/bin/sh\necho \"%s $*\" >>%q\n%s\n", name, r.log, body)
		writeFile(t, filepath.Join(r.bin, name), script, 0o755)
	}
}

// remove takes tools off the fake PATH (as if not installed).
func (r *repo) remove(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := os.Remove(filepath.Join(r.bin, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs scripts/test.sh with args and returns its output and exit code.
func (r *repo) run(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(r.bin, "bash"), append([]string{filepath.Join(r.root, "scripts", "test.sh")}, args...)...)
	cmd.Env = append([]string{"PATH=" + r.bin, "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir(), "LC_ALL=C"}, env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("test.sh: %v\n%s", err, out)
	return "", 0
}

// calls are the fakes' calls so far, "TOOL ARGS…" one a line, and clears the log.
func (r *repo) calls(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(r.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(r.log); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// installs are the npm install, apt-get and go install calls among calls.
func installs(calls []string) []string {
	var got []string
	for _, c := range calls {
		if strings.HasPrefix(c, "npm install ") || strings.HasPrefix(c, "apt-get ") || strings.HasPrefix(c, "go install ") {
			got = append(got, c)
		}
	}
	return got
}

// pin is one npm package test.sh pins: installed into .cache/dir, a CLI's command in .cache/dir/bin.
type pin struct {
	pkg, version, versionVar, dir, bin, cmd string
}

// pins reads test.sh's *_VERSION= lines and its npm_cli and npm_sdk calls, as a reader of the script would.
func pins(t *testing.T) (clis []pin, sdks map[string][]pin) {
	t.Helper()
	src := strings.ReplaceAll(string(readFile(t, "test.sh")), "\\\n\t", "")
	versions := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Z_]+_VERSION)=(\S+)$`).FindAllStringSubmatch(src, -1) {
		versions[m[1]] = m[2]
	}
	for _, m := range regexp.MustCompile(`(?m)^npm_cli (\S+) (\S+) (\S+) "\$([A-Z_]+)"(?: (\S+))?$`).FindAllStringSubmatch(src, -1) {
		bin := m[5]
		if bin == "" {
			bin = "node_modules/.bin"
		}
		clis = append(clis, pin{pkg: m[3], version: versions[m[4]], versionVar: m[4], dir: m[2], bin: bin, cmd: m[1]})
	}
	sdks = map[string][]pin{}
	for _, m := range regexp.MustCompile(`(?m)^npm_sdk (\S+) (.*)$`).FindAllStringSubmatch(src, -1) {
		for _, spec := range regexp.MustCompile(`"([^"]+)@\$([A-Z_]+)"`).FindAllStringSubmatch(m[2], -1) {
			sdks[m[1]] = append(sdks[m[1]], pin{pkg: spec[1], version: versions[spec[2]], versionVar: spec[2], dir: m[1]})
		}
	}
	if len(clis) < 11 || len(sdks) < 4 {
		t.Fatalf("read %d agent CLIs and %d SDK directories from test.sh, want at least 11 and 4: did its npm_cli/npm_sdk lines change shape?", len(clis), len(sdks))
	}
	for _, p := range slices.Concat(clis, slices.Concat(slices.Collect(maps.Values(sdks))...)) {
		if p.version == "" {
			t.Fatalf("test.sh installs %s at $%s, which no *_VERSION= line at its top sets", p.pkg, p.versionVar)
		}
	}
	return clis, sdks
}

// installPins puts every pinned package into root/.cache as test.sh would find it installed.
func (r *repo) installPins(t *testing.T) {
	t.Helper()
	clis, sdks := pins(t)
	for _, p := range slices.Concat(clis, slices.Concat(slices.Collect(maps.Values(sdks))...)) {
		dir := filepath.Join(r.root, ".cache", p.dir, "node_modules", p.pkg)
		writeFile(t, filepath.Join(dir, "package.json"), fmt.Sprintf("{\n  \"name\": %q,\n  \"version\": %q,\n}\n", p.pkg, p.version), 0o644)
		if p.cmd != "" {
			writeFile(t, filepath.Join(r.root, ".cache", p.dir, p.bin, p.cmd), "#!/bin/sh\necho "+p.version+"\n", 0o755)
		}
	}
}

// A failing step does not stop the independent ones after it, and the run ends with a summary of every
// step (the failed tests by package, the skipped release steps and why), exiting non-zero.
func TestTestSh_SummaryAfterFailures(t *testing.T) {
	r := newRepo(t)
	r.installPins(t)
	r.fake(t, map[string]string{
		"gofmt": `echo cmd/x/bad.go`,
		"go": `case "$1" in
vet) echo "cmd/x/x.go:3:2: unreachable code" >&2; exit 1;;
test) printf -- '--- FAIL: TestBroken (0.00s)\n    --- FAIL: TestBroken/sub (0.00s)\nFAIL\nFAIL\tgithub.com/modelgateway/gw/broken\t0.01s\nok  \tgithub.com/modelgateway/gw/fine\t0.01s\n'; exit 1;;
esac`,
	})
	out, code := r.run(t, nil, "--quick")
	if code == 0 {
		t.Errorf("exit 0 after failures; output:\n%s", out)
	}
	_, summary, ok := strings.Cut(out, "==> summary\n")
	if !ok {
		t.Fatalf("no summary at the end; output:\n%s", out)
	}
	want := `  FAIL  gofmt  (exit 1)
          cmd/x/bad.go
  FAIL  go vet  (exit 1)
  FAIL  go vet (GOOS=windows)  (exit 1)
  FAIL  go vet (GOOS=darwin)  (exit 1)
  pass  actionlint .github/workflows
  FAIL  go test -race ./...  (exit 1)
          github.com/modelgateway/gw/broken: TestBroken, TestBroken/sub
  skip  cross-compile of the six release targets  (--quick)
  skip  release check (goreleaser check, snapshot release, install.sh against it)  (--quick)
5 step(s) failed: gofmt, go vet, go vet (GOOS=windows), go vet (GOOS=darwin), go test -race ./...
`
	if summary != want {
		t.Errorf("summary:\n%s\nwant:\n%s", summary, want)
	}
	if got := installs(r.calls(t)); got != nil {
		t.Errorf("with everything in place, test.sh installed:\n%s", strings.Join(got, "\n"))
	}
}

func TestTestSh_SummaryWhenAllPass(t *testing.T) {
	r := newRepo(t)
	r.installPins(t)
	out, code := r.run(t, nil, "--quick")
	if code != 0 {
		t.Errorf("exit %d; output:\n%s", code, out)
	}
	if !strings.HasSuffix(out, "  pass  go test -race ./...\n  skip  cross-compile of the six release targets  (--quick)\n  skip  release check (goreleaser check, snapshot release, install.sh against it)  (--quick)\nall steps passed\n") {
		t.Errorf("output does not end with the summary:\n%s", out)
	}
	calls := r.calls(t)
	if got := installs(calls); got != nil {
		t.Errorf("with everything in place, test.sh installed:\n%s", strings.Join(got, "\n"))
	}
	// The tests, the three vets for the three systems, actionlint on every workflow.
	for _, want := range []string{"go vet ./...", "go test -race -count=1 -timeout 15m ./...",
		"actionlint .github/workflows/canary.yml .github/workflows/ci.yml"} {
		if !slices.Contains(calls, want) {
			t.Errorf("test.sh did not run %q; it ran:\n%s", want, strings.Join(calls, "\n"))
		}
	}
	if n := strings.Count(strings.Join(calls, "\n"), "go vet ./..."); n != 3 {
		t.Errorf("go vet ran %d times, want 3 (this system, GOOS=windows, GOOS=darwin):\n%s", n, strings.Join(calls, "\n"))
	}
}

// On a machine with nothing installed, test.sh installs the missing system tools with apt and every pinned
// npm package at the version its *_VERSION= line says, into the repository's .cache/ and nowhere else; run
// again, it finds them and installs nothing. A package of another version (a pin moved) is installed again.
func TestTestSh_InstallsThePinsIntoCache(t *testing.T) {
	r := newRepo(t)
	r.remove(t, "dbus-daemon", "gnome-keyring-daemon", "secret-tool", "tmux", "systemd-analyze", "actionlint")
	// go install puts actionlint into GOBIN, which is not on PATH: test.sh must find it there.
	gobin, staged := t.TempDir(), filepath.Join(t.TempDir(), "actionlint")
	writeFile(t, staged, "#!/bin/sh\n"+fakeActionlint+"\n", 0o755)
	r.fake(t, map[string]string{"go": fmt.Sprintf(`case "$1" in
env) [ "$2" = GOBIN ] && echo '%s' ;;
install) cp '%s' '%s' ;;
esac`, gobin, staged, gobin)})
	out, code := r.run(t, nil, "--quick")
	if code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, out)
	}
	cache := filepath.Join(r.root, ".cache")
	clis, sdks := pins(t)
	var want []string
	for _, p := range clis {
		want = append(want, fmt.Sprintf("npm install --silent --no-audit --no-fund --prefix %s %s@%s", filepath.Join(cache, p.dir), p.pkg, p.version))
	}
	for dir, ps := range sdks {
		line := "npm install --silent --no-audit --no-fund --prefix " + filepath.Join(cache, dir)
		for _, p := range ps {
			line += " " + p.pkg + "@" + p.version
		}
		want = append(want, line)
	}
	want = append(want, "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12", "apt-get update -qq",
		"apt-get install -y -qq --no-install-recommends dbus gnome-keyring libsecret-tools tmux systemd dbus-x11")
	got := installs(r.calls(t))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("test.sh installed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	r.installPins(t) // the fake npm writes no commands
	r.fake(t, map[string]string{"dbus-daemon": "", "gnome-keyring-daemon": "", "secret-tool": "", "tmux": "", "systemd-analyze": "",
		"actionlint": fakeActionlint})
	if out, code := r.run(t, nil, "--quick"); code != 0 {
		t.Fatalf("second run: exit %d; output:\n%s", code, out)
	}
	if got := installs(r.calls(t)); got != nil {
		t.Errorf("second run installed again:\n%s", strings.Join(got, "\n"))
	}

	moved := clis[1]
	writeFile(t, filepath.Join(cache, moved.dir, "node_modules", moved.pkg, "package.json"), "{\n  \"version\": \"0.0.1\",\n}\n", 0o644)
	if out, code := r.run(t, nil, "--quick"); code != 0 {
		t.Fatalf("third run: exit %d; output:\n%s", code, out)
	}
	wantOne := fmt.Sprintf("npm install --silent --no-audit --no-fund --prefix %s %s@%s", filepath.Join(cache, moved.dir), moved.pkg, moved.version)
	if got := installs(r.calls(t)); !slices.Equal(got, []string{wantOne}) {
		t.Errorf("with %s 0.0.1 in .cache, test.sh installed:\n%s\nwant:\n%s", moved.pkg, strings.Join(got, "\n"), wantOne)
	}
}

// The canary (test.sh --latest) installs each agent's newest release into .cache/latest/, never over the
// pinned copy, runs that agent's tests with it first on PATH, and prints the table: an agent whose newest
// release is the pinned one is not run again, a failing one names its failed tests and makes the exit
// status 1.
func TestTestSh_Latest(t *testing.T) {
	r := newRepo(t)
	r.installPins(t)
	clis, _ := pins(t)
	byCmd := map[string]pin{}
	for _, p := range clis {
		byCmd[p.cmd] = p
	}
	claude, codex, opencode := byCmd["claude"], byCmd["codex"], byCmd["opencode"]
	newest := filepath.Join(t.TempDir(), "newest")
	writeFile(t, newest, fmt.Sprintf("%s 99.0.0\n%s 98.1.0\n%s %s\n", claude.pkg, codex.pkg, opencode.pkg, opencode.version), 0o644)
	// go test: the run of Codex's e2e tests fails; the first PATH entry says which copy the tests found.
	r.fake(t, map[string]string{"go": `echo "PATH ${PATH%%:*}" >>"$FAKE_PATHS"
case "$*" in
*codex_*) printf -- '=== RUN   TestAgents\n        --- FAIL: TestAgents (1.00s)\n            --- FAIL: TestAgents/codex_run (1.00s)\n--- FAIL: TestAgents (1.00s)\n    --- FAIL: TestAgents/codex_run (1.00s)\n    --- PASS: TestAgents/codex_init (1.00s)\nFAIL\n'; exit 1;;
*) printf -- '=== RUN   TestX\n--- PASS: TestX (0.00s)\nPASS\nok\n';;
esac`})
	paths := filepath.Join(t.TempDir(), "paths")
	out, code := r.run(t, []string{"FAKE_NEWEST=" + newest, "FAKE_PATHS=" + paths}, "--latest", "opencode", "claude-code", "codex")
	if code != 1 {
		t.Errorf("exit %d with a failing newest release, want 1; output:\n%s", code, out)
	}
	table := regexp.MustCompile(`(?s)==> canary: \d{4}-\d\d-\d\d \d\d:\d\d UTC\n(.*)`).FindStringSubmatch(out)
	if table == nil {
		t.Fatalf("no dated table; output:\n%s", out)
	}
	want := fmt.Sprintf(`agent         pinned     newest     result
opencode      %-9s  %-9s  pinned is newest (scripts/test.sh runs it)
claude-code   %-9s  99.0.0     pass
codex         %-9s  98.1.0     FAIL: TestAgents/codex_run (go test -v output: .cache/latest/logs/codex.log)
newest release failing: codex
`, opencode.version, opencode.version, claude.version, codex.version)
	if table[1] != want {
		t.Errorf("table:\n%s\nwant:\n%s", table[1], want)
	}

	calls := r.calls(t)
	latest := filepath.Join(r.root, ".cache", "latest")
	if b := readFile(t, filepath.Join(latest, "logs", "codex.log")); !strings.Contains(string(b), "--- FAIL: TestAgents/codex_run") {
		t.Errorf("the log named in the table lacks the go test output:\n%s", b)
	}
	wantInstalls := []string{
		fmt.Sprintf("npm install --silent --no-audit --no-fund --prefix %s %s@99.0.0", filepath.Join(latest, claude.dir), claude.pkg),
		fmt.Sprintf("npm install --silent --no-audit --no-fund --prefix %s %s@98.1.0", filepath.Join(latest, codex.dir), codex.pkg),
	}
	if got := installs(calls); !slices.Equal(got, wantInstalls) {
		t.Errorf("installed:\n%s\nwant (the newest into .cache/latest/ only):\n%s", strings.Join(got, "\n"), strings.Join(wantInstalls, "\n"))
	}
	var tests []string
	for _, c := range calls {
		if strings.HasPrefix(c, "go test") {
			tests = append(tests, c)
		}
	}
	wantTests := []string{
		"go test -count=1 -v -timeout 30m -run ^(TestAgents|TestSession)$/^claudecode_ ./e2e",
		"go test -count=1 -v -timeout 30m -run ^TestClaudeCode$ ./e2e",
		"go test -count=1 -v -timeout 30m -run ^TestClaudeCode ./protocol/anthropic",
		"go test -count=1 -v -timeout 30m -run ^(TestAgents|TestSession)$/^codex_ ./e2e",
		"go test -count=1 -v -timeout 30m -run ^TestCodex$ ./e2e",
		"go test -count=1 -v -timeout 30m -run ^TestCodex ./protocol/responses",
	}
	if !slices.Equal(tests, wantTests) {
		t.Errorf("go test runs:\n%s\nwant:\n%s", strings.Join(tests, "\n"), strings.Join(wantTests, "\n"))
	}
	firstOnPath := strings.Split(strings.TrimSpace(string(readFile(t, paths))), "\n")
	wantPaths := []string{
		"PATH " + filepath.Join(latest, claude.dir, claude.bin), "PATH " + filepath.Join(latest, claude.dir, claude.bin),
		"PATH " + filepath.Join(latest, claude.dir, claude.bin),
		"PATH " + filepath.Join(latest, codex.dir, codex.bin), "PATH " + filepath.Join(latest, codex.dir, codex.bin),
		"PATH " + filepath.Join(latest, codex.dir, codex.bin),
	}
	if !slices.Equal(firstOnPath, wantPaths) {
		t.Errorf("first on PATH in the go test runs:\n%s\nwant the newest copy:\n%s", strings.Join(firstOnPath, "\n"), strings.Join(wantPaths, "\n"))
	}
	if b := readFile(t, filepath.Join(r.root, ".cache", claude.dir, "node_modules", claude.pkg, "package.json")); !strings.Contains(string(b), `"`+claude.version+`"`) {
		t.Errorf("the pinned copy changed:\n%s", b)
	}

	// An unknown agent is refused before anything runs.
	out, code = r.run(t, []string{"FAKE_NEWEST=" + newest, "FAKE_PATHS=" + paths}, "--latest", "claude")
	if code != 2 || !strings.Contains(out, "canary: unknown agent claude; the agents: opencode claude-code codex") {
		t.Errorf("exit %d, output:\n%s\nwant exit 2 naming the agents", code, out)
	}
	if got := installs(r.calls(t)); got != nil {
		t.Errorf("installed for an unknown agent:\n%s", strings.Join(got, "\n"))
	}
}

// Every agent CLI test.sh pins is one the canary tries, with the same package, .cache directory, command
// and *_VERSION= line: a new agent in test.sh is not left out of the canary.
func TestTestSh_CanaryCoversEveryPin(t *testing.T) {
	clis, _ := pins(t)
	src := strings.ReplaceAll(string(readFile(t, "canary.sh")), "\\\n\t\t", "")
	var got []pin
	for _, m := range regexp.MustCompile(`(?m)^\tagent (\S+) (\S+) (\S+) (\S+) (\S+) ([A-Z_]+) '`).FindAllStringSubmatch(src, -1) {
		got = append(got, pin{pkg: m[2], dir: m[3], bin: m[4], cmd: m[5], versionVar: m[6]})
	}
	for i := range clis {
		clis[i].version = ""
	}
	if !slices.Equal(got, clis) {
		t.Errorf("canary.sh's agents:\n%v\ntest.sh's pinned CLIs:\n%v", got, clis)
	}
}

// README's "Run the tests" names every agent CLI and SDK test.sh installs: the list it points to (test.sh's
// pins) and the one it shows stay the same.
func TestTestSh_ReadmeNamesWhatItInstalls(t *testing.T) {
	readme := string(readFile(t, filepath.Join("..", "README.md")))
	_, section, ok := strings.Cut(readme, "\n## Run the tests\n")
	if !ok {
		t.Fatal(`README.md has no "## Run the tests" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	clis, sdks := pins(t)
	for _, p := range slices.Concat(clis, slices.Concat(slices.Collect(maps.Values(sdks))...)) {
		if !strings.Contains(section, "`"+p.pkg+"`") {
			t.Errorf("README's \"Run the tests\" does not name %s, which scripts/test.sh installs", p.pkg)
		}
	}
}
