package fsutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MkdirAll creates dir and its missing parents with mode perm, as os.MkdirAll does, and returns the
// directories it created, deepest first (so that a caller can remove them again if nothing was written
// there). Run as root, each created directory gets the owner and group of the directory it was created
// in: gw run with sudo -E in the user's HOME must not leave the user a ~/.config/gw they cannot enter.
func MkdirAll(dir string, perm fs.FileMode) (created []string, err error) {
	var parent fs.FileInfo
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			parent = fi
			break
		}
		if d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", dir, OSReason(err))
	}
	if parent != nil && isRoot() {
		for i := len(created) - 1; i >= 0; i-- {
			_ = chownPathLike(created[i], parent)
		}
	}
	return created, nil
}

// newFileOwner is whose a file gw creates in dir should be: nil (the process's) unless gw runs as root,
// then dir's owner and group.
func newFileOwner(dir string) fs.FileInfo {
	if !isRoot() {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	return fi
}
