//go:build unix

package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelgateway/gw/internal/fsutil"
)

// TestRunRun_HomeOfAKilledRunIsRemovedNextRun: gw run gemini killed with SIGKILL leaves its private home
// (0700, no key) and the lock file beside it, whose lock the system let go with the process. The next gw
// run removes it — and only it: a home another gw run still holds stays, a link named like one is not
// followed (its target keeps its files), and a directory without a lock file is left until it is a day old.
func TestRunRun_HomeOfAKilledRunIsRemovedNextRun(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mk := func(path string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(path, ".gemini"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, ".gemini", "settings.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	killed := mk(filepath.Join(tmp, "gw-run-111"))
	if err := os.WriteFile(killed+".lock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := fsutil.NewPrivateTemp("gw-run-")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Remove()
	mk(held.Dir)
	target := mk(filepath.Join(t.TempDir(), "elsewhere"))
	if err := os.Symlink(target, filepath.Join(tmp, "gw-run-222")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "gw-run-222.lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	unlocked := mk(filepath.Join(tmp, "gw-run-333"))

	fakeAgentOnPath(t, "gemini")
	e, opts := runEnv(t, "gemini", "report", "-p", "do it")
	e.Vars["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = filepath.Join(t.TempDir(), "settings.json")
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	for path, want := range map[string]bool{
		killed: false, killed + ".lock": false,
		held.Dir: true, filepath.Join(tmp, "gw-run-222"): true, filepath.Join(target, ".gemini", "settings.json"): true,
		unlocked: true,
	} {
		if _, err := os.Lstat(path); (err == nil) != want {
			t.Errorf("%s there after the next gw run: %v, want %v", path, err == nil, want)
		}
	}
}
