package config

// gw's own config file in a hostile or broken state: not a regular file, another user's, a planted lock.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// config.json as a named pipe or a link to /dev/zero: Load refuses it at once, naming the file and what
// to do, and Update writes nothing.
func TestLoad_NotARegularFileIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo", "config.json")
	os.Mkdir(filepath.Dir(fifo), 0o700)
	testutil.Mkfifo(t, fifo)
	zero := filepath.Join(dir, "zero", "config.json")
	os.Mkdir(filepath.Dir(zero), 0o700)
	testutil.Symlink(t, "/dev/zero", zero)
	for path, want := range map[string]string{
		fifo: "refusing to read " + fifo + ": it is a named pipe (FIFO), not a regular file; replace it with a regular file, or remove it",
		zero: "refusing to read " + zero + ": it is a symlink to /dev/zero, which is a character device, not a regular file; point the link at a regular file, or remove it",
	} {
		testutil.Within(t, 10*time.Second, "Load and Update of "+path, func() {
			if _, err := Load(path); err == nil || err.Error() != want {
				t.Errorf("Load err = %v\nwant %s", err, want)
			}
			if err := Update(path, func(f *File) error { f.Port = 9000; return nil }); err == nil || err.Error() != want {
				t.Errorf("Update err = %v\nwant %s", err, want)
			}
		})
	}
}

// gw run as root with the user's HOME (sudo -E) leaves the user's config.json theirs.
func TestUpdate_KeepsOwner(t *testing.T) {
	testutil.RequireRoot(t)
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"port": 9000}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, testutil.Nobody, testutil.Nobody); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureLocalToken(path); err != nil {
		t.Fatal(err)
	}
	if uid, gid := testutil.Owner(t, path); uid != testutil.Nobody || gid != testutil.Nobody {
		t.Fatalf("config.json is owned by %d:%d after the rewrite, want the user's %d:%d", uid, gid, testutil.Nobody, testutil.Nobody)
	}
	if c, err := Load(path); err != nil || c.Port != 9000 || c.LocalToken == "" {
		t.Fatalf("Load = %+v, %v", c, err)
	}
}

// A lock file planted as a dangling link: refused, its target not created, the config untouched.
func TestUpdate_SymlinkedLockFileIsRefused(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte(`{"port": 9000}`), 0o600); err != nil {
		t.Fatal(err)
	}
	created := filepath.Join(elsewhere, "created-by-gw")
	testutil.Symlink(t, created, filepath.Join(dir, ".config.json.lock"))
	err := Update(path, func(f *File) error { f.Port = 9001; return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "cannot lock "+path+": refusing to use the lock file "+filepath.Join(dir, ".config.json.lock")+": it is a symlink") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Lstat(created); err == nil {
		t.Fatal("the link's target was created")
	}
	if b, _ := os.ReadFile(path); string(b) != `{"port": 9000}` {
		t.Fatalf("config changed: %s", b)
	}
}
