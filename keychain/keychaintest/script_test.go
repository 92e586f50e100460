package keychaintest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// scripts/with-keyring.sh leaves no daemon behind when its command is killed, or when it is itself
// terminated (as a test runner or a CI job stops it): the bus and the keyring daemon of that session are
// gone, and so is its temporary directory.
func TestWithKeyringScript_LeavesNoDaemon(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1" {
				t.Fatalf("%s is not installed (GW_REQUIRE_REAL_KEYCHAIN=1)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	script := filepath.Join(RepoRoot(t), "scripts", "with-keyring.sh")

	for _, tc := range []struct {
		name string
		kill func(t *testing.T, script *os.Process, cmdPID int)
	}{
		{"command killed", func(t *testing.T, _ *os.Process, cmdPID int) {
			if err := testutil.Kill(cmdPID); err != nil {
				t.Fatal(err)
			}
		}},
		{"script terminated", func(t *testing.T, script *os.Process, _ int) {
			if err := script.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every process of the session inherits this TMPDIR: that is how its daemons are found.
			tmp := t.TempDir()
			pidFile := filepath.Join(tmp, "cmd.pid")
			cmd := exec.Command(script, "bash", "-c", `echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 300`, pidFile)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				for _, pid := range sessionProcesses(tmp) {
					testutil.Kill(pid)
				}
				cmd.Process.Kill()
			})

			deadline := time.Now().Add(30 * time.Second)
			var cmdPID int
			for cmdPID == 0 {
				if data, err := os.ReadFile(pidFile); err == nil {
					cmdPID, _ = strconv.Atoi(strings.TrimSpace(string(data)))
				}
				select {
				case err := <-exited:
					t.Fatalf("the script ended before its command ran: %v; stderr:\n%s", err, &stderr)
				case <-time.After(20 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("the command did not start; stderr:\n%s", &stderr)
				}
			}
			if daemons := sessionProcesses(tmp); len(daemons) < 3 {
				t.Fatalf("found %d processes of the session (%v), want the script, the bus, the keyring daemon and the command: is the test looking in the right place?", len(daemons), daemons)
			}

			tc.kill(t, cmd.Process, cmdPID)
			select {
			case <-exited:
			case <-time.After(time.Until(deadline)):
				t.Fatalf("the script did not end; stderr:\n%s", &stderr)
			}
			for left := sessionProcesses(tmp); len(left) > 0; left = sessionProcesses(tmp) {
				if time.Now().After(deadline) {
					t.Fatalf("left running after the script ended: %s", describe(left))
				}
				time.Sleep(20 * time.Millisecond)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) > 1 { // the command's pid file stays
				t.Errorf("left behind in TMPDIR: %v", entries)
			}
		})
	}
}

// sessionProcesses lists the live processes whose environment holds TMPDIR=tmp.
func sessionProcesses(tmp string) []int {
	want := []byte("\x00TMPDIR=" + tmp + "\x00")
	dirs, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil {
			continue // gone, or not ours
		}
		if bytes.Contains(append([]byte{0}, env...), want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func describe(pids []int) string {
	var s []string
	for _, pid := range pids {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		s = append(s, strconv.Itoa(pid)+" "+strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
	}
	return strings.Join(s, "; ")
}
