package tomledit

import (
	"errors"
	"testing"
)

func TestSetRootAndTable(t *testing.T) {
	src := "# head\r\nmodel = 'old' # keep me\r\nother = 1\r\n\r\n[t]\r\nname = \"x\"\r\nkeep = [1, 2]\r\n\r\n[u]\r\nz = true\r\n"
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.SetRoot([]Field{{Key: "model", Val: "new"}, {Key: "added", Val: 3}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.SetTable([]string{"t"}, []Field{{Key: "name", Val: "y", OnlyIfMissing: true}, {Key: "n", Val: 2}}, []string{"keep"}); err != nil {
		t.Fatal(err)
	}
	created, _, err := d.SetTable([]string{"v", "w"}, []Field{{Key: "k", Val: "v"}}, nil)
	if err != nil || !created {
		t.Fatal(created, err)
	}
	out, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := "# head\r\nmodel = \"new\" # keep me\r\nother = 1\r\nadded = 3\r\n\r\n[t]\r\nname = \"x\"\r\nn = 2\r\n\r\n[u]\r\nz = true\r\n\r\n[v.w]\r\nk = \"v\"\r\n"
	if string(out) != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
}

func TestRefusals(t *testing.T) {
	for _, src := range []string{"a = 1\na = 2\n", "\uFEFFa = 1\n", "a = \n"} {
		_, err := Parse([]byte(src))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line == 0 {
			t.Errorf("%q: %v", src, err)
		}
	}
	d, _ := Parse([]byte("t = { a = 1 }\n"))
	if _, _, err := d.SetTable([]string{"t"}, []Field{{Key: "b", Val: 1}}, nil); err == nil {
		t.Error("an inline table is not edited")
	}
}
