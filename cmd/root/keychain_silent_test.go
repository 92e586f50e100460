package root

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/standin"
	"github.com/modelgateway/gw/tui"
)

// silentBus is a unix socket that accepts connections and never answers: a session bus that hangs. It
// closes every connection when the test ends, which releases the calls still waiting on it.
func silentBus(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gwbus") // short: a unix socket path is limited to about 100 bytes
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bus")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		os.RemoveAll(dir)
	})
	return "unix:path=" + path
}

// TestSilentKeychain_FakeDBusSocket: the session bus is a fake socket that accepts and never answers. Each
// command that uses the OS keychain answers within one keychain time-out (3 s), naming the keychain: all
// its keychain calls, the lookup of the backend's name included, share one deadline. Before, the name
// lookup waited 3 s more after the keychain call had timed out (6 s). The 5 s bound is a generous limit on
// the wait, not a measurement.
func TestSilentKeychain_FakeDBusSocket(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
	default:
		t.Skipf("the Secret Service over D-Bus is the keychain on Linux and the BSDs, not on %s", runtime.GOOS)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", silentBus(t))
	s := standin.Start(standin.Options{Accounts: standin.DefaultAccounts()})
	t.Cleanup(s.Close)
	home := t.TempDir()
	for k, v := range map[string]string{
		"GW_BASE_URL": s.BaseURL, "GW_API_KEY": "", "HOME": home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state"),
		"GW_CONFIG_DIR": "", "GW_STATE_DIR": "",
	} {
		t.Setenv(k, v)
	}

	const bound = 5 * time.Second
	for _, tc := range []struct {
		args  []string
		stdin string
		want  []string // in stdout and stderr together
	}{
		{[]string{"auth", "login", "--with-key"}, standin.DemoKeyFull,
			[]string{"could not store the key in the OS keychain (Secret Service)", "did not answer within 3s while storing the key"}},
		{[]string{"auth", "logout"}, "",
			[]string{"could not remove the key from Secret Service", "did not answer within 3s while deleting the key"}},
		{[]string{"doctor", "--no-probe"}, "",
			[]string{"key storage", "Secret Service did not answer within 3s while reading the key"}},
	} {
		name := strings.Join(tc.args, " ")
		t.Run(name, func(t *testing.T) {
			f := cmdutil.NewFactory("test", "")
			ios, in, out, errOut := tui.Test()
			in.WriteString(tc.stdin)
			f.IOStreams = ios
			done := make(chan cmdutil.ExitCode, 1)
			go func() { done <- Run(context.Background(), f, tc.args) }()
			var code cmdutil.ExitCode
			select {
			case code = <-done:
			case <-time.After(bound):
				t.Fatalf("gw %s did not answer within %s with a silent keychain", name, bound)
			}
			all := fmt.Sprintf("%s\n%s", out, errOut)
			if code != cmdutil.ExitError {
				t.Errorf("gw %s exited %d, want %d\n%s", name, code, cmdutil.ExitError, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("gw %s does not say %q:\n%s", name, w, all)
				}
			}
			if strings.Contains(all, standin.DemoKeyFull) {
				t.Errorf("gw %s printed the key", name)
			}
		})
	}
}
