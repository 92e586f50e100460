package fsutil

import (
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
