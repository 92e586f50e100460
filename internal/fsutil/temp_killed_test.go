//go:build unix

package fsutil

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdTempEnv makes TestHelperProcess_HoldPrivateTemp make a private temporary directory, say its path and
// wait to be killed.
const holdTempEnv = "GW_TEST_HOLD_PRIVATE_TEMP"

// A gw run killed with SIGKILL (no deferred Remove runs) leaves its private temporary directory and the lock
// file beside it, but not the lock: RemoveStalePrivateTemps then removes both, while the directory of a
// process still alive stays.
func TestRemoveStalePrivateTemps_HolderKilled(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	start := func() (*exec.Cmd, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess_HoldPrivateTemp$")
		cmd.Env = append(os.Environ(), holdTempEnv+"=1")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "held ") {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the holder said %q, %v", line, err)
		}
		return cmd, strings.TrimSpace(strings.TrimPrefix(line, "held "))
	}
	killed, killedDir := start()
	alive, aliveDir := start()
	defer func() { _ = alive.Process.Kill(); _ = alive.Wait() }()
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	if !fileExists(filepath.Join(killedDir, "settings.json")) || !fileExists(killedDir+lockSuffix) {
		t.Fatal("the killed holder's directory is gone: the test shows nothing")
	}
	removed := RemoveStalePrivateTemps("gw-run-")
	if !slices.Equal(removed, []string{killedDir}) {
		t.Errorf("removed %q, want only the killed holder's %s", removed, killedDir)
	}
	if fileExists(killedDir) || fileExists(killedDir+lockSuffix) {
		t.Errorf("the killed holder's directory or lock file is still there")
	}
	if !fileExists(filepath.Join(aliveDir, "settings.json")) {
		t.Errorf("the directory of a holder still running was removed")
	}
}

// TestHelperProcess_HoldPrivateTemp is the holder of TestRemoveStalePrivateTemps_HolderKilled, in a process
// of its own; it does nothing in a normal test run.
func TestHelperProcess_HoldPrivateTemp(t *testing.T) {
	if os.Getenv(holdTempEnv) == "" {
		t.Skip("the helper process of TestRemoveStalePrivateTemps_HolderKilled")
	}
	p, err := NewPrivateTemp("gw-run-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "settings.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("held " + p.Dir + "\n")
	time.Sleep(time.Minute)
	t.Fatal("not killed")
}
