//go:build !(linux || freebsd || openbsd || netbsd || dragonfly)

package keychain

import "runtime"

func osBackendName() string { return platformBackend(runtime.GOOS) }

func platformPrecheck() (name func() string, err error) { return nil, nil }
