package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// OpenAppend opens path for appending (a log of gw's), creating it with mode perm (and missing
// directories with 0700), never through a link: a symlink, a directory or anything else that is not a
// regular file at path is refused with a *NotRegularError (OpAppend) and nothing is written. A log
// symlinked to the user's ~/.bashrc would otherwise have every line appended there. The open itself is
// O_NOFOLLOW, and what was opened is checked again with fstat, so a link planted after the first look
// is refused too. Run as root, a new file gets the owner and group of its directory. An existing file
// with more permissions than perm gets perm.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	dir := filepath.Dir(path)
	if _, err := MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	li, err := os.Lstat(path)
	switch {
	case err == nil && !li.Mode().IsRegular():
		return nil, linkError(OpAppend, path, li.Mode())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("cannot inspect %s: %w", path, OSReason(err))
	}
	created := err != nil
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow|readFlags, perm)
	if err != nil {
		if isLoop(err) {
			return nil, linkError(OpAppend, path, fs.ModeSymlink)
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("cannot write %s: %w; check its permissions and its directory's", path, fs.ErrPermission)
		}
		return nil, fmt.Errorf("cannot write %s: %w", path, OSReason(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot inspect %s: %w", path, OSReason(err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, linkError(OpAppend, path, fi.Mode())
	}
	if created {
		if owner := newFileOwner(dir); owner != nil {
			_ = chownLike(f, owner)
		}
	}
	// An existing file more open than perm (a log left 0644 by an older gw, or chmod-ed by hand) is
	// narrowed to perm now, on the opened descriptor, before anything more is written to it.
	if extra := fi.Mode().Perm() &^ perm; extra != 0 && runtime.GOOS != "windows" {
		if err := f.Chmod(fi.Mode().Perm() &^ extra); err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot make %s private (its mode is %04o): %w; run: chmod %o %s", path, fi.Mode().Perm(), OSReason(err), perm, ShellQuote(path))
		}
	}
	return f, nil
}

// WriteOwn writes data to path, a small file of gw's own (the address of a running gw serve), atomically
// as WriteAtomic does but never through a link: a link or anything else that is not a regular file at
// path is refused with a *NotRegularError (OpState) and nothing is written.
func WriteOwn(path string, data []byte, perm fs.FileMode) error {
	return WriteOwnFrom(path, perm, fillWith(data))
}

// WriteOwnFrom is WriteOwn with the content written by fill into the temporary file (a file too large
// to hold in memory, written as it is made). An error of fill leaves path as it was.
func WriteOwnFrom(path string, perm fs.FileMode, fill func(*os.File) error) error {
	li, err := os.Lstat(path)
	if err == nil && !li.Mode().IsRegular() {
		return linkError(OpState, path, li.Mode())
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot inspect %s: %w", path, OSReason(err))
	}
	return writeFrom(OpState, path, perm, nil, fill)
}

// ReadOwn reads path, a small file of gw's own, of at most max bytes, never through a link: a symlink or
// anything else that is not a regular file is refused with a *NotRegularError (OpState), unread. A
// missing file is an error for which errors.Is(err, fs.ErrNotExist) holds.
func ReadOwn(path string, max int64) ([]byte, error) {
	f, _, err := OpenOwn(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, max)
}

// OpenOwn opens path, a file of gw's own, for reading, never through a link: a symlink or anything else
// that is not a regular file is refused with a *NotRegularError (OpState), unopened (a named pipe's open
// returns at once, and the fstat of what was opened decides). A missing file is an error for which
// errors.Is(err, fs.ErrNotExist) holds.
func OpenOwn(path string) (*os.File, fs.FileInfo, error) {
	li, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !li.Mode().IsRegular() {
		return nil, nil, linkError(OpState, path, li.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|readFlags, 0)
	if err != nil {
		if isLoop(err) {
			return nil, nil, linkError(OpState, path, fs.ModeSymlink)
		}
		return nil, nil, err
	}
	return regularOnly(f, path, func(m fs.FileMode) error { return linkError(OpState, path, m) })
}
