//go:build !windows

package autostart

// Only Windows gives a program started at login a console window of its own.
func consoleProcesses() (int, error) { return 0, nil }

func freeConsole() error { return nil }
