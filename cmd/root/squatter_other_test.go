//go:build !unix

package root

import "os/exec"

// asUser: no other user here; the scripts that need one are skipped ([root] is Unix's).
func asUser(cmd *exec.Cmd, uid int) {}

// textBusy: only Unix refuses to run a program open for writing.
func textBusy(error) bool { return false }
