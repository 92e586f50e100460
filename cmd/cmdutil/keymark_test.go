package cmdutil_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/standin"
)

// Storing or removing the key through the factory's stores (what gw auth login and gw auth logout use)
// changes the stamp a running gw serve watches; reading it, or removing a key that was not there, does
// not. The marker holds no part of the key.
func TestKeyStoresMarkEveryChange_FakeKeychain(t *testing.T) {
	e := cmdtest.New(t)
	f := e.Factory
	stamp := f.KeyStamp()
	if stamp == nil {
		t.Fatal("no stamp")
	}
	last, ok := stamp()
	if !ok {
		t.Fatal("no stamp before any key was stored")
	}
	changed := func(what string, want bool) {
		t.Helper()
		s, ok := stamp()
		if !ok {
			t.Fatalf("%s: the stamp cannot be read", what)
		}
		if (s != last) != want {
			t.Errorf("%s: stamp changed = %v, want %v", what, s != last, want)
		}
		last = s
	}
	ctx := context.Background()
	kr := f.Keychain(ctx)
	if err := kr.Set(cmdutil.Profile, standin.DemoKeyFull); err != nil {
		t.Fatal(err)
	}
	changed("keychain Set", true)
	if _, err := kr.Get(cmdutil.Profile); err != nil {
		t.Fatal(err)
	}
	changed("keychain Get", false)
	if _, err := f.Key(ctx, cmdutil.KeyOptions{}); err != nil {
		t.Fatal(err)
	}
	changed("Key", false)
	if err := kr.Delete(cmdutil.Profile); err != nil {
		t.Fatal(err)
	}
	changed("keychain Delete", true)
	_ = kr.Delete(cmdutil.Profile)
	changed("keychain Delete of nothing", false)
	file, err := f.FileStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := file.Set(cmdutil.Profile, standin.DemoKeyFull); err != nil {
		t.Fatal(err)
	}
	changed("file Set", true)
	if err := file.Delete(cmdutil.Profile); err != nil {
		t.Fatal(err)
	}
	changed("file Delete", true)

	paths, _ := f.Paths()
	b, err := os.ReadFile(paths.KeyChangedFile())
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{standin.DemoKeyFull, "demo-full", "full"} {
		if strings.Contains(string(b), part) {
			t.Errorf("the marker holds %q: %q", part, b)
		}
	}
	if e.ErrOut.Len() != 0 {
		t.Errorf("stderr: %s", e.ErrOut)
	}
}

// A marker gw cannot write fails neither the store nor the removal of the key; the command says, once, that
// a running gw serve may use the previous key for one more request.
func TestKeyMarkFailureIsAWarning_FakeKeychain(t *testing.T) {
	e := cmdtest.New(t)
	f := e.Factory
	paths, _ := f.Paths()
	if err := os.MkdirAll(filepath.Join(paths.KeyChangedFile(), "planted"), 0o700); err != nil {
		t.Fatal(err)
	}
	kr := f.Keychain(context.Background())
	if err := kr.Set(cmdutil.Profile, standin.DemoKeyFull); err != nil {
		t.Fatalf("the key was not stored: %v", err)
	}
	if err := kr.Delete(cmdutil.Profile); err != nil {
		t.Fatalf("the key was not removed: %v", err)
	}
	if _, err := e.Keyring.Get(cmdutil.Profile); err == nil {
		t.Error("the key is still stored")
	}
	warn := e.ErrOut.String()
	if strings.Count(warn, "\n") != 1 || !strings.HasPrefix(warn, "! A running gw serve may use the previous key for one more request: ") ||
		!strings.Contains(warn, paths.KeyChangedFile()) {
		t.Errorf("stderr: %q", warn)
	}
	if s := f.KeyStamp(); s != nil {
		if _, ok := s(); ok {
			t.Error("a directory in the marker's place gave a stamp: gw serve would take the key for unchanged")
		}
	}
}
