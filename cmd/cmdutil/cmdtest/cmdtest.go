// Package cmdtest builds what command tests run with: test IO streams, an isolated config dir, an in-memory
// fake of the OS keychain, and the stand-in of the service on loopback, in a Factory whose methods a test
// hands to the one command options field each (Key: e.Factory.Key), so a test fakes only what the command
// uses. Only tests import it.
package cmdtest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
	"github.com/modelgateway/gw/tui"
)

// Env is what a command test works with.
type Env struct {
	Factory *cmdutil.Factory
	IO      *tui.IOStreams // Factory.IOStreams, writing to In, Out and ErrOut
	In      *bytes.Buffer
	Out     *bytes.Buffer
	ErrOut  *bytes.Buffer
	Keyring *FakeKeyring
	Vars    map[string]string
	Dir     string
}

// New returns a factory whose config and state live under t.TempDir() and whose keychain is a FakeKeyring.
func New(t testing.TB) *Env {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{
		"HOME":            filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "home", ".config"),
		"XDG_STATE_HOME":  filepath.Join(dir, "home", ".local", "state"),
	}
	getenv := func(k string) string { return vars[k] }
	ios, in, out, errOut := tui.Test()
	kr := &FakeKeyring{keys: map[string]string{}}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(transport.CloseIdleConnections)
	f := &cmdutil.Factory{
		IOStreams: ios,
		Getenv:    getenv,
		WorkDir:   func() (string, error) { return dir, nil },
		Version:   "test",
		Keyring:   func() keychain.Store { return kr },
		Transport: func() http.RoundTripper { return transport },
	}
	return &Env{Factory: f, IO: ios, In: in, Out: out, ErrOut: errOut, Keyring: kr, Vars: vars, Dir: dir}
}

// StartService starts the stand-in of the service with the demo accounts and points GW_BASE_URL at it.
func (e *Env) StartService(t testing.TB, opts standin.Options) *httptest.Server {
	t.Helper()
	if opts.Accounts == nil {
		opts.Accounts = standin.DefaultAccounts()
	}
	srv := httptest.NewServer(standin.New(opts))
	t.Cleanup(srv.Close)
	e.Vars["GW_BASE_URL"] = srv.URL + "/v1"
	return srv
}

// FakeKeyring is an in-memory fake of the OS keychain (the real one is tested in keychain and cmd/root).
type FakeKeyring struct {
	mu   sync.Mutex
	keys map[string]string
	Err  error // when set, every call fails with it
}

func (k *FakeKeyring) Get(account string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.Err != nil {
		return "", k.Err
	}
	v, ok := k.keys[account]
	if !ok {
		return "", keychain.ErrNotFound
	}
	return v, nil
}

func (k *FakeKeyring) Set(account, key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.Err != nil {
		return k.Err
	}
	k.keys[account] = key
	return nil
}

func (k *FakeKeyring) Delete(account string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.Err != nil {
		return k.Err
	}
	if _, ok := k.keys[account]; !ok {
		return keychain.ErrNotFound
	}
	delete(k.keys, account)
	return nil
}

func (k *FakeKeyring) Backend() string { return "fake keychain (tests)" }
