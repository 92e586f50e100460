package reqlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

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
// holds the log's lock file, checks that the file it has open is still the
// one at Path (another process may have rotated it), rotates it when it is
// full, and writes p in one write. A line is thus never split or
// interleaved with another process's, never written to a file being
// rotated, and no process keeps writing to a file another has rotated away.
// The lock file and the log stay open between writes (a write costs a few
// system calls, not the dozen of opening and checking both files each
// time); on Windows, where an open file cannot be renamed by another
// process's rotation, the log is opened for each write. It is safe for
// concurrent use.
type File struct {
	Path    string
	MaxSize int64 // 0: MaxSize
	Keep    int   // files kept, the current one included; 0: Keep

	mu   sync.Mutex
	lock *fsutil.Lock // kept between writes, unlocked
	cur  *os.File     // the log as last opened; nil: open it at the next write
}

// keepOpen: the log stays open between writes, except on Windows (see File).
var keepOpen = runtime.GOOS != "windows"

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
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.relock(); err != nil {
		return 0, err
	}
	defer func() {
		if f.lock != nil { // current may have taken another lock file's
			_ = f.lock.Unlock()
		}
	}()
	file, size, err := f.current()
	if err != nil {
		return 0, err
	}
	if size > 0 && size+int64(len(p)) > f.maxSize() {
		f.closeLog()
		if err := f.rotate(); err != nil {
			return 0, err
		}
		if file, _, err = f.current(); err != nil {
			return 0, err
		}
	}
	n, err := file.Write(p)
	if err != nil || !keepOpen {
		f.closeLog()
	}
	return n, err
}

// Close closes the log and its lock file; a later Write opens them again.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closeLog()
	if f.lock != nil {
		f.lock.Release()
		f.lock = nil
	}
	return nil
}

// relock takes the log's lock, opening the lock file the first time.
func (f *File) relock() error {
	if f.lock != nil {
		if err := f.lock.Relock(); err == nil {
			return nil
		}
		f.lock.Release()
		f.lock = nil
	}
	l, err := fsutil.Acquire(fsutil.LockPath(f.Path))
	if err != nil {
		return err
	}
	f.lock = l
	return nil
}

// current returns the log file open for appending and its size: the one
// kept open while it is still the file at Path, else the one there now.
// Before opening another, it makes sure the lock held is the one at the
// lock's path (someone may have removed gw's state directory), so that no
// two processes rotate at once holding different lock files.
func (f *File) current() (*os.File, int64, error) {
	if f.cur != nil {
		held, err1 := f.cur.Stat()
		now, err2 := os.Lstat(f.Path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f.cur, held.Size(), nil
		}
		f.closeLog()
	}
	if !f.lock.Current() {
		f.lock.Release()
		f.lock = nil
		if err := f.relock(); err != nil {
			return nil, 0, err
		}
	}
	file, err := fsutil.OpenAppend(f.Path, 0o600)
	if err != nil {
		return nil, 0, err
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, 0, fmt.Errorf("cannot inspect %s: %w", f.Path, fsutil.OSReason(err))
	}
	f.cur = file
	return file, fi.Size(), nil
}

func (f *File) closeLog() {
	if f.cur != nil {
		_ = f.cur.Close()
		f.cur = nil
	}
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
