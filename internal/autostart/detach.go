package autostart

import "os/exec"

// Detach makes cmd, not yet started, a process of its own once started: on Unix the leader of a new session
// (no controlling terminal, so a terminal's hang-up does not reach it, and a signal to the process group
// that started it, an agent's ctrl-c, neither); on Windows without a console and in a process group of its
// own (ctrl-c and ctrl-break in the starter's console do not reach it). For a gw serve started on demand,
// which outlives the agent that asked for it.
func Detach(cmd *exec.Cmd) { detach(cmd) }
