//go:build !unix

package testutil

import "testing"

// Mkfifo: no named pipes in this file system; the test is skipped.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("no named pipes in the file system here")
}

// Nobody is the uid and gid tests give a file to make it another user's.
const Nobody = 65534

// RequireRoot: no Unix owners here; the test is skipped.
func RequireRoot(t testing.TB) {
	t.Helper()
	t.Skip("no Unix file owners here")
}

// Owner: not reached (RequireRoot skips first).
func Owner(t testing.TB, path string) (uid, gid int) {
	t.Helper()
	t.Skip("no Unix file owners here")
	return 0, 0
}
