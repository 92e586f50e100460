//go:build unix

package testutil

import (
	"os"
	"syscall"
	"testing"
)

// Mkfifo creates a named pipe at path (skips where there are none).
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Nobody is the uid and gid tests give a file to make it another user's.
const Nobody = 65534

// RequireRoot skips the test unless it runs as root (CI runs the tests as root): giving a file to another
// user needs it.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a file another user's")
	}
}

// Owner is the uid and gid of path (not following a link).
func Owner(t testing.TB, path string) (uid, gid int) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}
