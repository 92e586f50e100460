package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteAtomic_ExactModeOverExistingFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("content = %q, want new", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode = %04o, want 0640 as asked", fi.Mode().Perm())
	}
	assertNoTempFiles(t, filepath.Dir(path))
}

// A directory in the way is refused before anything is written, no temporary
// file left, and the error names the file to be replaced.
func TestWriteAtomic_DirectoryInTheWayIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := WriteAtomic(path, []byte("new"), 0o600)
	if err == nil || !strings.HasPrefix(err.Error(), "cannot replace "+path+": ") || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("err = %v, want cannot replace %s without the temporary name", err, path)
	}
	assertNoTempFiles(t, dir)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// WriteOwnFrom: what fill writes replaces the file whole; a fill that fails
// halfway leaves the file as it was and no temporary file; a link at the
// name is refused, its target untouched.
func TestWriteOwnFrom_WholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "serve.log.2.gz")
	if err := WriteOwnFrom(path, 0o600, func(f *os.File) error {
		_, err := f.WriteString("first")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	err := WriteOwnFrom(path, 0o600, func(f *os.File) error {
		f.WriteString("half of the second")
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v, want it to name %s and the reason", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Errorf("after a failed fill the file holds %q, want it as it was", b)
	}
	assertNoTempFiles(t, dir)
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link.gz")
	if err := os.Symlink(victim, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	var nr *NotRegularError
	if err := WriteOwnFrom(link, 0o600, func(f *os.File) error { _, err := f.WriteString("x"); return err }); !errors.As(err, &nr) {
		t.Errorf("err = %v, want a NotRegularError for the link", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
}
