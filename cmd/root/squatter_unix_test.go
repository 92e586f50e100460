//go:build unix

package root

import (
	"os/exec"
	"syscall"
)

// asUser makes cmd run as the user (and the group of the same number) uid; only root may.
func asUser(cmd *exec.Cmd, uid int) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
}
