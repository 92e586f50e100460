package doctor

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

// installCommand is what keychain.SetupCommand says on a Debian machine with no Secret Service; installHint is
// how the fix says it.
const (
	installCommand = "sudo apt install gnome-keyring"
	installHint    = "install a Secret Service, the Linux keychain (none is installed here): " + installCommand
)

// The key in the file the user chose, on a machine with no keychain installed: the fix names the package
// that provides one (not only "once an OS keychain is available").
func TestRun_KeyStorage_FileChosenNoKeychainInstalled(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, "")
	in.Key = keychain.Resolved{Key: standin.DemoKeyFull, Source: keychain.SourceFile, Backend: "file c.json (insecure)",
		Warning: &keychain.UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")}}
	in.KeychainInstall = installCommand
	c := wantStatus(t, runDoctor(t, in), IDKeychain, Warn)
	if want := installHint + "; then run: gw auth login (it stores the key there)"; fixText(in, c) != want {
		t.Errorf("fix %q, want %q", fixText(in, c), want)
	}
	if !strings.Contains(c.Cause, "no D-Bus session bus") {
		t.Errorf("cause %q does not say why the keychain is not used", c.Cause)
	}
}

// No key, because the keychain failed and none is installed: the fix starts with what to install.
func TestRun_KeyStorage_KeychainNotInstalled(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, "")
	in.Key = keychain.Resolved{}
	in.KeyErr = &keychain.UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")}
	in.KeychainInstall = installCommand
	c := wantStatus(t, runDoctor(t, in), IDKeychain, Fail)
	if !strings.HasPrefix(fixText(in, c), installHint+"; then run: gw auth login") || !strings.Contains(fixText(in, c), "--insecure-storage") {
		t.Errorf("fix %q: want what to install first, and the ways around it", fixText(in, c))
	}
	// The key check fails for the same reason: the same one thing to do, not a second list of ways.
	if k := get(t, runDoctor(t, in), IDKey); fixText(in, k) != fixText(in, c) {
		t.Errorf("key check's fix %q, key storage's %q: want one fix", fixText(in, k), fixText(in, c))
	}
}
