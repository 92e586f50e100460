//go:build unix

package testutil

import (
	"os/exec"
	"syscall"
)

// OwnProcessGroup starts cmd (not yet started) in a process group of its own, so that KillGroup ends
// everything it starts (an agent's language servers, a gw serve it spawned) along with it.
func OwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// CancelKillsGroup makes the end of cmd's context (cmd made by exec.CommandContext, not yet started) kill
// cmd's whole process group, not cmd alone; cmd must be in a group of its own (OwnProcessGroup).
func CancelKillsGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return KillGroup(cmd) }
}

// KillGroup kills the process group of cmd, started in a group of its own (OwnProcessGroup).
func KillGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// Kill kills the process pid.
func Kill(pid int) error {
	return syscall.Kill(pid, syscall.SIGKILL)
}
