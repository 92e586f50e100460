package fsutil

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
)

// ReadHead reads at most the first max bytes of the regular file at path (following symlinks), leaving
// the rest unread: for the system's own files of which gw needs only the beginning (/etc/os-release,
// D-Bus's service files, a process's /proc/PID/cmdline), including /proc's, whose size the kernel
// gives as 0, so that a size check says nothing and only the read can be capped. A named pipe, a device
// or a directory is refused at once, unread, as by ReadRegular.
func ReadHead(path string, max int64) ([]byte, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: OSReason(err)}
	}
	return data, nil
}

// ReadDirNames lists the names in the directory at path (following symlinks), sorted. Anything else
// there is refused at once with a *NotRegularError (OpList): a named pipe planted where a directory was
// expected is never waited on. A missing directory is an error for which errors.Is(err, fs.ErrNotExist)
// holds.
func ReadDirNames(path string) ([]string, error) {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return nil, notRegular(OpList, path, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|readFlags|dirFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		if err != nil {
			return nil, &fs.PathError{Op: "stat", Path: path, Err: OSReason(err)}
		}
		return nil, notRegular(OpList, path, fi.Mode())
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: path, Err: OSReason(err)}
	}
	slices.Sort(names)
	return names, nil
}

// Remove removes the file, the link (never what it points at) or the empty directory at path, one of
// gw's own; one already gone is no error.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Rename moves the file at from, one of gw's own, to to, replacing what is there (on Windows too), as
// os.Rename does; a missing from is an error for which errors.Is(err, fs.ErrNotExist) holds.
func Rename(from, to string) error { return os.Rename(from, to) }
