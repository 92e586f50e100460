package reqlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/modelgateway/gw/internal/fsutil"
)

// Line is what a reader hands on for one line: the entry when the line is
// a request's (OK), else the line as it was written (gw serve's own notes).
type Line struct {
	Entry
	OK  bool
	Raw []byte // valid only during the call
}

// readBuf is the size of a reader's buffer; a line longer than that (none
// gw writes) is skipped.
const readBuf = 256 << 10

// Scan calls fn for every line of the log at path from since on (the zero
// time: all), oldest first, across its rotated files, until fn returns
// false. A log that does not exist yet has no lines. Files last written
// before since are not read.
func Scan(path string, since time.Time, fn func(*Line) bool) error {
	files, err := openFiles(path)
	if err != nil {
		return err
	}
	defer closeAll(files)
	var p Parser
	var l Line
	buf := make([]byte, readBuf)
	for _, f := range files {
		if more, err := scanFile(f, buf, &p, &l, since, fn); err != nil || !more {
			return err
		}
	}
	return nil
}

// scanFile reads f from its start, unless it was last written before since.
func scanFile(f *os.File, buf []byte, p *Parser, l *Line, since time.Time, fn func(*Line) bool) (bool, error) {
	if fi, err := f.Stat(); err == nil && !since.IsZero() && fi.ModTime().Before(since) {
		return true, nil
	}
	_, more, err := scanFrom(f, buf, p, l, since, fn)
	return more, err
}

