package fsutil

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestAcquireWithin_GivesUpOnAHeldLockThenTakesAFreeOne: a lock another holder keeps past the bound is an
// ErrLockBusy, not a hang; once released it is taken.
func TestAcquireWithin_GivesUpOnAHeldLockThenTakesAFreeOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".x.lock")
	held, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := AcquireWithin(path, 30*time.Millisecond); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("AcquireWithin a held lock = %v, %v; want ErrLockBusy", l, err)
	}
	held.Release()
	l, err := AcquireWithin(path, time.Second)
	if err != nil {
		t.Fatalf("AcquireWithin a free lock: %v", err)
	}
	l.Release()
}
