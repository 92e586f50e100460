package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxConfigSize caps every config file gw reads (its own, the credentials file, OpenCode's): far more
// than any real one, small enough that a wrong file is refused instead of filling memory.
const MaxConfigSize = 4 << 20

// Ops of a NotRegularError: what gw was about to do with the path.
const (
	OpRead    = "read"
	OpReplace = "replace"
	OpBackup  = "backup"
	OpLock    = "lock"
	OpAppend  = "append" // a log gw appends to (OpenAppend)
	OpState   = "state"  // a small file of gw's own in its state directory (WriteOwn, ReadOwn)
	OpList    = "list"   // a directory gw lists (ReadDirNames)
)

// NotRegularError is a path gw refused because it is not a regular file: for reading, after following
// symlinks (a directory, a named pipe, a device, a socket); for a file gw creates itself (a backup, a
// lock file), also a symlink, which gw never writes through; for listing (OpList), a path that is not a
// directory.
type NotRegularError struct {
	Op   string      // OpRead, OpReplace, OpBackup, OpLock, OpAppend, OpState or OpList
	Path string      // the path as given
	Link string      // where a symlink at Path points (as written in the link); "" when Path is no link
	Mode fs.FileMode // the type of what was found (for a followed link: of its target)
}

// Kind describes what was found in plain words: "a directory", "a named pipe (FIFO)", …
func (e *NotRegularError) Kind() string { return kindOf(e.Mode) }

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

func (e *NotRegularError) Error() string {
	kind := e.Kind()
	what := "it is " + kind
	if e.Mode&fs.ModeSymlink != 0 && e.Link != "" {
		what = "it is a symlink (to " + e.Link + ")"
	} else if e.Link != "" {
		what = "it is a symlink to " + e.Link + ", which is " + kind
	}
	fix := "replace it with a regular file, or remove it"
	if e.Mode.IsDir() {
		fix = "move it out of the way and run again"
	}
	switch e.Op {
	case OpRead:
		if e.Link != "" && !e.Mode.IsDir() {
			fix = "point the link at a regular file, or remove it"
		}
		return fmt.Sprintf("refusing to read %s: %s, not a regular file; %s", e.Path, what, fix)
	case OpReplace:
		return fmt.Sprintf("cannot replace %s: %s, not a regular file; %s", e.Path, what, fix)
	case OpList:
		return fmt.Sprintf("refusing to list %s: %s, not a directory; replace it with a directory, or remove it", e.Path, what)
	}
	fix = "remove it (rm " + ShellQuote(e.Path) + ") and run again"
	if e.Mode.IsDir() {
		fix = "move it out of the way and run again"
	}
	switch e.Op {
	case OpAppend:
		return fmt.Sprintf("refusing to write the log %s: %s; gw writes its logs only as regular files of its own, never through a link; %s",
			e.Path, what, fix)
	case OpState:
		return fmt.Sprintf("refusing to use %s: %s; gw keeps its state files only as regular files of its own, never through a link; %s",
			e.Path, what, fix)
	}
	if e.Op == OpBackup {
		return fmt.Sprintf("refusing to write the backup %s: %s; gw writes its backups only as regular files of its own, never through a link or into anything else; %s",
			e.Path, what, fix)
	}
	return fmt.Sprintf("refusing to use the lock file %s: %s; gw locks only with regular files of its own, never through a link; %s",
		e.Path, what, fix)
}

// TooLargeError is a file larger than the cap its reader set.
type TooLargeError struct {
	Path string
	Size int64 // as found; at least Max+1
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("refusing to read %s: it is larger than %s (%s), too large for a config file; check that it is the right file, or move it away and run again",
		e.Path, sizeWords(e.Max), sizeWords(e.Size))
}

func sizeWords(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadRegular reads the file at path, following symlinks, when it is a regular file of at most max bytes.
// Anything else is refused at once, without reading: a *NotRegularError (a directory, a named pipe, a
// device, a socket) or a *TooLargeError. A missing file is the *fs.PathError of os.Open, so
// errors.Is(err, fs.ErrNotExist) holds.
func ReadRegular(path string, max int64) ([]byte, error) {
	data, _, err := ReadRegularInfo(path, max)
	return data, err
}

// ReadRegularInfo is ReadRegular that also returns what fstat said of the file it read (mode, owner).
func ReadRegularInfo(path string, max int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, nil, &TooLargeError{Path: path, Size: fi.Size(), Max: max}
	}
	// The size can change between fstat and the end of the read: the cap holds for what is read.
	data, err := readAtMost(f, path, max)
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// readAtMost reads f, the file at path, to its end when that is at most max bytes.
func readAtMost(f *os.File, path string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: OSReason(err)}
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// OpenRegular opens path for reading, following symlinks, and returns it only when what was opened is a
// regular file (fstat of the opened descriptor: what is checked is what is read). The open itself cannot
// hang on a named pipe (O_NONBLOCK) nor make a terminal the controlling one (O_NOCTTY); a path that
// is plainly not a regular file is refused before it is opened at all.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, notRegular(OpRead, path, fi.Mode())
	}
	return openChecked(path)
}

// openChecked is OpenRegular without the first look: what decides is the fstat of the opened descriptor,
// so a path swapped for a named pipe or a device after any earlier check is still refused, and the open
// of a named pipe returns at once.
func openChecked(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|readFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	return regularOnly(f, path, func(m fs.FileMode) error { return notRegular(OpRead, path, m) })
}

// regularOnly returns f, opened at path, with what fstat says of it when it is a regular file; else it closes f
// and returns the error refuse makes of its mode.
func regularOnly(f *os.File, path string, refuse func(fs.FileMode) error) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "stat", Path: path, Err: OSReason(err)}
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, refuse(fi.Mode())
	}
	return f, fi, nil
}

// notRegular builds the error for a followed path, naming a symlink's target.
func notRegular(op, path string, mode fs.FileMode) *NotRegularError {
	e := &NotRegularError{Op: op, Path: path, Mode: mode.Type()}
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			e.Link = target
		} else if l, err := os.Readlink(path); err == nil {
			e.Link = l
		}
	}
	return e
}

// linkError is the error for a symlink found where gw creates a file itself (never followed).
func linkError(op, path string, mode fs.FileMode) *NotRegularError {
	e := &NotRegularError{Op: op, Path: path, Mode: mode.Type()}
	if mode&fs.ModeSymlink != 0 {
		e.Link, _ = os.Readlink(path)
	}
	return e
}

// ShellQuote makes a path safe to paste into a shell command gw prints.
func ShellQuote(s string) string {
	if strings.ContainsAny(s, " '\"$`\\!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// OSReason drops the *PathError/*LinkError wrapper, whose message repeats a path (often a temporary
// file's) that the caller's message already names better, keeping the OS reason.
func OSReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
