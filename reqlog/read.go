package reqlog

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelgateway/gw/internal/capio"
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

// Bounds of a compressed file of the log (serve.log.2.gz, …): gw writes
// none larger than MaxSize, nor one that holds more, so a file past either
// bound is not the log's (a gzip bomb planted under its name) and is read
// no further than that. A reader holds a buffer of readBuf and the
// decompressor's window, however large the file says it is.
const (
	maxGzSize  = 64 << 20 // on disk
	maxGzLines = 64 << 20 // once decompressed
)

// DamagedError names the files of the log that could not be read to their
// end (a damaged compressed file, one past the bounds above): every line
// before the damage, and every other file, were read.
type DamagedError struct {
	Files []Damage
}

// Damage is one file a DamagedError names and what is wrong with it.
type Damage struct {
	Path string
	Err  error
}

// Error is one line per damaged file.
func (e *DamagedError) Error() string {
	var b []byte
	for i, d := range e.Files {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, d.Error()...)
	}
	return string(b)
}

// Error says which file, what is wrong and what to do, in one line.
func (d Damage) Error() string {
	return "skipped the rest of " + d.Path + ": " + d.Err.Error() + "; every other file of the request log was read (move it away to stop this warning)"
}

// Scan calls fn for every line of the log at path from since on (the zero
// time: all), oldest first, across its rotated files (the compressed ones
// decompressed as they are read), until fn returns false. A log that does
// not exist yet has no lines. Files last written before since are not
// read. A file that cannot be read to its end is a *DamagedError once
// every other line has been handed on.
func Scan(path string, since time.Time, fn func(*Line) bool) error {
	files, err := openFiles(path)
	if err != nil {
		return err
	}
	defer closeAll(files)
	var p Parser
	var l Line
	buf := make([]byte, readBuf)
	var damaged []Damage
	for _, f := range files {
		more, err := scanFile(f, buf, &p, &l, since, fn)
		var d *Damage
		if errors.As(err, &d) {
			damaged = append(damaged, *d)
			err = nil
		}
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	if damaged != nil {
		return &DamagedError{Files: damaged}
	}
	return nil
}

// logFile is a file of the log open for reading.
type logFile struct {
	*os.File
	gz bool // compressed
}

// scanFile reads f from its start, unless it was last written before since.
// A compressed file that cannot be read to its end is a *Damage.
func scanFile(f logFile, buf []byte, p *Parser, l *Line, since time.Time, fn func(*Line) bool) (bool, error) {
	fi, err := f.Stat()
	if err == nil && !since.IsZero() && fi.ModTime().Before(since) {
		return true, nil
	}
	if !f.gz {
		_, more, err := scanFrom(f, buf, p, l, since, fn)
		return more, err
	}
	if err == nil && fi.Size() > maxGzSize {
		return true, &Damage{Path: f.Name(), Err: errors.New("it is larger than any file gw compresses")}
	}
	zr, err := gzip.NewReader(bufio.NewReaderSize(io.LimitReader(f, maxGzSize), 64<<10))
	if err != nil {
		return true, &Damage{Path: f.Name(), Err: gzipReason(err)}
	}
	defer zr.Close()
	in := inflate(&capio.Reader{R: zr, N: maxGzLines, Err: errTooLarge})
	defer in.stop()
	_, more, err := scanFrom(in, buf, p, l, since, fn)
	if err != nil {
		return more, &Damage{Path: f.Name(), Err: gzipReason(err)}
	}
	return more, nil
}

// errTooLarge: a compressed file that holds more than maxGzLines.
var errTooLarge = errors.New("it holds more than any file gw writes")

// gzipReason says what is wrong with a compressed file in plain words.
func gzipReason(err error) error {
	switch {
	case errors.Is(err, errTooLarge):
		return err
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, gzip.ErrChecksum), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("it is damaged or cut short (" + err.Error() + ")")
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return errors.New("it is damaged (" + err.Error() + ")")
	}
	return fsutil.OSReason(err)
}

// inflater reads a decompressing reader on a goroutine of its own, a few
// buffers ahead of the one reading from it: on a machine of two cores
// decompressing the next part of a file overlaps parsing this one (gw
// usage reads a year of compressed files not much slower than plain ones).
// Its memory is those buffers, however much the file holds.
type inflater struct {
	full chan []byte // decompressed, in order; closed after the last
	free chan []byte
	quit chan struct{}
	err  error // why the goroutine stopped (io.EOF: the end); read once full is closed
	cur  []byte
	held []byte // the buffer cur is part of
}

const (
	inflateBufs = 3
	inflateBuf  = 128 << 10
)

func inflate(r io.Reader) *inflater {
	in := &inflater{full: make(chan []byte, inflateBufs), free: make(chan []byte, inflateBufs), quit: make(chan struct{})}
	for range inflateBufs {
		in.free <- make([]byte, inflateBuf)
	}
	go func() {
		defer close(in.full)
		for {
			var b []byte
			select {
			case b = <-in.free:
			case <-in.quit:
				return
			}
			n := 0
			var err error
			for n < len(b) && err == nil {
				var k int
				k, err = r.Read(b[n:])
				n += k
			}
			if n > 0 {
				in.full <- b[:n] // never blocks: full holds every buffer
			}
			if err != nil {
				in.err = err
				return
			}
		}
	}()
	return in
}

