package autostart

import (
	"errors"
	"runtime"
	"testing"
)

// TestDetachConsole_OnlyWhenItsTheConsolesOneProcess_WindowsCannotRunHere checks the decision behind gw serve
// --background with the Windows calls (GetConsoleProcessList, FreeConsole) replaced, as no Windows console
// exists here: gw lets go of a console only when it is the one process attached to it (the window Windows
// opened for the logon task), never of a terminal it shares with the user's shell, nor when it has none.
func TestDetachConsole_OnlyWhenItsTheConsolesOneProcess_WindowsCannotRunHere(t *testing.T) {
	for _, c := range []struct {
		name      string
		processes int
		countErr  error
		freeErr   error
		detached  bool
		wantErr   bool
	}{
		{name: "the task's own console window", processes: 1, detached: true},
		{name: "typed in a terminal (the shell is attached too)", processes: 2},
		{name: "a terminal with a shell and a pipeline", processes: 4},
		{name: "no console at all", processes: 0},
		{name: "the count fails", processes: 1, countErr: errors.New("no"), wantErr: true},
		{name: "FreeConsole fails", processes: 1, freeErr: errors.New("no"), detached: true, wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			freed := false
			detached, err := detachConsole(
				func() (int, error) { return c.processes, c.countErr },
				func() error { freed = true; return c.freeErr })
			if detached != c.detached || freed != c.detached || (err != nil) != c.wantErr {
				t.Errorf("detached %v, FreeConsole called %v, err %v; want detached %v, error %v", detached, freed, err, c.detached, c.wantErr)
			}
		})
	}
}

// TestDetachConsole_NothingToDoOffWindows: on Linux and macOS no console is ever given up.
func TestDetachConsole_NothingToDoOffWindows(t *testing.T) {
	if runtime.GOOS == Windows {
		t.Skip("on Windows the real console is asked")
	}
	if detached, err := DetachConsole(); detached || err != nil {
		t.Errorf("DetachConsole() = %v, %v off Windows", detached, err)
	}
}
