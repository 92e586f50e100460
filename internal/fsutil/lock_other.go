//go:build !unix && !windows

package fsutil

import "os"

// lockFile: no file locks on this platform; concurrent gw commands may race.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }

func tryLockFile(*os.File) (bool, error) { return true, nil }

// ownedByMe: no owners known on this platform; nothing stale is removed.
func ownedByMe(os.FileInfo) bool { return false }