func (in *inflater) Read(p []byte) (int, error) {
	for len(in.cur) == 0 {
		if in.held != nil {
			in.free <- in.held[:cap(in.held)]
			in.held = nil
		}
		b, ok := <-in.full
		if !ok {
			return 0, in.err
		}
		in.held, in.cur = b, b
	}
	n := copy(p, in.cur)
	in.cur = in.cur[n:]
	return n, nil
}

// stop ends the goroutine, once it has finished the read it is in, and
// waits for it (the file is closed after).
func (in *inflater) stop() {
	close(in.quit)
	for range in.full {
	}
}

// openFiles opens the files of the log at path, oldest first. It holds the
// log's lock while it opens them, so that a rotation cannot move a file
// from one name to the next between two opens (each is then read through
// its descriptor, whatever its name has become). No state directory, or
// no file: none.
func openFiles(path string) ([]logFile, error) {
	if _, err := os.Lstat(filepath.Dir(path)); err != nil {
		return nil, nil
	}
	if lock, err := fsutil.Acquire(fsutil.LockPath(path)); err == nil {
		defer lock.Release()
	}
	return openDown(path, maxRotated(path), true)
}

// openDown opens the files of the log at path from the n-th older one down
// to the current one, skipping a missing one when skipMissing; on an error
// it closes those it opened.
func openDown(path string, n int, skipMissing bool) ([]logFile, error) {
	var files []logFile
	for i := n; i >= 0; i-- {
		f, err := openRotated(path, i)
		if skipMissing && errors.Is(err, fs.ErrNotExist) {
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

// openRotated opens the n-th older file of the log at path: from 2 on,
// the compressed one when it is there (when the plain one is there too, a
// crash kept it from being removed once compressed: see compress), else
// the plain one (an older gw's, or one not compressed yet). Each is opened
// as the current log is: what is not a regular file is refused.
func openRotated(path string, n int) (logFile, error) {
	name := Rotated(path, n)
	if n >= 2 {
		if _, err := os.Lstat(gzName(name)); err == nil {
			f, _, err := fsutil.OpenRegular(gzName(name))
			return logFile{f, true}, err
		}
	}
	f, _, err := fsutil.OpenRegular(name)
	return logFile{f, false}, err
}

// maxRotated is the highest n below 1000 for which path.n (or path.n.gz,
// from 2 on) exists (0: none). A number missing below it (a file removed
// by hand, a rotation cut short) moves up one at each rotation: the files
// above it are still the log's, to read and to count in the disk bound.
func maxRotated(path string) int {
	dir, base := filepath.Split(path)
	names, err := fsutil.ReadDirNames(filepath.Clean(dir))
	if err != nil {
		return 0
	}
	n := 0
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, base+".")
		if !ok {
			continue
		}
		num, gz := strings.CutSuffix(rest, ".gz")
		i, err := strconv.Atoi(num)
		if err != nil || num != strconv.Itoa(i) || i < 1 || i >= 1000 || gz && i < 2 {
			continue
		}
		n = max(n, i)
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
// It checks for new lines every poll. A rotated file that cannot be read to
// its end (see DamagedError) is handed to warn, a *Damage, and the rest is
// read.
func Follow(ctx context.Context, path string, since time.Time, poll time.Duration, fn func(*Line) bool, warn func(error)) error {
	var p Parser
	var l Line
	buf := make([]byte, readBuf)
	scan := func(f logFile, since time.Time) bool {
		more, err := scanFile(f, buf, &p, &l, since, fn)
		if err != nil && warn != nil {
			warn(err)
		}
		return more
	}
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
				if !scan(old, since) {
					closeAll(files[i:])
					return nil
				}
				old.Close()
			}
			f = files[len(files)-1].File
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
				newer := rotatedSince(path, fi, f)
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
					more := scan(nf, time.Time{})
					nf.Close()
					if !more {
						closeAll(newer[len(newer)-1:])
						return nil
					}
				}
				f = newer[len(newer)-1].File
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
//
// A follower that fell more than one rotation behind finds old compressed:
// the .gz's header names the plain file it was made from (see origin).
func rotatedSince(path string, old fs.FileInfo, oldFile *os.File) []logFile {
	lock, err := fsutil.Acquire(fsutil.LockPath(path))
	if err != nil {
		return nil
	}
	defer lock.Release()
	k := 0
	n := maxRotated(path)
	for i := 1; i <= n; i++ {
		if fi, err := os.Lstat(Rotated(path, i)); err == nil && os.SameFile(fi, old) {
			k = i
			break
		}
	}
	if k == 0 {
		// Written to no more once rotated: its size and time are final.
		if now, err := oldFile.Stat(); err == nil {
			want := origin(now)
			for i := 2; i <= n && k == 0; i++ {
				if gzOrigin(gzName(Rotated(path, i))) == want {
					k = i
				}
			}
		}
	}
	if k == 0 {
		return nil
	}
	files, _ := openDown(path, k-1, false)
	return files
}

// gzOrigin is the origin a compressed file's header records ("": none).
func gzOrigin(name string) string {
	f, _, err := fsutil.OpenRegular(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	zr, err := gzip.NewReader(io.LimitReader(f, 4<<10))
	if err != nil {
		return ""
	}
	return zr.Comment
}

func closeAll(files []logFile) {
	for _, f := range files {
		f.Close()
	}
}
