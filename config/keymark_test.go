package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Every rewrite of the key-changed file gives it a new stamp, even two in a row faster than the file
// system's clock; the file is private and says what it is, and nothing else.
func TestKeyChangedFileStampChangesWithEveryMark(t *testing.T) {
	p := Paths{ConfigDir: filepath.Join(t.TempDir(), "gw")}
	path := p.KeyChangedFile()
	missing, err := KeyChangedStamp(path)
	if err != nil {
		t.Fatalf("no file yet: %v", err)
	}
	seen := map[[4]uint64]bool{missing: true}
	for i := range 5 {
		if err := MarkKeyChanged(path); err != nil {
			t.Fatal(err)
		}
		s, err := KeyChangedStamp(path)
		if err != nil {
			t.Fatal(err)
		}
		if seen[s] {
			t.Fatalf("mark %d left the stamp as it was before", i+1)
		}
		seen[s] = true
		if again, _ := KeyChangedStamp(path); again != s {
			t.Fatalf("the stamp changed without a mark")
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if string(b) != keyChangedText || !strings.Contains(string(b), "no secret") {
		t.Errorf("content: %q", b)
	}
}

// A link or a directory planted at the file's name is neither written through nor taken for an unchanged
// key: the stamp is an error (the caller then cannot tell), the mark is refused.
func TestKeyChangedFileNotARegularFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "bashrc")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := Paths{ConfigDir: dir}.KeyChangedFile()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if _, err := KeyChangedStamp(path); err == nil {
		t.Error("a symlink gave a stamp")
	}
	if err := MarkKeyChanged(path); err == nil {
		t.Error("the mark was written through a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target was changed: %q", b)
	}
}
