package jsonc

import (
	"errors"
	"testing"

	"github.com/tailscale/hujson"
)

func TestDialects(t *testing.T) {
	comments := Dialect{Comments: true, Agent: "X"}
	plain := Dialect{Agent: "X"}
	for _, c := range []struct {
		src        string
		d          Dialect
		line, col  int
		acceptable bool
	}{
		{"{\"a\": 1}", plain, 0, 0, true},
		{"{\n  // c\n  \"a\": 1\n}", plain, 2, 3, false},
		{"{\n  // c\n  \"a\": 1\n}", comments, 0, 0, true},
		{"{\"a\": 1, /* c */ }", comments, 1, 8, false},
		{"{\"a\": \"//not a comment,\"}", plain, 0, 0, true},
		{"{\"a\": [1, 2,]}", HuJSON, 0, 0, true},
		{"{\"a\": [1, 2,]}", comments, 1, 12, false},
		{"\uFEFF{}", plain, 1, 1, false},
		{"\uFEFF{}", HuJSON, 0, 0, true},
		{"", plain, 0, 0, true},
	} {
		_, err := Parse([]byte(c.src), c.d)
		var pe *ParseError
		switch {
		case c.acceptable && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case !c.acceptable && (!errors.As(err, &pe) || pe.Line != c.line || pe.Column != c.col):
			t.Errorf("%q: got %v, want line %d column %d", c.src, err, c.line, c.col)
		}
	}
}

// SyncList keeps the user's elements and their order, and gw's elements in
// step with what is wanted.
func TestSyncList(t *testing.T) {
	f, err := Parse([]byte("{\n  \"l\": [\n    {\"id\": \"user\"},\n    {\"id\": \"old\", \"gw\": true}, // old one\n    {\"id\": \"keep\", \"gw\": true, \"n\": 1}\n  ]\n}\n"), HuJSON)
	if err != nil {
		t.Fatal(err)
	}
	top, _ := f.Top("X")
	l, err := f.List(top, "l")
	if err != nil {
		t.Fatal(err)
	}
	ours := func(o *hujson.Object) bool { return Member(o, "gw") != nil }
	want := func(id string, n int) Keyed {
		return Keyed{ID: id, Want: Want{Inline: true, Fields: []Field{{Key: "id", Val: id}, {Key: "gw", Val: true}, {Key: "n", Val: n}}}}
	}
	added, removed, updated, err := f.SyncList(l, "id", ours, []Keyed{want("keep", 2), want("new", 3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 1 || added[0] != "new" || len(removed) != 1 || removed[0] != "old" || len(updated) != 1 || updated[0] != "keep" {
		t.Errorf("added %q removed %q updated %q", added, removed, updated)
	}
	got := string(f.Pack())
	wantText := "{\n  \"l\": [\n    {\"id\": \"user\"},\n    {\"id\": \"keep\", \"gw\": true, \"n\": 2},\n    {\"id\": \"new\", \"gw\": true, \"n\": 3}\n  ]\n}\n"
	if got != wantText {
		t.Errorf("got\n%s\nwant\n%s", got, wantText)
	}
}
