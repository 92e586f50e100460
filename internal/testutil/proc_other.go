//go:build !unix

package testutil

import (
	"os"
	"os/exec"
)

// OwnProcessGroup: no process groups here; cmd starts as it would.
func OwnProcessGroup(cmd *exec.Cmd) {}

// CancelKillsGroup: no process groups here; the end of cmd's context kills cmd alone.
func CancelKillsGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return KillGroup(cmd) }
}

// KillGroup: no process groups here; it kills cmd's process alone.
func KillGroup(cmd *exec.Cmd) error {
	return cmd.Process.Kill()
}

// Kill kills the process pid.
func Kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
