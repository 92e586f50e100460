package agentfile

// A hostile project directory: a repository can ship opencode.json beside files that try to turn gw's
// reads and writes against the user. gw never writes through a link it did not choose, reads only regular
// files of sane size, and says which file is wrong and what to do.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

func writeString(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// opencode.json.bak shipped as a link to the user's ~/.bashrc: the backup is refused, the file outside and
// the config are left as they were.
func TestWrite_BackupLinkedOutsideIsRefusedNothingWritten(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	bashrc := filepath.Join(home, ".bashrc")
	writeString(t, bashrc, "export PATH=$HOME/bin:$PATH\n")
	path := filepath.Join(project, "opencode.json")
	writeString(t, path, "{}\n")
	testutil.Symlink(t, bashrc, path+BackupSuffix)

	_, err := Write(path, []byte("{}\n"), []byte(`{"provider": {}}`+"\n"))
	want := "refusing to write the backup " + path + ".bak: it is a symlink (to " + bashrc + ")"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "remove it (rm "+path+".bak) and run again") {
		t.Fatalf("err = %v\nwant it to start with %s and say to remove the link", err, want)
	}
	if got := readString(t, bashrc); got != "export PATH=$HOME/bin:$PATH\n" {
		t.Fatalf("the file outside the project was written through the link: %q", got)
	}
	if got := readString(t, path); got != "{}\n" {
		t.Fatalf("the config was changed although the backup was refused: %q", got)
	}
	assertNoTempFiles(t, project)
}

func TestWrite_BackupDirectoryIsRefusedNothingWritten(t *testing.T) {
	project := t.TempDir()
	path := filepath.Join(project, "opencode.json")
	writeString(t, path, "{}\n")
	if err := os.Mkdir(path+BackupSuffix, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Write(path, []byte("{}\n"), []byte(`{"provider": {}}`+"\n"))
	if err == nil || !strings.Contains(err.Error(), "refusing to write the backup "+path+".bak: it is a directory") {
		t.Fatalf("err = %v", err)
	}
	if got := readString(t, path); got != "{}\n" {
		t.Fatalf("the config was changed: %q", got)
	}
	assertNoTempFiles(t, project)
}

// opencode.json as a named pipe, a link to /dev/zero, a 100 MB file: Read refuses each at once, naming the
// file; it neither waits for a writer nor reads without end.
func TestRead_NotARegularFileOrHugeIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	testutil.Mkfifo(t, fifo)
	zero := filepath.Join(dir, "zero.json")
	testutil.Symlink(t, "/dev/zero", zero)
	huge := filepath.Join(dir, "huge.json")
	testutil.Sparse(t, huge, 100<<20)
	for path, want := range map[string]string{
		fifo: "refusing to read " + fifo + ": it is a named pipe (FIFO), not a regular file; replace it with a regular file, or remove it",
		zero: "refusing to read " + zero + ": it is a symlink to /dev/zero, which is a character device, not a regular file; point the link at a regular file, or remove it",
		huge: "refusing to read " + huge + ": it is larger than 4 MiB (100 MiB), too large for a config file; check that it is the right file, or move it away and run again",
	} {
		testutil.Within(t, 10*time.Second, "Read "+filepath.Base(path), func() {
			if _, _, err := Read(path); err == nil || err.Error() != want {
				t.Errorf("Read(%s) err = %v\nwant %s", filepath.Base(path), err, want)
			}
		})
	}
}

// gw run as root with the user's HOME (sudo -E): the config it rewrites and the backup it writes stay the
// user's.
func TestWrite_KeepsOwnerOfConfigAndGivesItToTheBackup(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	writeString(t, path, "{}\n")
	if err := os.Chown(path, testutil.Nobody, testutil.Nobody); err != nil {
		t.Fatal(err)
	}
	w, err := Write(path, []byte("{}\n"), []byte("{\"a\": 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{w.Path, w.Backup} {
		if uid, gid := testutil.Owner(t, p); uid != testutil.Nobody || gid != testutil.Nobody {
			t.Errorf("%s is owned by %d:%d, want the user's %d:%d", p, uid, gid, testutil.Nobody, testutil.Nobody)
		}
	}
}

// A lock file planted as a link (dangling, so that gw would create its target) is refused; the lock file
// gw creates itself is gone once released, so none lingers in the project.
func TestLock_PlantedLinkRefusedOwnLockRemoved(t *testing.T) {
	project, elsewhere := t.TempDir(), t.TempDir()
	path := filepath.Join(project, "opencode.json")
	writeString(t, path, "{}\n")
	created := filepath.Join(elsewhere, "created-by-gw")
	testutil.Symlink(t, created, filepath.Join(project, ".opencode.json.lock"))
	if release, err := Lock(path); err == nil {
		release()
		t.Fatal("a symlinked lock file was used")
	} else if !strings.Contains(err.Error(), "refusing to use the lock file "+filepath.Join(project, ".opencode.json.lock")+": it is a symlink") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Lstat(created); err == nil {
		t.Fatal("the link's target was created")
	}

	os.Remove(filepath.Join(project, ".opencode.json.lock"))
	release, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	release()
	entries, _ := os.ReadDir(project)
	if len(entries) != 1 {
		t.Fatalf("the project holds %d entries after the lock was released, want only opencode.json", len(entries))
	}
}

// A directory created only to hold the lock goes with it when nothing was written there (a refused run
// leaves no trace); one that then holds the config stays.
func TestLock_DirectoryCreatedForTheLockIsRemovedIfUnused(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".config", "opencode", "opencode.jsonc")
	release, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if _, err := os.Stat(filepath.Join(home, ".config")); err == nil {
		t.Fatal("the directories created for the lock were left behind")
	}
	release, err = Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(path, nil, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	release()
	if got := readString(t, path); got != "{}\n" {
		t.Fatalf("config = %q", got)
	}
}
