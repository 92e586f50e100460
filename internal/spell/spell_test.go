package spell

import "testing"

// A typo is counted by characters, not bytes: "claudé" is one edit from "claude".
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"claude", "claude", 0}, {"cluade", "claude", 2}, {"codx", "codex", 1}, {"claudé", "claude", 1}, {"", "pi", 2}, {"kitten", "sitting", 3}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
