package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Symlink makes a link at path to target, as os.Symlink does: path is a new name in a directory of gw's
// own (it never replaces what is there), and target is only named, never opened.
func Symlink(target, path string) error {
	if err := os.Symlink(target, path); err != nil {
		return fmt.Errorf("cannot link %s: %w", path, OSReason(err))
	}
	return nil
}

// PrivateTemp is a new directory in the temporary directory that only the user can enter, held for as
// long as its process uses it: a lock file beside it (its name and ".lock") is locked until Remove, and
// the system lets go of that lock when the process dies, however it dies. RemoveStalePrivateTemps removes
// the ones no process holds.
type PrivateTemp struct {
	Dir  string
	lock *Lock
}

// lockSuffix is what a private temporary directory's lock file adds to its name.
const lockSuffix = ".lock"

// NewPrivateTemp makes a PrivateTemp whose name starts with prefix (which ends in "-", as "gw-run-").
func NewPrivateTemp(prefix string) (*PrivateTemp, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, fmt.Errorf("cannot create a temporary directory: %w", OSReason(err))
	}
	lock, err := Acquire(dir + lockSuffix)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &PrivateTemp{Dir: dir, lock: lock}, nil
}

// Remove removes the directory and everything in it (links, never what they point at), then its lock.
func (p *PrivateTemp) Remove() {
	os.RemoveAll(p.Dir)
	p.lock.ReleaseAndRemove()
}

// staleUnlocked is how old a directory with no lock file beside it must be to be removed: a process
// between making the directory and locking it has a moment, not this long.
const staleUnlocked = 24 * time.Hour

// RemoveStalePrivateTemps removes the private temporary directories named prefix… that a process which
// died without removing its own (killed) left: only directories (never a link of that name, never
// followed), only the user's own, only those whose lock no process holds (or, with no lock file, a day
// old). What it cannot remove it leaves. It returns the directories it removed.
func RemoveStalePrivateTemps(prefix string) []string {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, en := range entries {
		name := en.Name()
		if !strings.HasPrefix(name, prefix) || strings.HasSuffix(name, lockSuffix) {
			continue
		}
		dir := filepath.Join(tmp, name)
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 || !ownedByMe(fi) {
			continue
		}
		lockPath := dir + lockSuffix
		li, err := os.Lstat(lockPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if time.Since(fi.ModTime()) < staleUnlocked {
				continue
			}
			if os.RemoveAll(dir) == nil {
				removed = append(removed, dir)
			}
			continue
		case err != nil || !li.Mode().IsRegular() || !ownedByMe(li):
			continue
		}
		lock, held, err := TryAcquire(lockPath)
		if err != nil || !held {
			continue // in use, or not ours to judge
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
		lock.ReleaseAndRemove()
	}
	return removed
}

// TryAcquire is Acquire without the wait: held is false when another holds the lock.
func TryAcquire(lockPath string) (l *Lock, held bool, err error) {
	f, err := openLockFile(lockPath)
	if err != nil {
		return nil, false, err
	}
	ok, err := tryLockFile(f)
	if err != nil || !ok {
		f.Close()
		return nil, false, err
	}
	held1, err1 := f.Stat()
	now, err2 := os.Lstat(lockPath)
	if err1 != nil || err2 != nil || !os.SameFile(held1, now) {
		_ = unlockFile(f)
		f.Close()
		return nil, false, nil
	}
	return &Lock{f: f, path: lockPath}, true, nil
}
