package fsutil

// The hostile-directory suite of the file operations: what a repository (or anything else able to write
// beside a file gw reads or writes) can plant there, and what gw must do about it.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadRegular_NamedPipeIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.json")
	testutil.Mkfifo(t, path)
	testutil.Within(t, 10*time.Second, "ReadRegular of a named pipe", func() {
		_, err := ReadRegular(path, MaxConfigSize)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 {
			t.Errorf("err = %v, want a *NotRegularError for a named pipe", err)
			return
		}
		want := "refusing to read " + path + ": it is a named pipe (FIFO), not a regular file; replace it with a regular file, or remove it"
		if err.Error() != want {
			t.Errorf("err = %q\nwant  %q", err, want)
		}
	})
}

// The check that decides is the fstat of the opened descriptor, not the look before opening (a path can be
// swapped in between): opening a named pipe returns at once (O_NONBLOCK) and fstat refuses it.
func TestOpenChecked_NamedPipeOpensAtOnceAndIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.json")
	testutil.Mkfifo(t, path)
	testutil.Within(t, 10*time.Second, "opening a named pipe", func() {
		f, _, err := openChecked(path)
		if err == nil {
			f.Close()
		}
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 {
			t.Errorf("err = %v, want a named pipe refused", err)
		}
	})
}

func TestReadRegular_LinkToDevZeroIsRefusedAtOnce(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	path := filepath.Join(t.TempDir(), "opencode.json")
	testutil.Symlink(t, "/dev/zero", path)
	testutil.Within(t, 10*time.Second, "ReadRegular of a link to /dev/zero", func() {
		_, err := ReadRegular(path, MaxConfigSize)
		want := "refusing to read " + path + ": it is a symlink to /dev/zero, which is a character device, not a regular file; point the link at a regular file, or remove it"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant  %s", err, want)
		}
	})
}

func TestReadRegular_HugeFileIsRefusedUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.json")
	testutil.Sparse(t, path, 100<<20)
	_, err := ReadRegular(path, MaxConfigSize)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v, want *TooLargeError", err)
	}
	want := "refusing to read " + path + ": it is larger than 4 MiB (100 MiB), too large for a config file; check that it is the right file, or move it away and run again"
	if err.Error() != want {
		t.Fatalf("err = %q\nwant  %q", err, want)
	}
	// At the cap exactly: read.
	if err := os.Truncate(path, MaxConfigSize); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadRegular(path, MaxConfigSize); err != nil || len(data) != MaxConfigSize {
		t.Fatalf("a file of exactly the cap: %d bytes, %v", len(data), err)
	}
}

func TestReadRegular_DirectoryAndMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadRegular(dir, MaxConfigSize); err == nil || !strings.Contains(err.Error(), "it is a directory") ||
		!strings.Contains(err.Error(), "move it out of the way") {
		t.Fatalf("directory: err = %v", err)
	}
	if _, err := ReadRegular(filepath.Join(dir, "nope"), MaxConfigSize); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: err = %v, want fs.ErrNotExist", err)
	}
	path := filepath.Join(dir, "ok.json")
	writeFile(t, path, "{}")
	link := filepath.Join(dir, "link.json")
	testutil.Symlink(t, "ok.json", link)
	if data, err := ReadRegular(link, MaxConfigSize); err != nil || string(data) != "{}" {
		t.Fatalf("a link to a regular file is read: %q, %v", data, err)
	}
}

// The backup is a file gw creates: a symlink planted under its name (to the user's ~/.bashrc) is refused,
// and nothing is written through it.
func TestWriteBackup_LinkToAFileOutsideIsRefused(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "bashrc")
	writeFile(t, outside, "export PATH=/usr/bin\n")
	bak := filepath.Join(dir, "opencode.json.bak")
	testutil.Symlink(t, outside, bak)
	err := WriteBackup(bak, []byte("the project's bytes"), 0o600, nil)
	want := "refusing to write the backup " + bak + ": it is a symlink (to " + outside + "); gw writes its backups only as regular files of its own, never through a link or into anything else; remove it (rm " + bak + ") and run again"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	if got := readString(t, outside); got != "export PATH=/usr/bin\n" {
		t.Fatalf("the file outside was written through the link: %q", got)
	}
	if li, err := os.Lstat(bak); err != nil || li.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	assertNoTempFiles(t, dir)

	// A dangling link: its target is not created.
	dangling := filepath.Join(dir, "other.json.bak")
	testutil.Symlink(t, filepath.Join(t.TempDir(), "created-by-gw"), dangling)
	if err := WriteBackup(dangling, []byte("x"), 0o600, nil); err == nil {
		t.Fatal("a dangling link as the backup was accepted")
	}
	if target, _ := os.Readlink(dangling); fileExists(target) {
		t.Fatal("the dangling link's target was created")
	}
}

