package service

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGwPathFrom_KeepsThePackageManagersLink: gw started through a link (Homebrew's bin/gw → Cellar/gw/1.2)
// is written into the unit as the link, which an upgrade repoints, not as the versioned file the link
// points to today; started by a name on PATH, the same. An arg0 that is not the running binary (a wrapper
// that set argv[0]) is not trusted: the binary's own path is.
func TestGwPathFrom_KeepsThePackageManagersLink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "Cellar", "gw", "1.2", "bin", "gw")
	link := filepath.Join(dir, "bin", "gw")
	other := filepath.Join(dir, "other", "gw")
	for _, p := range []string{real, other} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	onPath := func(name string) (string, error) {
		if name == "gw" {
			return link, nil
		}
		return "", errors.New("not found")
	}
	for _, c := range []struct{ arg0, want string }{
		{link, link},
		{"gw", link},
		{other, real},
		{"gw-wrapper", real},
	} {
		if got := gwPathFrom(c.arg0, real, onPath); got != c.want {
			t.Errorf("arg0 %s: %s, want %s", c.arg0, got, c.want)
		}
	}
}
