//go:build unix

package config

import (
	"io/fs"
	"syscall"
)

// fileID is the file's inode and device.
func fileID(fi fs.FileInfo) (ino, dev uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), uint64(st.Dev)
	}
	return 0, 0
}