func TestWriteBackup_DirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	bak := filepath.Join(dir, "opencode.json.bak")
	if err := os.Mkdir(bak, 0o700); err != nil {
		t.Fatal(err)
	}
	err := WriteBackup(bak, []byte("x"), 0o600, nil)
	if err == nil || !strings.Contains(err.Error(), "refusing to write the backup "+bak+": it is a directory;") ||
		!strings.Contains(err.Error(), "move it out of the way and run again") {
		t.Fatalf("err = %v", err)
	}
	assertNoTempFiles(t, dir)
}

func TestWriteBackup_ReplacesAnOlderRegularBackup(t *testing.T) {
	dir := t.TempDir()
	bak := filepath.Join(dir, "opencode.json.bak")
	if err := os.WriteFile(bak, []byte("older"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteBackup(bak, []byte("old"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, bak); got != "old" {
		t.Fatalf("backup holds %q", got)
	}
	if fi, _ := os.Stat(bak); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %04o, want 0600", fi.Mode().Perm())
	}
}

// WriteAtomic follows a link at the path (the user's dotfiles) but never replaces what is not a regular
// file: a link to a named pipe or a device is refused, nothing written.
func TestWriteAtomic_NotARegularFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	testutil.Mkfifo(t, fifo)
	path := filepath.Join(dir, "opencode.json")
	testutil.Symlink(t, fifo, path)
	testutil.Within(t, 10*time.Second, "WriteAtomic over a link to a named pipe", func() {
		err := WriteAtomic(path, []byte("{}"), 0o600)
		if err == nil || !strings.HasPrefix(err.Error(), "cannot replace "+fifo+": it is a named pipe (FIFO), not a regular file") {
			t.Errorf("err = %v", err)
		}
	})
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the named pipe was replaced: %v", err)
	}
	assertNoTempFiles(t, dir)
}

// A temporary file is created with O_EXCL|O_NOFOLLOW: a link planted under the name is never opened, and
// its target (even a missing one) is neither written nor created.
func TestCreateExclusive_PlantedLinkIsNeverOpened(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "bashrc")
	writeFile(t, outside, "mine\n")
	name := filepath.Join(dir, ".opencode.json.tmp-1")
	testutil.Symlink(t, outside, name)
	if f, err := createExclusive(name, 0o600); err == nil {
		f.Close()
		t.Fatal("a planted link was opened as the temporary file")
	}
	if got := readString(t, outside); got != "mine\n" {
		t.Fatalf("the link's target was changed: %q", got)
	}
	missing := filepath.Join(t.TempDir(), "would-be-created")
	name2 := filepath.Join(dir, ".opencode.json.tmp-2")
	testutil.Symlink(t, missing, name2)
	if f, err := createExclusive(name2, 0o600); err == nil {
		f.Close()
		t.Fatal("a planted dangling link was opened")
	}
	if fileExists(missing) {
		t.Fatal("the dangling link's target was created")
	}
}

// A run killed between creating its temporary file and renaming it leaves ".<name>.tmp-*" behind: the
// next write removes the old ones, never a fresh one (another run's, in flight), never a link (nor
// anything through it).
func TestWriteAtomic_RemovesStaleTempFilesOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	old := time.Now().Add(-time.Hour)
	stale := filepath.Join(dir, ".opencode.json.tmp-stale")
	writeFile(t, stale, "half written")
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, ".opencode.json.tmp-fresh")
	writeFile(t, fresh, "in flight")
	other := filepath.Join(dir, ".other.json.tmp-stale")
	writeFile(t, other, "not ours")
	if err := os.Chtimes(other, old, old); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "bashrc")
	writeFile(t, outside, "mine\n")
	if err := os.Chtimes(outside, old, old); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".opencode.json.tmp-link")
	testutil.Symlink(t, outside, link)

	if err := WriteAtomic(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fileExists(stale) {
		t.Error("the stale temporary file was left")
	}
	if !fileExists(fresh) || !fileExists(other) {
		t.Error("a fresh temporary file, or one of another file, was removed")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Error("a link named like a temporary file was removed")
	}
	if got := readString(t, outside); got != "mine\n" {
		t.Errorf("the link's target was changed: %q", got)
	}
}

