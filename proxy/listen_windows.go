//go:build windows

package proxy

import (
	"errors"
	"net/netip"
	"syscall"
)

// WSAEADDRINUSE: Windows reports a taken port with its own error number.
const wsaeaddrinuse = syscall.Errno(10048)

func isAddrInUse(err error) bool {
	return errors.Is(err, wsaeaddrinuse) || errors.Is(err, syscall.EADDRINUSE)
}

func portHolder(port int) string { return "" }

// foreignHolder: Windows offers no cheap way to find a socket's owner; the
// proof of Probe stands alone there.
func foreignHolder(ip netip.Addr, port int) string { return "" }
