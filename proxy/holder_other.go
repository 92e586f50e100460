//go:build !linux && !darwin && !windows

package proxy

// portHolder: this OS offers no simple way to find the listening process.
func portHolder(port int) string { return "" }
