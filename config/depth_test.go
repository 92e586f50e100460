package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The depth scan counts only the brackets a JSON parser would: not those inside strings (escaped quotes
// included) or comments, and it finds the first bracket past the limit.
func TestJSONDepth(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		src  string
		want int
	}{
		{deep(3), -1},
		{deep(4), 3},
		{`{"a": {"b": [1]}}`, -1},
		{`{"a": {"b": [[1]]}}`, 13},
		{`{"a": "[[[[[[", "b": [1]}`, -1},
		{`{"a": "\"[[[[[", "b": [1]}`, -1},
		{`{"a": "\\", "b": [[[[1]]]]}`, 19},
		{"// [[[[\n[1]", -1},
		{"/* [[[[ */ [1] /* unterminated [[[[", -1},
		{"/**/[[[[", 7},
		{strings.Repeat("[", 3) + "]]]" + strings.Repeat("[", 3), -1},
		{"]]]]" + deep(3), -1},
	} {
		if got := JSONDepth([]byte(c.src), 3); got != c.want {
			t.Errorf("JSONDepth(%q, 3) = %d, want %d", c.src, got, c.want)
		}
	}
}

// gw's own config.json nested a million levels deep (2 MB, under the 4 MiB read cap): Load and Update
// refuse it naming the file, the position and the limit, and leave it byte-identical.
func TestLoad_DeeplyNestedIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	src := []byte(`{"port": ` + strings.Repeat("[\n", 1_000_000))
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	want := "config file " + path + ":1000:1: " + TooDeepMsg + " (gw has not changed it)"
	_, err := Load(path)
	var pe *ParseError
	if !errors.As(err, &pe) || err.Error() != want {
		t.Fatalf("Load err = %v\nwant %s", err, want)
	}
	if !strings.Contains(want, "nested deeper than 1000 levels") {
		t.Fatalf("the message does not name the limit: %s", want)
	}
	if err := Update(path, func(f *File) error { f.Port = 9000; return nil }); err == nil || err.Error() != want {
		t.Fatalf("Update err = %v\nwant %s", err, want)
	}
	if b, _ := os.ReadFile(path); string(b) != string(src) {
		t.Fatal("config.json changed")
	}
}
