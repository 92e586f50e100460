package cmdutil

import (
	"slices"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		words  string
		indent string
		width  int
		want   string
	}{
		{"a|bb|ccc|dddd", "", 6, "a bb\nccc\ndddd"},
		{"(a,|bb,|Claude Code)", "  ", 10, "  (a, bb,\n  Claude Code)"},
		{"one", "", 1, "one"},
	} {
		if got := Wrap(strings.Split(tc.words, "|"), tc.width, tc.indent); got != tc.want {
			t.Errorf("Wrap(%q, %d, %q) = %q, want %q", tc.words, tc.width, tc.indent, got, tc.want)
		}
	}
	if got := Wrap(nil, 10, ""); got != "" {
		t.Errorf("Wrap(nil) = %q", got)
	}
}

func TestListWords(t *testing.T) {
	if got := ListWords([]string{"OpenCode", "Claude Code", "Codex"}); !slices.Equal(got, []string{"(OpenCode,", "Claude Code,", "Codex)"}) {
		t.Errorf("ListWords = %q", got)
	}
	if got := ListWords([]string{"Cursor"}); !slices.Equal(got, []string{"(Cursor)"}) {
		t.Errorf("ListWords of one = %q", got)
	}
}
