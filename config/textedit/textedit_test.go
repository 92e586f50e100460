package textedit

import (
	"bytes"
	"testing"
)

// Open takes one byte-order mark off, Close puts it back: an unedited file comes out byte-identical,
// whatever its marks and line endings, and the caller's bytes are never written to.
func TestOpenCloseRoundTrip(t *testing.T) {
	for _, src := range []string{
		"",
		"a\n",
		"a\r\nb\r\n",
		BOM,
		BOM + "a\r\nb\r\n",
		BOM + BOM + "a\n", // only the first mark is the file's; the second is its text
		"a\r\nb\nc",       // mixed, no final newline
		"a\rb\r",          // lone carriage returns are text, not line ends
	} {
		in := []byte(src)
		orig := bytes.Clone(in)
		text := Open(in)
		if text.BOM != bytes.HasPrefix(orig, []byte(BOM)) {
			t.Errorf("%q: BOM = %v", src, text.BOM)
		}
		if want := bytes.TrimPrefix(orig, []byte(BOM)); !bytes.Equal(text.Body, want) {
			t.Errorf("%q: body %q, want %q", src, text.Body, want)
		}
		for i := range text.Body {
			text.Body[i] = 'x' // the body is the editor's to alias and change
		}
		if !bytes.Equal(in, orig) {
			t.Fatalf("%q: changing the body changed the caller's bytes to %q", src, in)
		}
		if got := Open(in); !bytes.Equal(got.Close(got.Body), orig) {
			t.Errorf("%q: round trip gave %q", src, got.Close(got.Body))
		}
	}
}

// New lines take the ending most of the file's lines have; a tie goes to CRLF, a file without line
// feeds gets LF.
func TestLineEnding(t *testing.T) {
	for src, want := range map[string]string{
		"":                  "\n",
		"one line":          "\n",
		"a\nb\n":            "\n",
		"a\r\nb\r\n":        "\r\n",
		"a\r\nb\n":          "\r\n", // one of two: a tie
		"a\r\nb\nc\n":       "\n",   // one of three
		"a\r\nb\r\nc\n":     "\r\n", // two of three
		"a\rb\rc\n":         "\n",   // lone carriage returns are not CRLF
		BOM + "a\r\nb\r\n":  "\r\n",
		"a = '\r\n'\nb\n\n": "\n",
	} {
		if got := LineEnding([]byte(src)); got != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
		if got := Open([]byte(src)).NL; got != want {
			t.Errorf("Open(%q).NL = %q, want %q", src, got, want)
		}
	}
}

// The two errors read as the editors have always said them: line and column first, then what is wrong.
func TestErrorWords(t *testing.T) {
	body := []byte("{\n  \"a\": 1\n  \"b\"\n}")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&ParseError{Line: 3, Column: 7, Msg: "invalid character"}, "line 3, column 7: invalid character"},
		{At(body, bytes.Index(body, []byte(`"b"`)), "expected a comma"), "line 3, column 3: expected a comma"},
		{At(body, 0, "x"), "line 1, column 1: x"},
		{At(body, len(body)+10, "x"), "line 4, column 2: x"}, // past the end: the end
		{BOMRefused("TOML does not allow"), "line 1, column 1: the file starts with a byte-order mark, which TOML does not allow; save it as UTF-8 without one"},
		{&ConflictError{Msg: `"env" appears twice; remove one of them`}, `"env" appears twice; remove one of them`},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
