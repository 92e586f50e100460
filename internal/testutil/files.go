package testutil

import (
	"os"
	"testing"
	"time"
)

// Within runs fn and fails the test if fn has not returned within d: a read that waits on a named pipe or
// reads /dev/zero must fail its test, not hang it. It bounds the test; the outcome is what fn asserts.
func Within(t testing.TB, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s (it waits on the file, or reads it without end)", what, d)
	}
}

// Sparse creates path as a file of size bytes that takes no disk space: a huge config file.
func Sparse(t testing.TB, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// Symlink creates link pointing at target, or skips the test where symlinks cannot be made.
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}
