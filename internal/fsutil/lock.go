package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Lock is an exclusive lock that other gw processes (and other goroutines that took their own Lock)
// honour: flock on Unix, LockFileEx on Windows, on a lock file.
type Lock struct {
	f    *os.File
	path string
}

// LockPath is the lock file of the file at path: a hidden ".<name>.lock" beside it.
func LockPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".lock")
}

// Acquire blocks until it holds the lock file at lockPath, creating it (mode 0600, and its directory,
// 0700) when missing. The lock file is never opened through a symlink or as anything but a regular file:
// a planted link (to a file outside, or dangling, to make gw create its target) is refused with a
// *NotRegularError. A lock file of another user (left by a run as root) is opened read-only, which is
// enough to lock it.
func Acquire(lockPath string) (*Lock, error) {
	return acquire(lockPath, func(f *os.File) (bool, error) { return true, lockFile(f) })
}

// ErrLockBusy: AcquireWithin did not get the lock in time.
var ErrLockBusy = errors.New("the lock is held by another process")

// AcquireWithin is Acquire that waits at most wait for a lock another process holds (checking every few
// milliseconds), then fails with ErrLockBusy.
func AcquireWithin(lockPath string, wait time.Duration) (*Lock, error) {
	deadline := time.Now().Add(wait)
	return acquire(lockPath, func(f *os.File) (bool, error) {
		for {
			ok, err := tryLockFile(f)
			if ok || err != nil {
				return ok, err
			}
			if time.Now().After(deadline) {
				return false, ErrLockBusy
			}
			time.Sleep(lockPoll)
		}
	})
}

// lockPoll is how often AcquireWithin tries again.
const lockPoll = 10 * time.Millisecond

// acquire takes the lock file at lockPath with lock, which reports whether it locked f.
func acquire(lockPath string, lock func(*os.File) (bool, error)) (*Lock, error) {
	if _, err := MkdirAll(filepath.Dir(lockPath), 0o700); err != nil {
		return nil, err
	}
	// The holder before us may have removed the file (ReleaseAndRemove) while we waited on it: a lock on
	// a file no longer at lockPath orders nothing, so take the one that is there now.
	for range 100 {
		f, err := openLockFile(lockPath)
		if err != nil {
			return nil, err
		}
		if ok, err := lock(f); !ok || err != nil {
			f.Close()
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Lstat(lockPath)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &Lock{f: f, path: lockPath}, nil
		}
		_ = unlockFile(f)
		f.Close()
	}
	return nil, fmt.Errorf("the lock file %s keeps being replaced; check what else writes there", lockPath)
}

func openLockFile(name string) (*os.File, error) {
	if li, err := os.Lstat(name); err == nil && !li.Mode().IsRegular() {
		return nil, linkError(OpLock, name, li.Mode())
	}
	flags := os.O_CREATE | noFollow | readFlags
	f, err := createExclusive(name, 0o600)
	if err == nil {
		if owner := newFileOwner(filepath.Dir(name)); owner != nil {
			_ = chownLike(f, owner) // a lock file root creates in the user's directory stays usable by them
		}
		return f, nil
	}
	f, err = os.OpenFile(name, os.O_RDWR|flags, 0o600)
	if errors.Is(err, fs.ErrPermission) {
		f, err = os.OpenFile(name, os.O_RDONLY|flags, 0o600)
	}
	if err != nil {
		if isLoop(err) {
			return nil, &NotRegularError{Op: OpLock, Path: name, Mode: fs.ModeSymlink}
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("cannot write in %s: %w; check the directory's permissions", filepath.Dir(name), fs.ErrPermission)
		}
		return nil, OSReason(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, OSReason(err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, linkError(OpLock, name, fi.Mode())
	}
	return f, nil
}

// Unlock unlocks but keeps the lock file open, for Relock: a lock taken
// again and again (once per line of a log) costs one system call each way
// instead of opening and checking the file every time.
func (l *Lock) Unlock() error { return unlockFile(l.f) }

// Relock takes again a lock released by Unlock. It does not check that the
// lock file is still the one at its path (Acquire does): call Current
// where that matters.
func (l *Lock) Relock() error { return lockFile(l.f) }

// Current reports whether the file locked is still the one at the lock's
// path (nobody removed or replaced it since).
func (l *Lock) Current() bool {
	held, err1 := l.f.Stat()
	now, err2 := os.Lstat(l.path)
	return err1 == nil && err2 == nil && os.SameFile(held, now)
}

// Release unlocks; the lock file stays for the next run.
func (l *Lock) Release() {
	_ = unlockFile(l.f)
	_ = l.f.Close()
}

// ReleaseAndRemove removes the lock file, then unlocks: for a lock file in a directory the user keeps
// (a project's), where a stray one would be noticed and committed. Acquire makes this safe: a waiter
// that then gets the removed file's lock notices and takes the new file's. (Windows cannot remove an
// open file: there the lock file stays.)
func (l *Lock) ReleaseAndRemove() {
	if cur, err := os.Lstat(l.path); err == nil {
		if held, err := l.f.Stat(); err == nil && os.SameFile(held, cur) {
			_ = os.Remove(l.path)
		}
	}
	l.Release()
}
