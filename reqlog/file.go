package reqlog

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/modelgateway/gw/internal/defaults"
	"github.com/modelgateway/gw/internal/fsutil"
)

// The request log's bound on disk: the file is rotated once it would grow
// past MaxSize; serve.log and serve.log.1 stay plain, the older files are
// compressed (serve.log.2.gz, …), and the oldest go once the log would
// take more than MaxDisk in all, or more than Keep files. Compressed, a
// file of typical lines takes about 1.3 MiB (7.8 times less: see
// BenchmarkRotateCompress), so the log holds some 2.3 million requests
// (a year of 6,000 a day) in at most 80 MiB.
const (
	MaxSize = 10 << 20
	MaxDisk = 80 << 20
	Keep    = 200
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
	MaxDisk int64 // bytes all the files take at most; 0: MaxDisk

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

func (f *File) maxSize() int64 { return defaults.Positive(f.MaxSize, MaxSize) }
func (f *File) maxDisk() int64 { return defaults.Positive(f.MaxDisk, MaxDisk) }
func (f *File) keep() int      { return defaults.Positive(f.Keep, Keep) }

// rotate moves serve.log.N-1 to serve.log.N and so on, serve.log to
// serve.log.1; the oldest goes. serve.log.1 stays plain (gw logs -f may
// still be reading it, and finds it by name); a plain file that moves on to
// serve.log.2 or further is compressed into serve.log.N.gz (an older gw
// left plain files up to serve.log.9: each is compressed as it moves on).
// The lock is held. A link at any of these names is moved or removed,
// never followed, and never compressed.
//
// Compression runs on the goroutine that writes the log (off the
// requests' path in gw serve, see proxy/logfile.go) and takes about
// 0.15 s for a full file. A compression that fails (a full disk) leaves
// the plain file where it is, for the next rotation to try again: the log
// loses no line and goes on being written.
func (f *File) rotate() error {
	keep := f.keep()
	oldest := []string{Rotated(f.Path, keep-1)}
	if keep-1 >= 2 {
		oldest = append(oldest, gzName(oldest[0]))
	}
	for _, name := range oldest {
		if err := fsutil.Remove(name); err != nil {
			return fmt.Errorf("cannot rotate the request log: %w", fsutil.OSReason(err))
		}
	}
	for i := keep - 1; i >= 1; i-- {
		from, to := Rotated(f.Path, i-1), Rotated(f.Path, i)
		if i >= 3 {
			if err := renameGz(from, to); err != nil {
				return err
			}
		}
		err := fsutil.Rename(from, to)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot rotate the request log: %w", fsutil.OSReason(err))
		}
	}
	for i := 2; i < keep; i++ {
		compress(Rotated(f.Path, i))
	}
	f.trim()
	return nil
}

// trim removes the oldest files while the log would take more than
// MaxDisk: serve.log and serve.log.1 may take MaxSize each, the older ones
// (compressed or not) what is left, newest first.
func (f *File) trim() {
	left := f.maxDisk() - 2*f.maxSize()
	n := maxRotated(f.Path)
	for i := 2; i <= n; i++ {
		name := Rotated(f.Path, i)
		for _, name := range []string{name, gzName(name)} {
			if fi, err := os.Lstat(name); err == nil {
				left -= fi.Size()
			}
		}
		if left >= 0 {
			continue
		}
		for ; i <= n; i++ {
			_ = fsutil.Remove(gzName(Rotated(f.Path, i)))
			_ = fsutil.Remove(Rotated(f.Path, i))
		}
	}
}

// renameGz moves from.gz to to.gz. When from is there as well, the .gz is
// a whole copy of it that a crash kept from being removed (see compress):
// the plain one goes.
func renameGz(from, to string) error {
	err := fsutil.Rename(gzName(from), gzName(to))
	switch {
	case err == nil:
		if fi, err := os.Lstat(from); err == nil && fi.Mode().IsRegular() {
			_ = fsutil.Remove(from)
		}
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil
	}
	return fmt.Errorf("cannot rotate the request log: %w", fsutil.OSReason(err))
}

// compress replaces the plain file at name, when it is a regular file,
// with name.gz: written to a temporary file beside it, given the plain
// file's time (gw usage --since skips files by it), synced and renamed
// into place, and only then is the plain file removed. A crash leaves
// either the plain file, or both (which readers and the next rotation
// take as the .gz), never a partial .gz under its real name.
func compress(name string) {
	src, fi, err := fsutil.OpenOwn(name)
	if err != nil {
		return // none there, or not a regular file: left as it is
	}
	err = fsutil.WriteOwnFrom(gzName(name), 0o600, func(dst *os.File) error {
		zw, err := gzip.NewWriterLevel(dst, gzip.DefaultCompression)
		if err != nil {
			return err
		}
		zw.ModTime = fi.ModTime()
		zw.Comment = origin(fi)
		if _, err := io.Copy(zw, src); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		return os.Chtimes(dst.Name(), fi.ModTime(), fi.ModTime())
	})
	src.Close() // before the remove: Windows removes no open file
	if err != nil {
		return
	}
	_ = fsutil.Remove(name)
}

// Rotated is the name of the n-th older file of the log at path: path
// itself for 0, path.1, path.2, … for the older ones. From 2 on the file
// is normally compressed, under that name with ".gz" added (see rotate).
func Rotated(path string, n int) string {
	if n == 0 {
		return path
	}
	return path + "." + strconv.Itoa(n)
}

// origin identifies the plain file a compressed one was made from, in the
// compressed file's header: its size and time, final once it is rotated.
// A follower of the log that fell behind finds by it where the file it
// was reading went (see Follow).
func origin(fi fs.FileInfo) string {
	return "serve.log size=" + strconv.FormatInt(fi.Size(), 10) + " mtime=" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

// gzName is the name of the compressed form of the rotated file name.
func gzName(name string) string { return name + ".gz" }
