package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OutsideError is a path below a directory (a project's) that a symlink on the way, the file itself or
// a directory above it, takes outside that directory.
type OutsideError struct {
	Path   string // the file gw was about to write
	Link   string // the symlink on the way: Path, or a directory between Root and Path
	Target string // where the link leads, every link in it followed
	Root   string // the directory Path must stay in
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("refusing to write %s: %s is a symlink to %s, outside %s; gw writes a project's files only inside the project (a link that came with it was chosen by whoever wrote it, not by you); remove the link (rm %s) or point it inside the project",
		e.Path, e.Link, e.Target, e.Root, ShellQuote(e.Link))
}

// maxLinks bounds the symlinks CheckInside follows for one path (a loop of links ends there).
const maxLinks = 40

// CheckInside makes sure that writing path, a file below root, writes inside root: no symlink on the
// way (path itself, or a directory between root and path, dangling or not) leads outside root, which
// would make gw write there, or create the link's missing target and the directories above it. Links
// that stay inside root are fine, and so is a root that is itself reached through a link (the user's
// own). A link outside is an *OutsideError naming it and where it leads; nothing is created or written.
func CheckInside(root, path string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("cannot inspect %s: %w", root, OSReason(err))
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("refusing to write %s: it is not inside %s", path, root)
	}
	cur, spelled, hops := realRoot, root, 0
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "" || part == "." {
			continue
		}
		spelled = filepath.Join(spelled, part)
		li, err := os.Lstat(filepath.Join(cur, part))
		isLink := err == nil && li.Mode()&fs.ModeSymlink != 0
		if cur, err = follow(cur, []string{part}, &hops); err != nil {
			return fmt.Errorf("cannot inspect %s: %w", spelled, err)
		}
		if isLink && !within(realRoot, cur) {
			return &OutsideError{Path: path, Link: spelled, Target: cur, Root: root}
		}
	}
	return nil
}

// follow walks parts from cur, a directory without links in its path, as the kernel would: a symlink is
// replaced by its target (followed in turn), ".." goes to the parent of where the walk is. A missing
// component ends nothing: what follows it is joined as written (gw would create it).
func follow(cur string, parts []string, hops *int) (string, error) {
	for _, part := range parts {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		li, err := os.Lstat(next)
		switch {
		case err == nil && li.Mode()&fs.ModeSymlink != 0:
			if *hops++; *hops > maxLinks {
				return "", errors.New("too many levels of symbolic links")
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", OSReason(err)
			}
			from := cur
			if filepath.IsAbs(target) {
				from = filepath.VolumeName(target) + string(filepath.Separator)
				target = target[len(from):]
			}
			if next, err = follow(from, strings.Split(filepath.ToSlash(target), "/"), hops); err != nil {
				return "", err
			}
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", OSReason(err)
		}
		cur = next
	}
	return cur, nil
}

// within: p is root or below it (both clean and absolute).
func within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}
