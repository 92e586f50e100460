package agentfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
)

// BackupSuffix is appended to the config's name for the copy of the
// previous content kept beside it. Each write replaces the previous backup,
// so it always holds the file as it was before the latest change.
const BackupSuffix = ".bak"

// newFileMode: a new config can hold the local token, so only the owner
// reads it.
const newFileMode fs.FileMode = 0o600

// backupMode: a backup is never more readable than 0600, whatever the
// config's own mode. It may hold what the change took out of the config
// (a key written in plain text), and nothing but the owner needs it.
const backupMode fs.FileMode = 0o600

// Written says what Write did.
type Written struct {
	Path   string // the file actually written (a symlink's target)
	Backup string // the backup of the previous content; "" for a new file
}

// Write replaces the file at path with data: through a symlink to its
// target, keeping the permissions, owner and group, atomically (temp file
// and rename in the same directory), after copying the old content to
// <target>.bak (mode 0600, since it may hold a key the change removed). A
// read-only file or a directory in the way is refused with what to do; so
// is a .bak that is a symlink or a directory (never written through: a
// project can plant one pointing at the user's files), before anything is
// written. Callers hold Lock around their read-merge-Write.
//
// original is the content data was merged from, nil when the file did not
// exist. If the file on disk is no longer that (edited while the user read
// the diff), nothing is written: overwriting would silently drop the edit.
func Write(path string, original, data []byte) (Written, error) {
	target, err := resolveTarget(path)
	if err != nil {
		return Written{}, err
	}
	mode := newFileMode
	var old []byte
	var like fs.FileInfo // the file replaced: its backup gets its owner
	fi, err := os.Stat(target)
	switch {
	case err == nil:
		if fi.IsDir() {
			return Written{}, fmt.Errorf("%s is a directory, not a file; move it out of the way and run again", target)
		}
		if !fi.Mode().IsRegular() {
			return Written{}, fmt.Errorf("%s is not a regular file; replace it with a file and run again", target)
		}
		mode = fi.Mode().Perm()
		if mode&0o200 == 0 {
			return Written{}, fmt.Errorf("%s is read-only (mode %04o); make it writable with: chmod u+w %s", target, mode, ShellQuote(target))
		}
		if old, like, err = fsutil.ReadRegularInfo(target, fsutil.MaxConfigSize); err != nil {
			var nr *fsutil.NotRegularError
			var tl *fsutil.TooLargeError
			if errors.As(err, &nr) || errors.As(err, &tl) {
				return Written{}, err
			}
			return Written{}, fmt.Errorf("cannot read %s: %w", target, err)
		}
		if old == nil {
			old = []byte{} // an empty file exists: not the same as none
		}
	case errors.Is(err, fs.ErrNotExist):
		if _, err := fsutil.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return Written{}, err
		}
	default:
		return Written{}, fmt.Errorf("cannot inspect %s: %w", target, err)
	}
	if (old == nil) != (original == nil) || !bytes.Equal(old, original) {
		// What the user approved is not what is there: the command, run again, shows the change anew.
		return Written{}, remedy.With(fmt.Errorf("%s changed since gw read it", path), remedy.Remedy{Do: remedy.RunAgain})
	}

	w := Written{Path: target}
	if old != nil {
		w.Backup = target + BackupSuffix
		if err := fsutil.WriteBackup(w.Backup, old, backupMode, like); err != nil {
			var nr *fsutil.NotRegularError
			if errors.As(err, &nr) {
				return Written{}, err // a link or a directory as the backup: it says what to do
			}
			return Written{}, fmt.Errorf("cannot keep a backup, so %s was not written: %w", target, err)
		}
	}
	if err := fsutil.WriteAtomic(target, data, mode); err != nil {
		return Written{}, err
	}
	return w, nil
}

// Lock takes the lock other gw processes honour for the agent config at
// path (a symlink's target): held around reading, merging and writing it, so
// that two gw init agent at once do not both merge into the same content and
// lose the first one's change. The lock file, ".<name>.lock" beside the
// target, is never opened through a link, and is removed on release: it
// must not linger in a project directory. A missing directory is created
// for it (as Write would), and removed on release if nothing was written
// there.
func Lock(path string) (release func(), err error) {
	target, err := resolveTarget(path)
	if err != nil {
		target = path // a dangling link: Read says what is wrong with it
	}
	created, err := fsutil.MkdirAll(filepath.Dir(target), 0o755)
	if err != nil {
		return nil, err
	}
	removeCreated := func() {
		for _, d := range created { // deepest first; only the empty ones go
			if fsutil.Remove(d) != nil {
				return
			}
		}
	}
	l, err := fsutil.Acquire(fsutil.LockPath(target))
	if err != nil {
		removeCreated()
		var nr *fsutil.NotRegularError
		if errors.As(err, &nr) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot lock %s: %w", target, err)
	}
	return func() {
		l.ReleaseAndRemove()
		removeCreated()
	}, nil
}

// resolveTarget follows symlinks so that a linked config (dotfiles repos
// do this) is updated in place instead of being replaced by a file.
func resolveTarget(path string) (string, error) {
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", fmt.Errorf("cannot inspect %s: %w", path, err)
	}
	if li.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		link, _ := os.Readlink(path)
		return "", fmt.Errorf("%s is a symlink to %s, which cannot be followed (%v); fix or remove the link", path, link, fsutil.OSReason(err))
	}
	return target, nil
}

// ShellQuote makes a path safe to paste into a shell command gw prints.
func ShellQuote(s string) string { return fsutil.ShellQuote(s) }