// openFiles opens the files of the log at path, oldest first. It holds the
// log's lock while it opens them, so that a rotation cannot move a file
// from one name to the next between two opens (each is then read through
// its descriptor, whatever its name has become). No state directory, or
// no file: none.
func openFiles(path string) ([]*os.File, error) {
	if _, err := os.Lstat(filepath.Dir(path)); err != nil {
		return nil, nil
	}
	if lock, err := fsutil.Acquire(fsutil.LockPath(path)); err == nil {
		defer lock.Release()
	}
	var files []*os.File
	for i := maxRotated(path); i >= 0; i-- {
		f, _, err := fsutil.OpenRegular(Rotated(path, i))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			closeAll(files)
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// maxRotated is the highest n for which path.n exists (0: none).
func maxRotated(path string) int {
	n := 0
	for i := 1; i < 1000; i++ {
		if _, err := os.Lstat(Rotated(path, i)); err != nil {
			break
		}
		n = i
	}
	return n
}

// scanFrom reads whole lines from r and hands those from since on to fn.
// It returns the bytes consumed (up to the last newline), whether fn wants
// more, and a read error other than EOF.
func scanFrom(r io.Reader, buf []byte, p *Parser, l *Line, since time.Time, fn func(*Line) bool) (int64, bool, error) {
	var used int64
	start, end := 0, 0
	skipping := false // inside a line too long for buf
	for {
		n, err := r.Read(buf[end:])
		end += n
		for {
			i := bytes.IndexByte(buf[start:end], '\n')
			if i < 0 {
				break
			}
			line := buf[start : start+i]
			start += i + 1
			used += int64(i + 1)
			if skipping {
				skipping = false
				continue
			}
			l.OK = p.Parse(line, &l.Entry)
			if l.OK && !since.IsZero() && l.Time.Before(since) {
				continue
			}
			l.Raw = line
			if !fn(l) {
				return used, false, nil
			}
		}
		if start == end {
			start, end = 0, 0
		} else if end == len(buf) {
			if start == 0 {
				// A line longer than the buffer: dropped, up to its end.
				used += int64(end)
				start, end, skipping = 0, 0, true
			} else {
				end = copy(buf, buf[start:end])
				start = 0
			}
		}
		if err == io.EOF {
			return used, true, nil
		}
		if err != nil {
			return used, true, err
		}
	}
}

// Follow calls fn for each line of the log at path from since on (the zero
// time: from now on), then for each line written to it, following it
// across rotations (lines written to a file just before it was rotated are
// read from it before the new one), until ctx is done or fn returns false.
// It checks for new lines every poll.
func Follow(ctx context.Context, path string, since time.Time, poll time.Duration, fn func(*Line) bool) error {
	var p Parser
	var l Line
	buf := make([]byte, readBuf)
	var f *os.File
	var fi fs.FileInfo
	var off int64
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	open := func(fromEnd bool) {
		nf, nfi, err := fsutil.OpenRegular(path)
		if err != nil {
			return
		}
		f, fi, off = nf, nfi, 0
		if fromEnd {
			off = nfi.Size()
		}
	}
	if since.IsZero() {
		open(true)
	} else {
		// The lines since then, and the current file from its start: opened
		// together, so that no line written in between is missed.
		files, err := openFiles(path)
		if err != nil {
			return err
		}
		if len(files) > 0 {
			for i, old := range files[:len(files)-1] {
				if more, _ := scanFile(old, buf, &p, &l, since, fn); !more {
					closeAll(files[i:])
					return nil
				}
				old.Close()
			}
			f = files[len(files)-1]
			if fi, err = f.Stat(); err != nil {
				return err
			}
			n, more, _ := scanFrom(f, buf, &p, &l, since, fn)
			if !more {
				return nil
			}
			off = n
		}
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if f != nil {
			// Read what is new in the file open now, whole lines only.
			if _, err := f.Seek(off, io.SeekStart); err == nil {
				n, more, _ := scanFrom(f, buf, &p, &l, time.Time{}, fn)
				off += n
				if !more {
					return nil
				}
			}
			// Rotated (or removed and made again): read the rest of the old
			// file, then the files rotated since, then go on in the new one.
			if now, err := os.Lstat(path); err == nil && !os.SameFile(now, fi) {
				newer := rotatedSince(path, fi)
				// Writers append by name under the lock, so nothing is
				// written to the old file once it is rotated: what it got
				// between the read above and the rotation is read now.
				if _, err := f.Seek(off, io.SeekStart); err == nil {
					if _, more, _ := scanFrom(f, buf, &p, &l, time.Time{}, fn); !more {
						closeAll(newer)
						return nil
					}
				}
				f.Close()
				f = nil
				if len(newer) == 0 {
					open(false)
					continue
				}
				for _, nf := range newer[:len(newer)-1] {
					_, more, _ := scanFrom(nf, buf, &p, &l, time.Time{}, fn)
					nf.Close()
					if !more {
						closeAll(newer[len(newer)-1:])
						return nil
					}
				}
				f = newer[len(newer)-1]
				if fi, err = f.Stat(); err != nil {
					f.Close()
					f = nil
				}
				off = 0
				continue
			}
			if st, err := f.Stat(); err == nil && st.Size() < off {
				off = 0 // truncated
			}
		} else {
			open(false)
			if f != nil {
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// rotatedSince opens, oldest first, the files of the log at path newer than
// old (which has been rotated), the current one last. It holds the log's
// lock while it looks, so the names do not move under it; the files are
// read once it has let go. Nil when old is no longer among them (rotated
// away) or the lock cannot be had.
func rotatedSince(path string, old fs.FileInfo) []*os.File {
	lock, err := fsutil.Acquire(fsutil.LockPath(path))
	if err != nil {
		return nil
	}
	defer lock.Release()
	k := 0
	for i := 1; i <= maxRotated(path); i++ {
		if fi, err := os.Lstat(Rotated(path, i)); err == nil && os.SameFile(fi, old) {
			k = i
			break
		}
	}
	if k == 0 {
		return nil
	}
	var files []*os.File
	for i := k - 1; i >= 0; i-- {
		f, _, err := fsutil.OpenRegular(Rotated(path, i))
		if err != nil {
			closeAll(files)
			return nil
		}
		files = append(files, f)
	}
	return files
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
