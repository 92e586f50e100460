package reqlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/modelgateway/gw/internal/fsutil"
)

// The request log's bound on disk: the file is rotated once it would grow
// past MaxSize, and Keep files are kept (serve.log, serve.log.1, …), so it
// never takes more than MaxSize × Keep (100 MiB, some 450,000 requests).
const (
	MaxSize = 10 << 20
	Keep    = 10
)

// File appends lines to the request log at Path. Every gw serve of the user
// (gw serve, the ones gw run starts) appends to the same file: each Write
// holds the log's lock file, opens the file for appending (never through a
// link), rotates it when it is full, writes p in one write and closes it. A
// line is thus never split or interleaved with another process's, never
// written to a file being rotated, and no process keeps writing to a file
// another has rotated away. It is safe for concurrent use.
type File struct {
	Path    string
	MaxSize int64 // 0: MaxSize
	Keep    int   // files kept, the current one included; 0: Keep
}

// Open checks that the request log in stateDir can be written (it is
// created if missing) and returns its File.
func Open(stateDir string) (*File, error) {
	f := &File{Path: filepath.Join(stateDir, Name)}
	file, err := fsutil.OpenAppend(f.Path, 0o600)
	if err != nil {
		return nil, err
	}
	return f, file.Close()
}

// Write appends p, whole lines, to the log in one write.
func (f *File) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	lock, err := fsutil.Acquire(fsutil.LockPath(f.Path))
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	file, err := fsutil.OpenAppend(f.Path, 0o600)
	if err != nil {
		return 0, err
	}
	if fi, err := file.Stat(); err == nil && fi.Size() > 0 && fi.Size()+int64(len(p)) > f.maxSize() {
		file.Close()
		if err := f.rotate(); err != nil {
			return 0, err
		}
		if file, err = fsutil.OpenAppend(f.Path, 0o600); err != nil {
			return 0, err
		}
	}
	n, err := file.Write(p)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return n, err
}

func (f *File) maxSize() int64 {
	if f.MaxSize > 0 {
		return f.MaxSize
	}
	return MaxSize
}

func (f *File) keep() int {
	if f.Keep > 0 {
		return f.Keep
	}
	return Keep
}

// rotate moves serve.log.N-1 to serve.log.N and so on, serve.log to
// serve.log.1; the oldest is replaced. The lock is held. A link at any of
// these names is replaced, never followed.
func (f *File) rotate() error {
	for i := f.keep() - 1; i >= 1; i-- {
		err := os.Rename(Rotated(f.Path, i-1), Rotated(f.Path, i))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot rotate the request log: %w", fsutil.OSReason(err))
		}
	}
	return nil
}

// Rotated is the name of the n-th older file of the log at path: path
// itself for 0, path.1, path.2, … for the older ones.
func Rotated(path string, n int) string {
	if n == 0 {
		return path
	}
	return path + "." + strconv.Itoa(n)
}
