//go:build !linux && !darwin && !windows

package proxy

import "net/netip"

// portHolder: this OS offers no simple way to find the listening process.
func portHolder(port int) string { return "" }

// foreignHolder: this OS offers no cheap way to find a socket's owner.
func foreignHolder(ip netip.Addr, port int) string { return "" }
