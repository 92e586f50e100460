package scripts_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// testSh runs scripts/test.sh --quick with the tools it calls replaced by the scripts in fakes (name → body),
// and returns its output and exit code. The real tests are not what this checks: how test.sh reports them is.
func testSh(t *testing.T, fakes map[string]string) (string, int) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("test.sh is a bash script")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	bin := t.TempDir()
	// Present, so that test.sh installs nothing.
	for _, name := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool", "tmux", "opencode", "gofmt", "go"} {
		body, ok := fakes[name]
		if !ok {
			body = "exit 0"
		}
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "test.sh", "--quick")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+t.TempDir())
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

// A failing step does not stop the independent ones after it, and the run ends with a summary of every
// step (the failed tests by package, the skipped release steps and why), exiting non-zero.
func TestTestSh_SummaryAfterFailures(t *testing.T) {
	out, code := testSh(t, map[string]string{
		"gofmt": `echo cmd/x/bad.go`,
		"go": `case "$1" in
vet) echo "cmd/x/x.go:3:2: unreachable code" >&2; exit 1;;
test) printf -- '--- FAIL: TestBroken (0.00s)\n    --- FAIL: TestBroken/sub (0.00s)\nFAIL\nFAIL\tgithub.com/modelgateway/gw/broken\t0.01s\nok  \tgithub.com/modelgateway/gw/fine\t0.01s\n'; exit 1;;
esac`,
	})
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
  FAIL  go test -race ./...  (exit 1)
          github.com/modelgateway/gw/broken: TestBroken, TestBroken/sub
  skip  cross-compile of the six release targets  (--quick)
  skip  release check (goreleaser check, snapshot release, install.sh against it)  (--quick)
5 step(s) failed: gofmt, go vet, go vet (GOOS=windows), go vet (GOOS=darwin), go test -race ./...
`
	if summary != want {
		t.Errorf("summary:\n%s\nwant:\n%s", summary, want)
	}
}

func TestTestSh_SummaryWhenAllPass(t *testing.T) {
	out, code := testSh(t, nil)
	if code != 0 {
		t.Errorf("exit %d; output:\n%s", code, out)
	}
	if !strings.HasSuffix(out, "  pass  go test -race ./...\n  skip  cross-compile of the six release targets  (--quick)\n  skip  release check (goreleaser check, snapshot release, install.sh against it)  (--quick)\nall steps passed\n") {
		t.Errorf("output does not end with the summary:\n%s", out)
	}
}
