//go:build unix

package autostart

import (
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDetach_OwnSession: a detached process leads a session of its own, so the terminal and process group
// of the agent that started it (its hang-up, its ctrl-c) do not reach it.
func TestDetach_OwnSession(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	Detach(cmd)
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep here:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sid, err := unix.Getsid(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if sid != cmd.Process.Pid {
		t.Errorf("session %d, want its own (%d)", sid, cmd.Process.Pid)
	}
	if mine, _ := unix.Getsid(0); sid == mine {
		t.Errorf("in the starter's session %d", mine)
	}
}
