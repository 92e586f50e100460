package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WriteFileAtomic replaces path with data so that readers see either the old
// or the new content, never a torn file: a temporary file in the same
// directory is written with mode perm, synced and renamed over path, and
// removed if any step fails. Missing parent directories are created with
// mode 0700. If path is a symlink (dotfile managers), the file it points to
// is replaced and the link kept. Callers that keep an existing file's mode
// pass that mode as perm.
//
// Errors name the file or directory and the OS reason, not the temporary
// file, which the user never sees.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, OSReason(err))
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
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
	// CreateTemp already uses 0600; Chmod makes perm exact regardless of umask.
	if err := tmp.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("cannot write %s: %w", path, OSReason(err))
	}
	if _, err := tmp.Write(data); err != nil {
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
	return nil
}

// OSReason drops the *PathError/*LinkError wrapper, whose message repeats
// a path (often a temporary file's) that the caller's message already names
// better, keeping the OS reason.
func OSReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// syncDir makes the rename durable. Best effort: not every platform or file
// system supports syncing a directory, and the data is already safe.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	_ = d.Sync()
}
