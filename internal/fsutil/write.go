package fsutil

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// StaleTempAge: a temporary file of gw's older than this is what a killed run left behind (a write takes
// well under a second), and the next write of the same file removes it.
const StaleTempAge = 10 * time.Minute

// WriteAtomic replaces path with data so that readers see either the old or the new content, never a
// torn file: a temporary file is created in the same directory (O_EXCL|O_NOFOLLOW: never an existing
// file, never through a link planted under its name), written with mode perm, given the owner and group
// of the file it replaces (where the OS lets it: a root run of gw leaves the user's file theirs; a new
// file created by root gets its directory's), synced and renamed over path; it is removed if any step
// fails. Missing parent directories are created with mode 0700 (see MkdirAll). If path is a symlink (dotfile managers), the file it points to is replaced and the link
// kept: that target is the user's own choice. Something other than a regular file there (a directory, a
// device, a named pipe) is refused with a *NotRegularError, nothing written. Callers that keep an
// existing file's mode pass that mode as perm. Temporary files of path older than StaleTempAge, left by
// a killed run, are removed afterwards (regular files only; links are left alone).
//
// Errors name the file or directory and the OS reason, not the temporary file, which the user never sees.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	return writeFrom(OpReplace, path, perm, nil, fillWith(data))
}

// WriteBackup writes data to path, a backup gw keeps beside a file it changes, atomically as WriteAtomic
// does but never through a symlink: a link, a directory or anything else that is not a regular file at
// path is refused with a *NotRegularError and nothing is written (a repository may ship
// opencode.json.bak as a link to the user's ~/.bashrc). A regular file there, an older backup, is
// replaced. The backup gets mode perm and the owner and group of like (the file it backs up), when like
// is not nil.
func WriteBackup(path string, data []byte, perm fs.FileMode, like fs.FileInfo) error {
	li, err := os.Lstat(path)
	if err == nil && !li.Mode().IsRegular() {
		return linkError(OpBackup, path, li.Mode())
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot inspect %s: %w", path, OSReason(err))
	}
	return writeFrom(OpBackup, path, perm, like, fillWith(data))
}

// fillWith is the fill of writeFrom that writes data.
func fillWith(data []byte) func(*os.File) error {
	return func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}
}

// writeFrom replaces path itself (a link at path is replaced, never followed: rename acts on the name) with
// the content written by fill into the temporary file.
func writeFrom(op, path string, perm fs.FileMode, like fs.FileInfo, fill func(*os.File) error) error {
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if _, err := MkdirAll(dir, 0o700); err != nil {
		return err
	}
	li, err := os.Lstat(path)
	switch {
	case err == nil && li.Mode().IsRegular():
		if like == nil {
			like = li
		}
	case err == nil && op == OpReplace && li.Mode()&fs.ModeSymlink != 0:
		// A dangling link (WriteAtomic follows the others): the rename replaces the link itself.
	case err == nil:
		return linkError(op, path, li.Mode())
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot inspect %s: %w", path, OSReason(err))
	case like == nil:
		like = newFileOwner(dir)
	}
	tmp, err := createTemp(dir, base)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("cannot write in %s: %w; check the directory's permissions", dir, fs.ErrPermission)
		}
		return fmt.Errorf("cannot write in %s: %w", dir, OSReason(err))
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := fill(tmp); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, OSReason(err))
	}
	if like != nil {
		if err := chownLike(tmp, like); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, OSReason(err))
		}
	}
	// After chown, which may clear set-id bits: Chmod makes perm exact regardless of umask.
	if err := tmp.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("cannot write %s: %w", path, OSReason(err))
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, OSReason(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, OSReason(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot replace %s: %w", path, OSReason(err))
	}
	done = true
	syncDir(dir)
	RemoveStaleTemps(path, StaleTempAge)
	return nil
}

// tempPrefix is the name of path's temporary files, before a random suffix: ".<name>.tmp-".
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// createTemp creates a new file ".<base>.tmp-<random>" in dir, mode 0600, with O_EXCL|O_NOFOLLOW: an
// existing file or a link under that name is never opened, and another name is tried.
func createTemp(dir, base string) (*os.File, error) {
	var err error
	for range 100 {
		name := filepath.Join(dir, tempPrefix(base)+strconv.FormatUint(rand.Uint64(), 36))
		var f *os.File
		if f, err = createExclusive(name, 0o600); err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, err
}

// createExclusive creates name, which must not exist in any form (a dangling link counts as existing).
func createExclusive(name string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, perm)
}

// RemoveStaleTemps removes the temporary files of path (".<name>.tmp-*" beside it) older than age: what a
// run killed between creating and renaming one left behind. Only regular files go; a link under such a
// name is left alone, its target untouched. Best effort: errors are ignored.
func RemoveStaleTemps(path string, age time.Duration) {
	dir, base := filepath.Split(path)
	dir = cmp.Or(dir, ".")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	cutoff := time.Now().Add(-age)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || len(e.Name()) == len(prefix) {
			continue
		}
		name := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(cutoff) {
			continue
		}
		// Remove acts on the name: had it become a link since Lstat, the link would go, not its target.
		_ = os.Remove(name)
	}
}

// syncDir makes the rename durable. Best effort: not every platform or file system supports syncing a
// directory, and the data is already safe.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	_ = d.Sync()
}