// A rewrite keeps the owner and group of the file it replaces: gw run as root with the user's HOME
// (sudo -E) must not leave the user's config owned by root.
func TestWriteAtomic_KeepsOwnerAndGroup(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	writeFile(t, path, "{}")
	if err := os.Chown(path, testutil.Nobody, testutil.Nobody); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte(`{"a":1}`), 0o640); err != nil {
		t.Fatal(err)
	}
	assertOwner(t, path)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %04o, want 0640", fi.Mode().Perm())
	}
	// Through a link: the target keeps its owner; so does a backup made like it.
	link := filepath.Join(dir, "link.json")
	testutil.Symlink(t, path, link)
	if err := WriteAtomic(link, []byte(`{"a":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	assertOwner(t, path)
	like, _ := os.Stat(path)
	if err := WriteBackup(path+".bak", []byte("{}"), 0o600, like); err != nil {
		t.Fatal(err)
	}
	assertOwner(t, path+".bak")
}

// gw run as root in the user's HOME (sudo -E) creating a file there: the file, the directories created
// for it and a lock file are the user's (the owner of the directory they were created in), so the user's
// own gw and OpenCode can still read and lock them.
func TestWriteAtomic_NewFilesOfRootGetTheirDirectorysOwner(t *testing.T) {
	testutil.RequireRoot(t)
	home := t.TempDir()
	if err := os.Chown(home, testutil.Nobody, testutil.Nobody); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".config", "gw", "config.json")
	if err := WriteAtomic(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(LockPath(path))
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	for _, p := range []string{filepath.Join(home, ".config"), filepath.Dir(path), path, LockPath(path)} {
		assertOwner(t, p)
	}
}

// The lock file is never opened through a link: a planted one (to a file outside, or dangling, to make
// gw create its target) is refused and its target left alone.
func TestAcquire_PlantedLinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(t.TempDir(), "would-be-created")
	lockPath := filepath.Join(dir, ".opencode.json.lock")
	testutil.Symlink(t, missing, lockPath)
	l, err := Acquire(lockPath)
	if err == nil {
		l.Release()
		t.Fatal("a symlinked lock file was used")
	}
	want := "refusing to use the lock file " + lockPath + ": it is a symlink (to " + missing + "); gw locks only with regular files of its own, never through a link; remove it (rm " + lockPath + ") and run again"
	if err.Error() != want {
		t.Fatalf("err = %q\nwant  %q", err, want)
	}
	if fileExists(missing) {
		t.Fatal("the link's target was created")
	}
	if err := os.Remove(lockPath); err != nil {
		t.Fatal(err)
	}
	fifo := lockPath
	testutil.Mkfifo(t, fifo)
	testutil.Within(t, 10*time.Second, "Acquire on a named pipe", func() {
		if l, err := Acquire(fifo); err == nil || !strings.Contains(err.Error(), "it is a named pipe (FIFO)") {
			if l != nil {
				l.Release()
			}
			t.Errorf("err = %v, want a named pipe refused", err)
		}
	})
}

// Holders that remove the lock file on release still exclude each other: a waiter that got the lock of a
// removed file takes the new one's instead.
func TestAcquire_ReleaseAndRemoveStillExcludes(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, ".counter.lock")
	counter := filepath.Join(dir, "counter")
	writeFile(t, counter, "")
	const n = 8
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			l, err := Acquire(lockPath)
			if err != nil {
				t.Error(err)
				return
			}
			defer l.ReleaseAndRemove()
			b, err := os.ReadFile(counter)
			if err != nil {
				t.Error(err)
				return
			}
			if err := WriteAtomic(counter, append(b, 'x'), 0o600); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := readString(t, counter); len(got) != n {
		t.Fatalf("counter = %q: %d of %d increments kept", got, len(got), n)
	}
	if fileExists(lockPath) {
		t.Fatal("the lock file was left behind")
	}
}

func assertOwner(t *testing.T, path string) {
	t.Helper()
	if uid, gid := testutil.Owner(t, path); uid != testutil.Nobody || gid != testutil.Nobody {
		t.Errorf("%s is owned by %d:%d, want %d:%d (the owner of the file it replaced)", path, uid, gid, testutil.Nobody, testutil.Nobody)
	}
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
