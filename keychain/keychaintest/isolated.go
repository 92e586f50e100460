// Package keychaintest runs tests against the real OS keychain without touching the user's: on Linux, a
// test re-runs itself inside scripts/with-keyring.sh, a private D-Bus session with a throwaway
// gnome-keyring. Only tests import it.
package keychaintest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// IsolatedEnv is set to 1 by scripts/with-keyring.sh inside its private session.
const IsolatedEnv = "GW_ISOLATED_KEYRING"

// Isolated reports whether this process runs inside the throwaway keyring session.
func Isolated() bool { return os.Getenv(IsolatedEnv) == "1" }

// RunIsolated re-runs this test binary for the one test name (Top or Top/Sub) inside
// scripts/with-keyring.sh with the extra environment, and fails t unless that run passed the test.
func RunIsolated(t *testing.T, name string, env ...string) {
	t.Helper()
	var pattern []string
	for part := range strings.SplitSeq(name, "/") {
		pattern = append(pattern, "^"+regexp.QuoteMeta(part)+"$")
	}
	script := filepath.Join(RepoRoot(t), "scripts", "with-keyring.sh")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, exe, "-test.run="+strings.Join(pattern, "/"), "-test.v", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("under %s:\n%s", filepath.Base(script), out)
	if err != nil {
		t.Fatalf("the isolated run failed: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatal("the isolated run did not pass the test")
	}
}

// RepoRoot walks up from the test's directory to the module root.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/modelgateway/gw\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the repository root (go.mod of github.com/modelgateway/gw) above the test's directory")
		}
		dir = parent
	}
}

// RequireSecretService skips t (fails it under GW_REQUIRE_REAL_KEYCHAIN=1) unless a throwaway Secret Service
// can be started here: Linux with dbus-run-session, gnome-keyring-daemon and secret-tool.
func RequireSecretService(t testing.TB) {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1" {
			t.Fatalf(format+" (GW_REQUIRE_REAL_KEYCHAIN=1)", args...)
		}
		t.Skipf(format, args...)
	}
	if runtime.GOOS != "linux" {
		skip("the Secret Service test needs Linux, not %s", runtime.GOOS)
	}
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			skip("%s is not installed; install: apt-get install -y dbus gnome-keyring libsecret-tools", tool)
		}
	}
}
