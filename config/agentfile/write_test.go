package agentfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelgateway/gw/internal/remedy"
)

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteNewFileIsPrivateAndCreatesDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode", "opencode.jsonc")
	w, err := Write(path, nil, []byte("{}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != path || w.Backup != "" {
		t.Fatalf("Written = %+v", w)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("new config mode = %04o, want 0600 (it may hold the local token)", fi.Mode().Perm())
	}
	assertNoTempFiles(t, filepath.Dir(path))
}

func TestWriteKeepsModeAndBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	w, err := Write(path, []byte("old\n"), []byte("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "new\n" {
		t.Fatalf("content = %q", got)
	}
	if w.Backup != path+".bak" || readString(t, w.Backup) != "old\n" {
		t.Fatalf("backup %q holds %q, want the old content", w.Backup, readString(t, w.Backup))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("%s mode = %04o, want 0640 kept", path, fi.Mode().Perm())
	}
	// The backup may hold a key the change took out of the config: owner only.
	if fi, _ := os.Stat(w.Backup); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("backup %s mode = %04o, want 0600", w.Backup, fi.Mode().Perm())
	}
	assertNoTempFiles(t, dir)
}

// An existing world-readable backup (from an earlier gw) is replaced by an owner-only one.
func TestWriteBackupIsOwnerOnlyEvenOverAnOldReadableOne(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	old := []byte(`{"provider":{"gw":{"options":{"apiKey":"sk-gw-demo-full"}}}}`)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+BackupSuffix, []byte("older\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Write(path, old, []byte("{}\n"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(w.Backup)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode = %04o, want 0600: it holds the key that was in the config", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("config mode = %04o, want its own 0644 kept", fi.Mode().Perm())
	}
}

func TestWriteFollowsSymlinkToTarget(t *testing.T) {
	dir := t.TempDir()
	dotfiles := filepath.Join(dir, "dotfiles")
	if err := os.Mkdir(dotfiles, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dotfiles, "opencode.jsonc")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "opencode.jsonc")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks not available:", err)
	}
	w, err := Write(link, []byte("old\n"), []byte("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if readString(t, target) != "new\n" {
		t.Fatal("target not updated")
	}
	if w.Path != target || w.Backup != target+".bak" {
		t.Fatalf("Written = %+v, want the target and its backup", w)
	}
}

func TestWriteRefusesDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "opencode.jsonc")
	if err := os.Symlink(filepath.Join(dir, "gone", "opencode.jsonc"), link); err != nil {
		t.Skip("symlinks not available:", err)
	}
	_, err := Write(link, nil, []byte("{}"))
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("err = %v, want a message about the symlink", err)
	}
	if _, _, err := Read(link); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Read err = %v", err)
	}
}

func TestWriteRefusesReadOnlyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := Write(path, []byte("old\n"), []byte("new\n"))
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "chmod u+w") {
		t.Fatalf("err = %v, want read-only with the fix", err)
	}
	if readString(t, path) != "old\n" {
		t.Fatal("read-only file was changed")
	}
	if _, err := os.Stat(path + ".bak"); err == nil {
		t.Fatal("a backup was written although nothing changed")
	}
}

func TestWriteRefusesDirectoryInTheWay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.jsonc")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(path, nil, []byte("{}")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Write err = %v", err)
	}
	if _, _, err := Read(path); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Read err = %v", err)
	}
}

func TestWriteUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := Write(path, []byte("old\n"), []byte("new\n"))
	want := "cannot write in " + dir + ": permission denied; check the directory's permissions"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("err = %v, want it to contain %q and not name the temporary file", err, want)
	}
	if readString(t, path) != "old\n" {
		t.Fatal("file changed")
	}
}

// The user may sit at the confirmation while editing the file elsewhere:
// Write must not overwrite that edit with content merged from the old one.
func TestWriteRefusesFileChangedSinceRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.jsonc")
	created := filepath.Join(dir, "new", "opencode.jsonc")
	if err := os.MkdirAll(filepath.Dir(created), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, onDisk string
		original           []byte // nil: the file did not exist when read
	}{
		{"edited", path, "{\"theme\": \"light\"}\n", []byte("{\"theme\": \"dark\"}\n")},
		{"emptied", path, "", []byte("{}\n")},
		{"created meanwhile", created, "{\"share\": \"manual\"}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(tt.path, []byte(tt.onDisk), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(tt.path + BackupSuffix)
			_, err := Write(tt.path, tt.original, []byte("{\"merged\": true}\n"))
			if r, _ := remedy.Of(err); err == nil || err.Error() != tt.path+" changed since gw read it" || r.Do != remedy.RunAgain {
				t.Fatalf("err = %v, want the file-changed refusal", err)
			}
			if got := readString(t, tt.path); got != tt.onDisk {
				t.Fatalf("content = %q, want the edit %q kept", got, tt.onDisk)
			}
			if _, err := os.Stat(tt.path + BackupSuffix); err == nil {
				t.Fatal("a backup was written although nothing changed")
			}
			assertNoTempFiles(t, filepath.Dir(tt.path))
		})
	}

	// A file deleted since it was read is not silently re-created either.
	gone := filepath.Join(dir, "gone.jsonc")
	if _, err := Write(gone, []byte("{}\n"), []byte("{\"merged\": true}\n")); err == nil || !strings.Contains(err.Error(), "changed since gw read it") {
		t.Fatalf("err = %v, want the file-changed refusal", err)
	}
	if _, err := os.Stat(gone); err == nil {
		t.Fatal("a deleted file was re-created")
	}
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

func TestDiff(t *testing.T) {
	old := []byte("{\n  \"theme\": \"dark\"\n}\n")
	new := []byte("{\n  \"theme\": \"dark\",\n  \"model\": \"gw/x\"\n}\n")
	want := `--- opencode.json
+++ opencode.json
@@ -1,3 +1,4 @@
 {
-  "theme": "dark"
+  "theme": "dark",
+  "model": "gw/x"
 }
`
	if got := Diff("opencode.json", old, new); got != want {
		t.Fatalf("Diff =\n%s\nwant\n%s", got, want)
	}
	if got := Diff("opencode.json", old, old); got != "" {
		t.Fatalf("Diff of identical content = %q, want empty", got)
	}
	if got := Diff("opencode.json", nil, []byte("{}\n")); !strings.HasPrefix(got, "--- /dev/null\n+++ opencode.json\n") {
		t.Fatalf("Diff of a new file =\n%s", got)
	}
}
