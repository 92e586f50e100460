package cmdutil_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/keychain/keychaintest"
)

// TestFactoryResolveKey_RealKeychain walks the five ways to a key (GW_API_KEY, the OS keychain, the insecure
// file, none, a failing keychain with the file behind it) with the real OS keychain: a throwaway
// gnome-keyring (the test re-runs itself inside scripts/with-keyring.sh), and for the failing one the same
// store with no D-Bus session bus to reach it.
func TestFactoryResolveKey_RealKeychain(t *testing.T) {
	keychaintest.RequireSecretService(t)
	if !keychaintest.Isolated() {
		keychaintest.RunIsolated(t, "TestFactoryResolveKey_RealKeychain", "GW_REQUIRE_REAL_KEYCHAIN=1")
		return
	}
	const stored, inFile, fromEnv = "sk-test-keychain-1111", "sk-test-file-2222", "sk-test-env-3333"

	// newEnv is a command-test factory whose keychain is the real OS one.
	newEnv := func(t *testing.T) *cmdtest.Env {
		e := cmdtest.New(t)
		e.Factory.Keyring = func() keychain.Store { return keychain.NewOS(keychain.DefaultTimeout) }
		return e
	}
	storeInKeychain := func(t *testing.T) {
		s := keychain.NewOS(keychain.DefaultTimeout)
		if err := s.Set(cmdutil.Profile, stored); err != nil {
			t.Fatalf("storing the key in the keychain: %v", err)
		}
		t.Cleanup(func() { s.Delete(cmdutil.Profile) })
	}
	// chooseFile is what gw auth login --insecure-storage leaves: the key in the file, the choice in the config.
	chooseFile := func(t *testing.T, e *cmdtest.Env) {
		p, err := e.Factory.Paths()
		if err != nil {
			t.Fatal(err)
		}
		if err := config.Save(p.File(), config.File{InsecureStorage: true}); err != nil {
			t.Fatal(err)
		}
		if err := keychain.NewFile(p.CredentialsFile()).Set(cmdutil.Profile, inFile); err != nil {
			t.Fatal(err)
		}
	}
	// noBus leaves the keychain unreachable: the session bus address points at nothing.
	noBus := func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	}

	t.Run("GW_API_KEY wins over the keychain", func(t *testing.T) {
		storeInKeychain(t)
		e := newEnv(t)
		e.Vars[keychain.EnvVar] = fromEnv
		r, err := e.Factory.Key(context.Background(), cmdutil.KeyOptions{})
		if err != nil || r.Key != fromEnv || r.Source != keychain.SourceEnv {
			t.Fatalf("ResolveKey = %s from %q, %v; want the GW_API_KEY key from env", keychain.Mask(r.Key), r.Source, err)
		}
	})

	t.Run("the OS keychain", func(t *testing.T) {
		storeInKeychain(t)
		e := newEnv(t)
		r, err := e.Factory.Key(context.Background(), cmdutil.KeyOptions{})
		if err != nil || r.Key != stored || r.Source != keychain.SourceKeychain {
			t.Fatalf("ResolveKey = %s from %q, %v; want the stored key from the keychain", keychain.Mask(r.Key), r.Source, err)
		}
		if r.Backend != "Secret Service (gnome-keyring)" {
			t.Errorf("backend %q, want Secret Service (gnome-keyring)", r.Backend)
		}
		if e.ErrOut.Len() != 0 {
			t.Errorf("stderr: %q, want nothing", e.ErrOut)
		}
	})

	t.Run("the insecure file the user chose", func(t *testing.T) {
		e := newEnv(t)
		chooseFile(t, e)
		r, err := e.Factory.Key(context.Background(), cmdutil.KeyOptions{})
		if err != nil || r.Key != inFile || r.Source != keychain.SourceFile {
			t.Fatalf("ResolveKey = %s from %q, %v; want the file's key", keychain.Mask(r.Key), r.Source, err)
		}
	})

	t.Run("none anywhere", func(t *testing.T) {
		e := newEnv(t)
		_, err := e.Factory.Key(context.Background(), cmdutil.KeyOptions{})
		var nk *cmdutil.NoKeyError
		if !errors.As(err, &nk) || cmdutil.ExitCodeFor(err) != cmdutil.ExitAuth {
			t.Fatalf("ResolveKey error %v (exit %d), want a NoKeyError (exit 4)", err, cmdutil.ExitCodeFor(err))
		}
		if !strings.Contains(cmdutil.ErrorWithFix(err), "run gw auth login") {
			t.Errorf("error %q does not say to run gw auth login", err)
		}
	})

	t.Run("a failing keychain with the chosen file behind it", func(t *testing.T) {
		noBus(t)
		e := newEnv(t)
		chooseFile(t, e)
		r, err := e.Factory.Key(context.Background(), cmdutil.KeyOptions{})
		if err != nil || r.Key != inFile || r.Source != keychain.SourceFile {
			t.Fatalf("ResolveKey = %s from %q, %v; want the file's key", keychain.Mask(r.Key), r.Source, err)
		}
		if r.Warning == nil {
			t.Error("no warning about the keychain that failed")
		}
		// The user chose the file: the keychain's failure is not news to print on every command.
		if e.ErrOut.Len() != 0 {
			t.Errorf("stderr: %q, want nothing", e.ErrOut)
		}
	})

	t.Run("a failing keychain and nothing else", func(t *testing.T) {
		noBus(t)
		e := newEnv(t)
		_, err := e.Factory.Key(context.Background(), cmdutil.KeyOptions{})
		var nk *cmdutil.NoKeyError
		if !errors.As(err, &nk) {
			t.Fatalf("ResolveKey error %v, want a NoKeyError", err)
		}
		if !strings.Contains(nk.Msg, "the OS keychain could not be read") || !strings.Contains(cmdutil.FixFor(err), "--insecure-storage") {
			t.Errorf("error %q: want the keychain's failure and the way around it", err)
		}
	})
}

// When the keychain failed because nothing provides it here, the fix starts with what to install.
func TestFactoryResolveKey_KeychainInstall_FakeKeychain(t *testing.T) {
	e := cmdtest.New(t)
	e.Keyring.Err = &keychain.UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")}
	e.Factory.KeychainInstall = func(err error) string {
		if _, ok := err.(*keychain.UnavailableError); !ok {
			t.Errorf("asked about %T, want the keychain's failure", err)
		}
		return "sudo apt install gnome-keyring"
	}
	_, err := e.Factory.Key(context.Background(), cmdutil.KeyOptions{})
	var nk *cmdutil.NoKeyError
	if !errors.As(err, &nk) {
		t.Fatalf("ResolveKey error %v, want a NoKeyError", err)
	}
	want := "install a Secret Service, the Linux keychain (none is installed here): sudo apt install gnome-keyring; then run: gw auth login; where you cannot install one, run: gw auth login --insecure-storage (or set GW_API_KEY)"
	if got := cmdutil.FixFor(err); got != want {
		t.Errorf("fix:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(nk.Msg, "no D-Bus session bus") {
		t.Errorf("message %q does not say why the keychain failed", nk.Msg)
	}
}
