//go:build unix && !linux

package run

import "syscall"

// endWithGw does nothing here: only Linux has a parent-death signal. An agent whose gw run is killed
// with SIGKILL keeps running without its gw serve until it ends (a gw run ended any other way ends the
// agent first).
func endWithGw(*syscall.SysProcAttr) (release func()) { return func() {} }
