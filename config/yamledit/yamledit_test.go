package yamledit

import (
	"errors"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSyncListKeepsTheRest(t *testing.T) {
	src := "name: a # c1\r\nitems:\r\n  # the user's\r\n  - id: user\r\n  - id: old\r\n    gw: true\r\n  - id: keep\r\n    gw: true\r\n    n: 1\r\n# after\r\nother: [1, 2]\r\n"
	d, err := Parse([]byte(src), "X")
	if err != nil {
		t.Fatal(err)
	}
	ours := func(n *yaml.Node) bool { return Get(n, "gw") == "true" }
	id := func(n *yaml.Node) string { return Get(n, "id") }
	item := func(id string, n int) Item {
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, kv := range [][2]string{{"id", id}, {"gw", "true"}} {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]}, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[1], Tag: map[string]string{"gw": "!!bool"}[kv[0]]})
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "n"}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: string(rune('0' + n))})
		return Item{ID: id, Node: m}
	}
	added, removed, updated, err := d.SyncList("items", ours, id, []Item{item("keep", 1), item("new", 2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 1 || len(removed) != 1 || len(updated) != 0 {
		t.Errorf("added %q removed %q updated %q", added, removed, updated)
	}
	if err := d.SetTop([]Scalar{{Key: "name", Val: "b"}, {Key: "version", Val: "1.0.0"}}); err != nil {
		t.Fatal(err)
	}
	out, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := "version: 1.0.0\r\nname: b # c1\r\nitems:\r\n  # the user's\r\n  - id: user\r\n  - id: keep\r\n    gw: true\r\n    n: 1\r\n  - id: new\r\n    gw: true\r\n    n: 2\r\n# after\r\nother: [1, 2]\r\n"
	if string(out) != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
}

func TestRefusals(t *testing.T) {
	for _, src := range []string{"a: 1\na: 2\n", "a: [\n", "a:\r  b: 1\n"} {
		_, err := Parse([]byte(src), "X")
		var pe *ParseError
		var ce *ConflictError
		if !errors.As(err, &pe) && !errors.As(err, &ce) {
			t.Errorf("%q: %v", src, err)
		}
	}
}
