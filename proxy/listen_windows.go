//go:build windows

package proxy

import (
	"errors"
	"syscall"
)

// WSAEADDRINUSE: Windows reports a taken port with its own error number.
const wsaeaddrinuse = syscall.Errno(10048)

func isAddrInUse(err error) bool {
	return errors.Is(err, wsaeaddrinuse) || errors.Is(err, syscall.EADDRINUSE)
}

func portHolder(port int) string { return "" }
