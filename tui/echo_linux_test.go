package tui

import "golang.org/x/sys/unix"

// echoOn reports whether the terminal on fd echoes input; known is false when it cannot tell.
func echoOn(fd int) (on, known bool) {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return false, false
	}
	return t.Lflag&unix.ECHO != 0, true
}
