//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelgateway/gw/internal/testutil"
)

// What a repository can ship to make a write in the project land outside it: a link at the file, at a
// directory above it, dangling (gw would create the target), through a chain of links or "..". Each is
// an *OutsideError naming the link and where it leads; links that stay inside, and a project reached
// through the user's own link, are fine.
func TestCheckInside(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir()) // macOS's temporary directory is behind a link
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{proj, outside, filepath.Join(proj, "real"), filepath.Join(proj, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	viaLink := filepath.Join(base, "mine")
	testutil.Symlink(t, proj, viaLink)
	link := func(target, at string) { testutil.Symlink(t, target, filepath.Join(proj, at)) }
	link(filepath.Join(outside, "settings.json"), "file-abs.json")
	link("../outside/settings.json", "file-rel.json")
	link(outside, "dir-abs")
	link("../outside/missing", "dir-dangling")
	link("sub/../../outside", "dir-dotdot")
	link("hop", "chain")
	link("dir-abs", "hop")
	link("real", "dir-inside")
	link("real/settings.json", "file-inside.json")
	link("loop-b", "loop-a")
	link("loop-a", "loop-b")

	for _, c := range []struct {
		path, link, target string // link "": no error
	}{
		{"file-abs.json", "file-abs.json", filepath.Join(outside, "settings.json")},
		{"file-rel.json", "file-rel.json", filepath.Join(outside, "settings.json")},
		{"dir-abs/settings.json", "dir-abs", outside},
		{"dir-dangling/settings.json", "dir-dangling", filepath.Join(outside, "missing")},
		{"dir-dotdot/settings.json", "dir-dotdot", outside},
		{"chain/settings.json", "chain", outside},
		{"dir-inside/settings.json", "", ""},
		{"file-inside.json", "", ""},
		{"new/dir/settings.json", "", ""},
		{"real/settings.json", "", ""},
	} {
		for _, root := range []string{proj, viaLink} {
			path := filepath.Join(root, c.path)
			err := CheckInside(root, path)
			var oe *OutsideError
			switch {
			case c.link == "" && err != nil:
				t.Errorf("%s: %v", path, err)
			case c.link != "" && !errors.As(err, &oe):
				t.Errorf("%s: err = %v, want it refused", path, err)
			case c.link != "" && (oe.Link != filepath.Join(root, c.link) || oe.Target != c.target || oe.Path != path || oe.Root != root):
				t.Errorf("%s: %+v, want link %s to %s", path, oe, filepath.Join(root, c.link), c.target)
			}
		}
	}
	err = CheckInside(proj, filepath.Join(proj, "loop-a", "x.json"))
	if err == nil || err.Error() != "cannot inspect "+filepath.Join(proj, "loop-a")+": too many levels of symbolic links" {
		t.Errorf("a loop of links: %v", err)
	}
	want := "refusing to write " + filepath.Join(proj, "dir-abs", "settings.json") + ": " + filepath.Join(proj, "dir-abs") + " is a symlink to " + outside +
		", outside " + proj + "; gw writes a project's files only inside the project (a link that came with it was chosen by whoever wrote it, not by you); remove the link (rm " +
		filepath.Join(proj, "dir-abs") + ") or point it inside the project"
	if err := CheckInside(proj, filepath.Join(proj, "dir-abs", "settings.json")); err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("something was created outside: %v", entries)
	}
}
