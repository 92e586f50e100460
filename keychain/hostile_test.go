package keychain

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// The insecure credentials file as a named pipe: refused at once, naming the file; Set writes nothing.
func TestFileStore_NamedPipeIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "credentials.json")
	testutil.Mkfifo(t, path)
	want := "refusing to read " + path + ": it is a named pipe (FIFO), not a regular file; replace it with a regular file, or remove it"
	s := NewFile(path)
	testutil.Within(t, 10*time.Second, "the file store on a named pipe", func() {
		if _, err := s.Get(DefaultAccount); err == nil || err.Error() != want {
			t.Errorf("Get err = %v\nwant %s", err, want)
		}
		if err := s.Set(DefaultAccount, "sk-test-1234"); err == nil || err.Error() != want {
			t.Errorf("Set err = %v\nwant %s", err, want)
		}
	})
}

// gw run as root with the user's HOME (sudo -E) leaves the user's credentials file theirs.
func TestFileStore_SetKeepsOwner(t *testing.T) {
	testutil.RequireRoot(t)
	path := filepath.Join(t.TempDir(), "credentials.json")
	if err := os.WriteFile(path, []byte(`{"default": "sk-old-1234"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, testutil.Nobody, testutil.Nobody); err != nil {
		t.Fatal(err)
	}
	if err := NewFile(path).Set(DefaultAccount, "sk-new-5678"); err != nil {
		t.Fatal(err)
	}
	if uid, gid := testutil.Owner(t, path); uid != testutil.Nobody || gid != testutil.Nobody {
		t.Fatalf("credentials.json is owned by %d:%d after the rewrite, want the user's %d:%d", uid, gid, testutil.Nobody, testutil.Nobody)
	}
}
