package fsutil

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// /proc's files say they are empty (size 0) and still hold text: ReadHead reads them, up to its cap.
func TestReadHead_ProcFilesOfSizeZeroAreRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	path := "/proc/self/cmdline"
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Skipf("%s: size %v (%v), want the kernel's 0", path, fi, err)
	}
	got, err := ReadHead(path, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	argv0, _, _ := bytes.Cut(got, []byte{0})
	if string(argv0) != os.Args[0] {
		t.Errorf("argv[0] read = %q, want %q", argv0, os.Args[0])
	}
	if short, err := ReadHead(path, 3); err != nil || string(short) != os.Args[0][:3] {
		t.Errorf("ReadHead(…, 3) = %q, %v; want the first 3 bytes %q", short, err, os.Args[0][:3])
	}
}

func TestReadHead_ReadsOnlyTheBeginning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "os-release")
	writeFile(t, path, "ID=debian\n"+strings.Repeat("#", 1<<20))
	got, err := ReadHead(path, 10)
	if err != nil || string(got) != "ID=debian\n" {
		t.Errorf("ReadHead = %q, %v; want the first line", got, err)
	}
	if _, err := ReadHead(filepath.Join(t.TempDir(), "none"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v, want fs.ErrNotExist", err)
	}
}

func TestReadHead_NamedPipeIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "org.freedesktop.secrets.service")
	testutil.Mkfifo(t, path)
	testutil.Within(t, 10*time.Second, "ReadHead of a named pipe", func() {
		_, err := ReadHead(path, 1<<10)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 {
			t.Errorf("err = %v, want a *NotRegularError for a named pipe", err)
		}
	})
}

func TestReadDirNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.service", "a.service", ".hidden"} {
		writeFile(t, filepath.Join(dir, n), "")
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDirNames(dir)
	if want := []string{".hidden", "a.service", "b.service", "sub"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ReadDirNames = %q, %v; want %q", got, err, want)
	}
	if _, err := ReadDirNames(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: err = %v, want fs.ErrNotExist", err)
	}
	file := filepath.Join(dir, "a.service")
	_, err = ReadDirNames(file)
	if want := "refusing to list " + file + ": it is a regular file, not a directory; replace it with a directory, or remove it"; err == nil || err.Error() != want {
		t.Errorf("a file: err = %v\nwant %s", err, want)
	}
}

// A named pipe where a directory was expected (~/.gemini, a log directory) is refused, never waited on.
func TestReadDirNames_NamedPipeIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini")
	testutil.Mkfifo(t, path)
	testutil.Within(t, 10*time.Second, "ReadDirNames of a named pipe", func() {
		_, err := ReadDirNames(path)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Op != OpList || nr.Mode&fs.ModeNamedPipe == 0 {
			t.Errorf("err = %v, want a *NotRegularError (list) for a named pipe", err)
		}
	})
}

func TestRemove_GoneIsDoneAndALinkGoesNotItsTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	writeFile(t, target, "kept")
	link := filepath.Join(dir, "link")
	testutil.Symlink(t, target, link)
	if err := Remove(link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
	if got := readString(t, target); got != "kept" {
		t.Errorf("target = %q, want it untouched", got)
	}
	if err := Remove(link); err != nil {
		t.Errorf("removing what is gone: %v, want no error", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "full"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "full", "f"), "")
	if err := Remove(filepath.Join(dir, "full")); err == nil {
		t.Error("a directory that is not empty was removed")
	}
}
