//go:build unix

package root

import (
	"errors"
	"os/exec"
	"syscall"
)

// asUser makes cmd run as the user (and the group of the same number) uid; only root may.
func asUser(cmd *exec.Cmd, uid int) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
}

// textBusy reports a program that could not start because a file descriptor
// open for writing it was still held by another process: a child another
// test forked while the copy was being written holds it until its exec.
func textBusy(err error) bool { return errors.Is(err, syscall.ETXTBSY) }
