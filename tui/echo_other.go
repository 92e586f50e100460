//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tui

// echoOff does nothing here: term.ReadPassword turns echo off when reading starts.
func echoOff(int) (restore func(), err error) { return func() {}, nil }
