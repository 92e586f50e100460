//go:build unix

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// readFlags: opening a named pipe returns at once instead of waiting for a writer, and a terminal never
// becomes the controlling one. Neither changes how a regular file is read.
const readFlags = unix.O_NONBLOCK | unix.O_NOCTTY

// dirFlags: opening anything but a directory fails at once (ENOTDIR).
const dirFlags = unix.O_DIRECTORY

// noFollow makes open fail (ELOOP) when the last element of the path is a symlink.
const noFollow = unix.O_NOFOLLOW

// isLoop: the error of an O_NOFOLLOW open of a symlink.
func isLoop(err error) bool { return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) }

// chownLike gives f the owner and group of like, where the OS lets it: only root may give a file away,
// and an unprivileged user may still set a group of their own. A refusal is not an error: the content
// matters more than the owner, and a user rewriting their own file is already its owner.
func chownLike(f *os.File, like fs.FileInfo) error {
	want, ok := like.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	cur, err := f.Stat()
	if err != nil {
		return err
	}
	if have, ok := cur.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	if err := f.Chown(int(want.Uid), int(want.Gid)); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL) {
			return nil
		}
		return err
	}
	return nil
}

// isRoot: only root may give a file to another user.
func isRoot() bool { return os.Geteuid() == 0 }

// chownPathLike gives path (not following a link) the owner and group of like; refusals are ignored as
// in chownLike.
func chownPathLike(path string, like fs.FileInfo) error {
	want, ok := like.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if err := os.Lchown(path, int(want.Uid), int(want.Gid)); err != nil && !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	return nil
}
