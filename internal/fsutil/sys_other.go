//go:build !unix

package fsutil

import (
	"io/fs"
	"os"
)

// readFlags: no O_NONBLOCK/O_NOCTTY here; OpenRegular's first look refuses what is not a regular file.
const readFlags = 0

// dirFlags: none here; ReadDirNames's first look refuses what is not a directory.
const dirFlags = 0

// noFollow: not available here; callers look at the path with Lstat first.
const noFollow = 0

func isLoop(error) bool { return false }

// chownLike: no Unix owners here; a rewritten file keeps the ACLs of its directory.
func chownLike(*os.File, fs.FileInfo) error { return nil }

func isRoot() bool { return false }

func chownPathLike(string, fs.FileInfo) error { return nil }
