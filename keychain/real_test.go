package keychain

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelgateway/gw/keychain/keychaintest"
)

// TestOSStore_RealSecretService stores, reads and deletes a key in a real
// gnome-keyring over D-Bus, and checks with secret-tool that the keyring
// really holds it. It never touches the user's own keyring: unless it already
// runs inside scripts/with-keyring.sh (GW_ISOLATED_KEYRING=1), it re-runs
// itself there. With GW_REQUIRE_REAL_KEYCHAIN=1 missing tools fail the test
// instead of skipping it.
func TestOSStore_RealSecretService(t *testing.T) {
	required := os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1"
	skip := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+" (GW_REQUIRE_REAL_KEYCHAIN=1)", args...)
		}
		t.Skipf(format, args...)
	}
	if runtime.GOOS != "linux" {
		skip("the Secret Service test needs Linux, not %s", runtime.GOOS)
	}
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			skip("%s is not installed; install: apt-get install -y dbus gnome-keyring libsecret-tools", tool)
		}
	}

	if !keychaintest.Isolated() {
		// Inside the isolated session everything is installed, so a skip there is a failure.
		keychaintest.RunIsolated(t, "TestOSStore_RealSecretService", "GW_REQUIRE_REAL_KEYCHAIN=1")
		return
	}

	account := "test-" + randomHex(t, 6)
	key := "sk-test-" + randomHex(t, 16)
	s := NewOS(DefaultTimeout)

	if b := s.Backend(); b != "Secret Service (gnome-keyring)" {
		t.Errorf("Backend() = %q, want Secret Service (gnome-keyring)", b)
	}
	if _, err := s.Get(account); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get before Set: %v, want ErrNotFound", err)
	}
	if err := s.Set(account, key); err != nil {
		t.Fatalf("Set: %v", err)
	}
	got, err := s.Get(account)
	if err != nil || got != key {
		t.Fatalf("Get = %q, %v; want the stored key", Mask(got), err)
	}
	// A fresh store learns the detailed name during Get, without a lookup of its own.
	fresh := NewOS(DefaultTimeout).(*osStore)
	fresh.nameBackend = func() string { return "separate lookup" }
	if _, err := fresh.Get(account); err != nil {
		t.Fatalf("Get with a fresh store: %v", err)
	}
	if b := fresh.Backend(); b != "Secret Service (gnome-keyring)" {
		t.Errorf("fresh store's Backend() after Get = %q, want Secret Service (gnome-keyring)", b)
	}
	// Ask the keyring itself, by the attributes other tools would use.
	out, err := exec.Command("secret-tool", "lookup", "service", Service, "username", account).Output()
	if err != nil {
		t.Fatalf("secret-tool lookup: %v", err)
	}
	if strings.TrimRight(string(out), "\n") != key {
		t.Errorf("secret-tool found %q, want the key gw stored", Mask(string(out)))
	}

	replacement := "sk-test-" + randomHex(t, 16)
	if err := s.Set(account, replacement); err != nil {
		t.Fatalf("second Set: %v", err)
	}
	if got, _ := s.Get(account); got != replacement {
		t.Errorf("after replacing, Get = %q", Mask(got))
	}

	if err := s.Delete(account); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(account); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete(account); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	if out, _ := exec.Command("secret-tool", "lookup", "service", Service, "username", account).Output(); len(out) != 0 {
		t.Error("the keyring still holds the key after Delete")
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// TestWithKeyringScript checks what tests rely on in scripts/with-keyring.sh:
// the command runs on a private bus with the isolation marker set, its
// arguments arrive intact, its exit status comes back and nothing is left in
// the temporary directory.
func TestWithKeyringScript(t *testing.T) {
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1" {
				t.Fatalf("%s is not installed (GW_REQUIRE_REAL_KEYCHAIN=1)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	tmp := t.TempDir()
	script := filepath.Join(keychaintest.RepoRoot(t), "scripts", "with-keyring.sh")
	cmd := exec.Command(script, "bash", "-c", `printf '%s|%s|%s\n' "$GW_ISOLATED_KEYRING" "$DBUS_SESSION_BUS_ADDRESS" "$1"; exit 3`, "bash", "two words")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/user-bus")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want status 3 passed through; output %q", err, out)
	}
	parts := strings.Split(strings.TrimSpace(string(out)), "|")
	if len(parts) != 3 || parts[0] != "1" || parts[2] != "two words" {
		t.Fatalf("output %q, want marker 1, the private bus and the argument intact", out)
	}
	if parts[1] == "" || strings.Contains(parts[1], "/nonexistent/user-bus") {
		t.Errorf("the command saw bus %q, want a private one", parts[1])
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}
