package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// serve.log is a file gw appends to: a symlink planted under its name (to the user's ~/.bashrc) is
// refused, and not one line goes through it.
func TestOpenAppend_LinkToAFileOutsideIsRefused(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "bashrc")
	writeFile(t, outside, "export PATH=/usr/bin\n")
	log := filepath.Join(dir, "serve.log")
	testutil.Symlink(t, outside, log)
	f, err := OpenAppend(log, 0o600)
	if err == nil {
		f.Close()
	}
	want := "refusing to write the log " + log + ": it is a symlink (to " + outside + "); gw writes its logs only as regular files of its own, never through a link; remove it (rm " + log + ") and run again"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	if got := readString(t, outside); got != "export PATH=/usr/bin\n" {
		t.Fatalf("the file outside was opened through the link: %q", got)
	}

	// A dangling link: its target is not created.
	dangling := filepath.Join(dir, "other.log")
	testutil.Symlink(t, filepath.Join(t.TempDir(), "created-by-gw"), dangling)
	if f, err := OpenAppend(dangling, 0o600); err == nil {
		f.Close()
		t.Fatal("a dangling link as the log was accepted")
	}
	if target, _ := os.Readlink(dangling); fileExists(target) {
		t.Fatal("the dangling link's target was created")
	}
}

func TestOpenAppend_NamedPipeIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.log")
	testutil.Mkfifo(t, path)
	testutil.Within(t, 10*time.Second, "OpenAppend of a named pipe", func() {
		f, err := OpenAppend(path, 0o600)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 {
			if f != nil {
				f.Close()
			}
			t.Errorf("err = %v, want a *NotRegularError for a named pipe", err)
		}
	})
}

func TestOpenAppend_CreatesThenAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "serve.log")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenAppend(path, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if got := readString(t, path); got != "one\ntwo\n" {
		t.Errorf("log: %q", got)
	}
	if fi, err := os.Stat(path); err != nil || (fi.Mode().Perm() != 0o600 && runtime.GOOS != "windows") {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
}

// The state files (gw serve's address) are gw's own too: never written or read through a link.
func TestWriteOwnAndReadOwn_LinksAreRefused(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "bashrc")
	writeFile(t, outside, "export PATH=/usr/bin\n")
	path := filepath.Join(dir, "serve.json")
	testutil.Symlink(t, outside, path)
	var nr *NotRegularError
	if err := WriteOwn(path, []byte("{}"), 0o600); !errors.As(err, &nr) || nr.Op != OpState {
		t.Errorf("WriteOwn through a link: %v", err)
	}
	if got := readString(t, outside); got != "export PATH=/usr/bin\n" {
		t.Fatalf("the file outside was written through the link: %q", got)
	}
	if _, err := ReadOwn(path, 4096); !errors.As(err, &nr) || nr.Op != OpState {
		t.Errorf("ReadOwn through a link: %v", err)
	}

	own := filepath.Join(dir, "own.json")
	if err := WriteOwn(own, []byte(`{"addr":"127.0.0.1:1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadOwn(own, 4096); err != nil || string(b) != `{"addr":"127.0.0.1:1"}` {
		t.Errorf("ReadOwn: %q, %v", b, err)
	}
	if _, err := ReadOwn(own, 4); err == nil {
		t.Error("a file over the cap was read")
	}
	if _, err := ReadOwn(filepath.Join(dir, "missing"), 4096); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
