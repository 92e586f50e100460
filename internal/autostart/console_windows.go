package autostart

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procGetConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	procFreeConsole           = kernel32.NewProc("FreeConsole")
)

// consoleProcesses is how many processes are attached to this process's console, 0 when it has none.
func consoleProcesses() (int, error) {
	if err := procGetConsoleProcessList.Find(); err != nil {
		return 0, err
	}
	// The list must have room for at least one; the count is returned even when it has no room for all.
	var pids [4]uint32
	n, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	return int(n), nil
}

// freeConsole detaches from the console and points the standard handles (and os.Stdin, os.Stdout,
// os.Stderr) at NUL: the console's handles are gone, and a handle value left in their place could later
// name a file or socket gw opens, which a stray write to standard error would then reach.
func freeConsole() error {
	if err := procFreeConsole.Find(); err != nil {
		return err
	}
	if r, _, err := procFreeConsole.Call(); r == 0 {
		return fmt.Errorf("FreeConsole: %w", err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	for _, h := range []uint32{windows.STD_INPUT_HANDLE, windows.STD_OUTPUT_HANDLE, windows.STD_ERROR_HANDLE} {
		if err := windows.SetStdHandle(h, windows.Handle(null.Fd())); err != nil {
			return fmt.Errorf("SetStdHandle: %w", err)
		}
	}
	os.Stdin, os.Stdout, os.Stderr = null, null, null
	return nil
}
