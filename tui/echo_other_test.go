//go:build !linux

package tui

func echoOn(fd int) (on, known bool) { return false, false }
