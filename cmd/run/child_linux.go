package run

import (
	"runtime"
	"syscall"
)

// endWithGw makes the kernel send the agent SIGTERM when gw dies, however it dies (SIGKILL, the OOM
// killer, a crash): the agent must not outlive the gw serve gw run started for it, talking to nothing.
// SIGTERM, not SIGKILL, so that the agent can put the terminal back as it ends (every agent gw runs ends
// on it). The kernel sends it when the *thread* that started the agent ends, not the process: the
// caller must hold that thread (runtime.LockOSThread) from the start until the agent has ended, and the
// returned function releases it.
func endWithGw(attr *syscall.SysProcAttr) (release func()) {
	runtime.LockOSThread()
	attr.Pdeathsig = syscall.SIGTERM
	return runtime.UnlockOSThread
}
