package agentfile

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Diff is a unified diff of a config change, for --dry-run. Carriage
// returns are shown as-is so a CRLF file's diff applies to it.
func Diff(path string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	// The path as it is (not git's a/ b/ prefixes, which would double the
	// slash of an absolute path): the diff applies with patch -p0.
	from, to := filepath.ToSlash(path), filepath.ToSlash(path)
	if old == nil {
		from = "/dev/null"
	}
	ud := difflib.UnifiedDiff{
		A:        splitLines(string(old)),
		B:        splitLines(string(new)),
		FromFile: from,
		ToFile:   to,
		Context:  3,
	}
	s, err := difflib.GetUnifiedDiffString(ud)
	if err != nil {
		return fmt.Sprintf("(cannot compute diff: %v)\n", err)
	}
	return s
}

// splitLines keeps line endings and marks a missing final newline the way
// diff(1) does, so the output is a valid patch.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}
