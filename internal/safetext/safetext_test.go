package safetext

import (
	"bytes"
	"encoding/json"
	"testing"
)

const hostile = "m\x1b]52;c;aGk=\a\x1b[2J\u009b31m\x7f\xff\tok\n"

func TestLineAndText(t *testing.T) {
	if got, want := Line(hostile), `m\x1b]52;c;aGk=\x07\x1b[2J\u009b31m\x7f\xff\x09ok\x0a`; got != want {
		t.Errorf("Line: %q, want %q", got, want)
	}
	if got, want := Text(hostile), "m\\x1b]52;c;aGk=\\x07\\x1b[2J\\u009b31m\\x7f\\xff\tok\n"; got != want {
		t.Errorf("Text: %q, want %q", got, want)
	}
	for _, s := range []string{"vendor-a/model-a-sonnet-4.5", "modèle ünïcode 模型", ""} {
		if Line(s) != s {
			t.Errorf("%q changed: %q", s, Line(s))
		}
	}
}

// TestWriter: a character split across writes is kept whole; controls are
// escaped whatever the split.
func TestWriter(t *testing.T) {
	in := []byte("é" + hostile + "模")
	for cut := 0; cut <= len(in); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		w.Write(in[:cut])
		w.Write(in[cut:])
		w.Flush()
		if got, want := out.String(), Text(string(in)); got != want {
			t.Errorf("cut at %d: %q, want %q", cut, got, want)
		}
	}
}

func TestJSON(t *testing.T) {
	b, _ := json.Marshal(map[string]string{"model": "a\u009b\x7fb"})
	got := JSON(b)
	var v map[string]string
	if err := json.Unmarshal(got, &v); err != nil || v["model"] != "a\u009b\x7fb" || bytes.ContainsAny(got, "\u009b\x7f") {
		t.Errorf("JSON: %q (%v)", got, err)
	}
}
