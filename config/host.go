package config

import (
	"net"
	"strings"
)

// IsLoopbackHost reports whether host (a URL's Hostname(), or an address to listen on) is this machine
// only: localhost, in any case, or a loopback IP (127.0.0.0/8, ::1).
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
