package logout

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/keychain"
)

func TestNewCmdLogout_NoArgs(t *testing.T) {
	e := cmdtest.New(t)
	ran := false
	cmd := NewCmdLogout(e.Factory, func(context.Context, *LogoutOptions) error { ran = true; return nil })
	cmd.SetArgs([]string{"extra"})
	cmd.SetOut(e.Out)
	cmd.SetErr(e.ErrOut)
	if err := cmd.Execute(); err == nil || ran {
		t.Fatalf("an argument was accepted (err %v)", err)
	}
}

func TestLogoutRun_RemovesFromKeychainAndFile(t *testing.T) {
	e := cmdtest.New(t)
	_ = e.Keyring.Set(cmdutil.Profile, "sk-abc-123456")
	fs, err := e.Factory.FileStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Set(cmdutil.Profile, "sk-old-654321"); err != nil {
		t.Fatal(err)
	}
	if err := logoutRun(context.Background(), options(e)); err != nil {
		t.Fatal(err)
	}
	paths, _ := e.Factory.Paths()
	want := "✓ Removed the key from fake keychain (tests)\n✓ Removed the key from " + fs.Backend() + "\n"
	if e.Out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", e.Out, want)
	}
	if _, err := e.Keyring.Get(cmdutil.Profile); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("keychain still answers: %v", err)
	}
	if _, err := fs.Get(cmdutil.Profile); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("the insecure file still answers: %v", err)
	}
	if b, err := os.ReadFile(paths.CredentialsFile()); err == nil && strings.Contains(string(b), "sk-old-654321") {
		t.Errorf("credentials file still holds the key: %q", b)
	}
}

func TestLogoutRun_NothingStoredAndEnvStillSet(t *testing.T) {
	e := cmdtest.New(t)
	e.Vars["GW_API_KEY"] = "sk-env-123456"
	if err := logoutRun(context.Background(), options(e)); err != nil {
		t.Fatal(err)
	}
	if e.Out.String() != "No key was stored.\n" {
		t.Errorf("stdout %q", e.Out)
	}
	if e.ErrOut.String() != "! GW_API_KEY is still set in this environment; gw uses it until you unset it.\n" {
		t.Errorf("stderr %q", e.ErrOut)
	}
}

func TestLogoutRun_UnreachableKeychainIsAFailure(t *testing.T) {
	e := cmdtest.New(t)
	e.Keyring.Err = errors.New("no Secret Service")
	err := logoutRun(context.Background(), options(e))
	if err == nil || cmdutil.ExitCodeFor(err) != cmdutil.ExitError {
		t.Fatalf("err = %v", err)
	}
}

// options are gw auth logout's dependencies from the test environment (a fake keychain, real files).
func options(e *cmdtest.Env) *LogoutOptions {
	f := e.Factory
	return &LogoutOptions{IO: e.IO, Config: f.Config, Keychain: f.Keychain, FileStore: f.FileStore, Getenv: f.Getenv}
}
