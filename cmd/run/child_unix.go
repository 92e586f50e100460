//go:build unix

package run

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// forwarded are the signals gw passes on to the agent.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGWINCH, syscall.SIGQUIT}

// runChild runs the agent to its end and returns its status (128+N when signal N ended it); err is only
// for an agent that could not be started.
//
// On a terminal the agent gets it whole: it runs in a process group of its own that becomes the
// terminal's foreground group, so the keys that make signals (ctrl-c, ctrl-\, ctrl-z) and window size
// changes reach the agent alone, once; gw, in the background, prints nothing. Signals sent to gw itself
// (kill, a closed terminal's SIGHUP) are passed on. Once the agent has ended gw takes the terminal back
// and restores its modes, should the agent have left it raw. Without a terminal the agent stays in gw's
// process group (so that whatever ends the group ends both) and signals sent to gw alone are passed on.
// Should gw die without passing anything on (SIGKILL), the agent gets SIGTERM on Linux (endWithGw).
func runChild(cmd *exec.Cmd) (int, error) {
	tty := -1
	if f, ok := cmd.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		// Only when gw has the terminal itself: started in the background (gw run … &), taking it would
		// take it from the shell.
		if pg, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP); err == nil && pg == unix.Getpgrp() {
			tty = int(f.Fd())
		}
	}
	var state *term.State
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Held until the agent has ended: the parent-death signal is tied to the thread that starts it.
	defer endWithGw(cmd.SysProcAttr)()
	if tty >= 0 {
		state, _ = term.GetState(tty)
		cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, tty
		// Taking the terminal back from the background is refused with SIGTTOU unless it is ignored.
		signal.Ignore(syscall.SIGTTOU)
		defer signal.Reset(syscall.SIGTTOU)
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)

	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	forwarding := make(chan struct{})
	go func() {
		defer close(forwarding)
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-forwarding
	if tty >= 0 {
		_ = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
		if state != nil {
			_ = term.Restore(tty, state)
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 0, err
}
