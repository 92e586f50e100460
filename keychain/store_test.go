package keychain

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/modelgateway/gw/internal/remedy"
)

func TestFileStore_SetGetDeletePerms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gw", "credentials.json")
	s := NewFile(path)
	if _, err := s.Get("default"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get on no file: %v, want ErrNotFound", err)
	}
	if err := s.Set("default", "sk-one"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("work", "sk-two"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("default"); err != nil || got != "sk-one" {
		t.Errorf("Get = %q, %v", got, err)
	}
	if runtime.GOOS != "windows" {
		st, _ := os.Stat(path)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("mode %o, want 600", st.Mode().Perm())
		}
	}
	if err := s.Delete("default"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("default"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after Delete: %v", err)
	}
	if got, _ := s.Get("work"); got != "sk-two" {
		t.Errorf("other account lost: %q", got)
	}
	if err := s.Delete("default"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
	if err := s.Delete("work"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("empty credentials file left behind")
	}
	if !strings.Contains(s.Backend(), path) || !strings.Contains(s.Backend(), "insecure") {
		t.Errorf("Backend() = %q", s.Backend())
	}
}

func TestFileStore_RefusesOpenPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	path := filepath.Join(t.TempDir(), "credentials.json")
	os.WriteFile(path, []byte(`{"default":"sk-leaky"}`), 0o600)
	os.Chmod(path, 0o644)
	s := NewFile(path)
	_, err := s.Get("default")
	var pe *PermissionError
	if r, _ := remedy.Of(err); !errors.As(err, &pe) || (r.Do != remedy.ProtectKeyFile || r.Value != path) || !strings.Contains(err.Error(), "0644") {
		t.Fatalf("err = %v, want a PermissionError saying how to fix it", err)
	}
	if strings.Contains(err.Error(), "sk-leaky") {
		t.Error("error repeats the key")
	}
	// Storing a new key rewrites the file privately.
	if err := s.Set("default", "sk-new"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("default"); err != nil || got != "sk-new" {
		t.Errorf("after Set: %q, %v", got, err)
	}
}

func TestFileStore_DamagedFileNotOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "credentials.json")
	os.WriteFile(path, []byte(`{"default": "sk-abc`), 0o600)
	s := NewFile(path)
	if _, err := s.Get("default"); err == nil || !strings.Contains(err.Error(), "damaged") || strings.Contains(err.Error(), "sk-abc") {
		t.Errorf("Get: %v", err)
	} else if r, _ := remedy.Of(err); r.Do != remedy.FixCredentials || r.Value != path {
		t.Errorf("remedy %+v, want to replace %s", r, path)
	}
	if err := s.Set("default", "sk-x"); err == nil {
		t.Error("Set over a damaged file succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != `{"default": "sk-abc` {
		t.Errorf("file changed: %s", b)
	}
}

// fakeStore stands in for the OS keychain in Resolve's tests.
type fakeStore struct {
	keys map[string]string
	err  error
	name string
}

func (f *fakeStore) Get(a string) (string, error) {
	if f.err != nil {
		return "", f.err
	}
	if k, ok := f.keys[a]; ok {
		return k, nil
	}
	return "", ErrNotFound
}
func (f *fakeStore) Set(a, k string) error { f.keys[a] = k; return nil }
func (f *fakeStore) Delete(a string) error { delete(f.keys, a); return nil }
func (f *fakeStore) Backend() string       { return f.name }

func TestResolve_Precedence_FakeKeyring(t *testing.T) {
	osS := &fakeStore{keys: map[string]string{"default": "sk-os"}, name: "fake keychain"}
	fileS := NewFile(filepath.Join(t.TempDir(), "c.json"))
	fileS.Set("default", "sk-file")
	noEnv := func(string) string { return "" }
	withEnv := func(k string) string {
		if k == EnvVar {
			return " Bearer sk-env\n"
		}
		return ""
	}

	r, err := Resolve(withEnv, osS, fileS, "default")
	if err != nil || r.Key != "sk-env" || r.Source != SourceEnv || !strings.Contains(r.Backend, "GW_API_KEY") {
		t.Errorf("env: %+v, %v", r, err)
	}
	r, err = Resolve(noEnv, osS, fileS, "default")
	if err != nil || r.Key != "sk-os" || r.Source != SourceKeychain || r.Backend != "fake keychain" {
		t.Errorf("keychain: %+v, %v", r, err)
	}
	delete(osS.keys, "default")
	r, err = Resolve(noEnv, osS, fileS, "default")
	if err != nil || r.Key != "sk-file" || r.Source != SourceFile || r.Warning != nil {
		t.Errorf("file: %+v, %v", r, err)
	}
	r, err = Resolve(noEnv, osS, nil, "default")
	if rem, _ := remedy.Of(err); !errors.Is(err, ErrNotFound) || rem.Do != remedy.Login || !strings.Contains(err.Error(), "fake keychain") {
		t.Errorf("none: %+v, %v", r, err)
	}
}

func TestResolve_BadEnvKeyIsAnErrorNotSkipped_FakeKeyring(t *testing.T) {
	osS := &fakeStore{keys: map[string]string{"default": "sk-os"}, name: "fake keychain"}
	getenv := func(k string) string {
		if k == EnvVar {
			return "sk-has space"
		}
		return ""
	}
	_, err := Resolve(getenv, osS, nil, "default")
	if err == nil || !strings.Contains(err.Error(), "GW_API_KEY is set but unusable") || strings.Contains(err.Error(), "sk-has") {
		t.Errorf("err = %v", err)
	}
}

func TestResolve_KeychainFailureReportedButFileUsed_FakeKeyring(t *testing.T) {
	broken := errors.New("dbus: no Secret Service")
	osS := &fakeStore{err: broken, name: "fake keychain"}
	noEnv := func(string) string { return "" }

	_, err := Resolve(noEnv, osS, nil, "default")
	if !errors.Is(err, broken) || errors.Is(err, ErrNotFound) {
		t.Errorf("no file: err = %v, want the keychain's error, not not-found", err)
	}
	fileS := NewFile(filepath.Join(t.TempDir(), "c.json"))
	_, err = Resolve(noEnv, osS, fileS, "default")
	if !errors.Is(err, broken) {
		t.Errorf("empty file: err = %v, want the keychain's error", err)
	}
	fileS.Set("default", "sk-file")
	r, err := Resolve(noEnv, osS, fileS, "default")
	if err != nil || r.Key != "sk-file" || !errors.Is(r.Warning, broken) {
		t.Errorf("file: %+v, %v; want the key from the file and the keychain error as warning", r, err)
	}
}

// blockingKeyring never answers until released, like go-keyring on a locked
// or absent D-Bus Secret Service.
type blockingKeyring struct{ release chan struct{} }

func (b blockingKeyring) Get(string, string) (string, error) { <-b.release; return "", nil }
func (b blockingKeyring) Set(string, string, string) error   { <-b.release; return nil }
func (b blockingKeyring) Delete(string, string) error        { <-b.release; return nil }

func TestOSStore_Timeout_FakeBlockingKeyring(t *testing.T) {
	kr := blockingKeyring{release: make(chan struct{})}
	t.Cleanup(func() { close(kr.release) })
	s := newOS(kr, 10*time.Millisecond, func() string { return "Secret Service" })
	for name, call := range map[string]func() error{
		"Get":    func() error { _, err := s.Get("default"); return err },
		"Set":    func() error { return s.Set("default", "sk-secretvalue") },
		"Delete": func() error { return s.Delete("default") },
	} {
		err := call()
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Errorf("%s: err = %v, want *TimeoutError", name, err)
			continue
		}
		msg := err.Error()
		if r, _ := remedy.Of(err); r.Do != remedy.RepairKeychain || !strings.Contains(msg, "Secret Service") || strings.Contains(msg, "sk-secretvalue") {
			t.Errorf("%s: message %q", name, msg)
		}
		if errors.Is(err, ErrNotFound) {
			t.Errorf("%s: a time-out must not look like not-found", name)
		}
	}
}

// mapKeyring is an in-memory go-keyring stand-in returning go-keyring's own errors.
type mapKeyring struct {
	mu sync.Mutex
	m  map[string]string
}

func (k *mapKeyring) Get(s, u string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[s+"/"+u]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}
func (k *mapKeyring) Set(s, u, p string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[s+"/"+u] = p
	return nil
}
func (k *mapKeyring) Delete(s, u string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.m[s+"/"+u]; !ok {
		return keyring.ErrNotFound
	}
	delete(k.m, s+"/"+u)
	return nil
}

func TestOSStore_ErrorMapping_FakeKeyring(t *testing.T) {
	kr := &mapKeyring{m: map[string]string{}}
	s := newOS(kr, time.Minute, func() string { return "Secret Service" })
	if _, err := s.Get("default"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get missing: %v", err)
	}
	if err := s.Delete("default"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete missing: %v", err)
	}
	if err := s.Set("default", "sk-1"); err != nil {
		t.Fatal(err)
	}
	if kr.m["gw/default"] != "sk-1" {
		t.Errorf("stored under %v, want service gw, account default", kr.m)
	}
	if err := s.Set("default", ""); err == nil {
		t.Error("empty key stored")
	}
	failing := newOS(failingKeyring{}, time.Minute, func() string { return "Secret Service" })
	_, err := failing.Get("default")
	var ue *UnavailableError
	if r, _ := remedy.Of(err); !errors.As(err, &ue) || r.Do != remedy.RepairKeychain || !strings.Contains(err.Error(), "org.freedesktop.secrets") {
		t.Errorf("unavailable: %v", err)
	}
}

type failingKeyring struct{}

func (failingKeyring) Get(string, string) (string, error) {
	return "", errors.New("The name org.freedesktop.secrets was not provided by any .service files")
}
func (failingKeyring) Set(string, string, string) error { return errors.New("no") }
func (failingKeyring) Delete(string, string) error      { return errors.New("no") }

// TestResolve_BackendNamedDuringGet_FakeKeyring: the detailed backend name
// comes from the connection the keychain call already used, so Resolve never
// runs the separate (slow, D-Bus) lookup; Backend() later reuses it too.
func TestResolve_BackendNamedDuringGet_FakeKeyring(t *testing.T) {
	kr := &mapKeyring{m: map[string]string{"gw/default": "sk-os"}}
	var lookups, prechecks int
	s := newOS(kr, time.Minute, func() string { lookups++; return "Secret Service (separate lookup)" })
	s.precheck = func() (func() string, error) {
		prechecks++
		return func() string { return "Secret Service (fake-owner)" }, nil
	}
	noEnv := func(string) string { return "" }
	for range 3 {
		r, err := Resolve(noEnv, s, nil, "default")
		if err != nil || r.Key != "sk-os" || r.Backend != "Secret Service (fake-owner)" {
			t.Fatalf("Resolve: %+v, %v", r, err)
		}
	}
	if b := s.Backend(); b != "Secret Service (fake-owner)" {
		t.Errorf("Backend() = %q", b)
	}
	if lookups != 0 || prechecks != 3 {
		t.Errorf("separate name lookups = %d (want 0), prechecks = %d (want 3)", lookups, prechecks)
	}
}

// TestOSStore_BackendLookedUpOnce_FakeKeyring: with nothing learnt from a
// call, Backend() falls back to the separate lookup, once per store.
func TestOSStore_BackendLookedUpOnce_FakeKeyring(t *testing.T) {
	var lookups int
	s := newOS(&mapKeyring{m: map[string]string{}}, time.Minute, func() string { lookups++; return "Secret Service (x)" })
	s.precheck = func() (func() string, error) { return func() string { return "" }, nil }
	if _, err := s.Get("default"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	for range 3 {
		if b := s.Backend(); b != "Secret Service (x)" {
			t.Errorf("Backend() = %q", b)
		}
	}
	if lookups != 1 {
		t.Errorf("lookups = %d, want 1", lookups)
	}
}

// countingKeyring counts the calls that reached the keychain.
type countingKeyring struct {
	keyringAPI
	n atomic.Int32
}

func (c *countingKeyring) Get(s, u string) (string, error) { c.n.Add(1); return c.keyringAPI.Get(s, u) }
func (c *countingKeyring) Set(s, u, p string) error        { c.n.Add(1); return c.keyringAPI.Set(s, u, p) }
func (c *countingKeyring) Delete(s, u string) error        { c.n.Add(1); return c.keyringAPI.Delete(s, u) }

// TestOSStore_HungKeychainNotPiledOn_FakeBlockingKeyring: once a call has
// timed out and is still stuck in the keychain, later calls (gw serve asks
// every few seconds) give up at once instead of starting another goroutine
// and D-Bus connection; when the stuck call ends the store works again.
func TestOSStore_HungKeychainNotPiledOn_FakeBlockingKeyring(t *testing.T) {
	release := make(chan struct{})
	kr := &countingKeyring{keyringAPI: blockingKeyring{release: release}}
	s := newOS(kr, 10*time.Millisecond, func() string { return "Secret Service" })
	var te *TimeoutError
	if _, err := s.Get("default"); !errors.As(err, &te) {
		t.Fatalf("first Get: %v, want *TimeoutError", err)
	}
	for range 5 {
		_, err := s.Get("default")
		if r, _ := remedy.Of(err); !errors.As(err, &te) || r.Do != remedy.RepairKeychain {
			t.Fatalf("Get while stuck: %v, want *TimeoutError", err)
		}
		if err := s.Set("default", "sk-secretvalue"); !errors.As(err, &te) {
			t.Fatalf("Set while stuck: %v, want *TimeoutError", err)
		}
	}
	if n := kr.n.Load(); n != 1 {
		t.Fatalf("%d calls reached the hung keychain, want 1", n)
	}

	close(release) // the keychain answers again
	var err error
	for range 1000 {
		if _, err = s.Get("default"); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Get after the keychain recovered: %v", err)
	}
	if n := kr.n.Load(); n != 2 {
		t.Errorf("%d calls reached the keychain, want 2 (the stuck one and the one after it ended)", n)
	}
}

// The renderer knows no keychain: each source is given to it as a remedy.Source, GW_API_KEY by its name, so a
// fix says to change the variable rather than store another key while it is set.
func TestSourceFix(t *testing.T) {
	for src, want := range map[Source]remedy.Source{
		SourceEnv:      {Kind: remedy.FromEnv, Name: "GW_API_KEY"},
		SourceFile:     {Kind: remedy.FromFile},
		SourceKeychain: {Kind: remedy.FromStore},
		"":             {},
	} {
		if got := src.Fix(); got != want {
			t.Errorf("%q.Fix() = %+v, want %+v", src, got, want)
		}
	}
}
