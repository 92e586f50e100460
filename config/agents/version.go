package agents

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/modelgateway/gw/internal/fsutil"
)

// InstalledVersion is the version of the npm package pkg that the command at bin belongs to, read from
// the package.json of the directory it is installed in (a platform package "pkg-os-arch" counts too):
// nothing is run. ok is false when bin is not part of such a package (a binary installed another way).
func InstalledVersion(bin, pkg string) (version string, ok bool) {
	if pkg == "" {
		return "", false
	}
	p, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", false
	}
	dir := filepath.Dir(p)
	for range 4 {
		if v, ok := packageVersion(filepath.Join(dir, "package.json"), pkg); ok {
			return v, true
		}
		parent := filepath.Dir(dir)
		if parent == dir || filepath.Base(dir) == "node_modules" {
			break
		}
		dir = parent
	}
	return "", false
}

func packageVersion(path, pkg string) (string, bool) {
	// A regular file only, read capped: a FIFO or device planted in a
	// directory on PATH must not hang gw doctor.
	b, err := fsutil.ReadRegular(path, 1<<20)
	if err != nil {
		return "", false
	}
	var m struct{ Name, Version string }
	if json.Unmarshal(b, &m) != nil || m.Version == "" || (m.Name != pkg && !strings.HasPrefix(m.Name, pkg+"-")) {
		return "", false
	}
	return m.Version, true
}
