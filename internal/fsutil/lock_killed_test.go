//go:build unix

package fsutil

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// holdLockEnv makes TestHelperProcess_HoldLock take the lock at its value and wait to be killed.
const holdLockEnv = "GW_TEST_HOLD_LOCK"

// A gw killed (SIGKILL, or a crash: no deferred Release runs) while it holds a lock leaves the lock file
// but not the lock: the kernel releases it with the process, so the next run takes it at once, and a
// project's lock file is gone after that run (ReleaseAndRemove).
func TestAcquire_HolderKilledIsTakenOver(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), ".settings.local.json.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess_HoldLock$")
	cmd.Env = append(os.Environ(), holdLockEnv+"="+lockPath)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the holder said %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !fileExists(lockPath) {
		t.Fatal("the killed holder's lock file is gone: the test shows nothing")
	}
	testutil.Within(t, 10*time.Second, "Acquire after the holder was killed", func() {
		l, err := Acquire(lockPath)
		if err != nil {
			t.Error(err)
			return
		}
		l.ReleaseAndRemove()
	})
	if fileExists(lockPath) {
		t.Fatal("the lock file was left behind by the run after the killed one")
	}
}

// TestHelperProcess_HoldLock is the holder of TestAcquire_HolderKilledIsTakenOver, in a process of its
// own; it does nothing in a normal test run.
func TestHelperProcess_HoldLock(t *testing.T) {
	path := os.Getenv(holdLockEnv)
	if path == "" {
		t.Skip("the helper process of TestAcquire_HolderKilledIsTakenOver")
	}
	if _, err := Acquire(path); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
	t.Fatal("not killed")
}
