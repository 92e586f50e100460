package chat

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdString is s as encoding/json's Encoder writes it with
// SetEscapeHTML(false), without the newline.
func stdString(t testing.TB, s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

var appendStringCases = []string{
	"", "plain", `quote " and \ backslash`, "new\nline\r\ttab\b\f", "\x00\x01\x1f\x7f",
	"<html> & 'apos'", "émoji 🙂 中文", "line\u2028sep\u2029para", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
	"trailing \\", "\"", "a\u00a0b",
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range appendStringCases {
		got := string(AppendString([]byte("x"), s))
		if want := "x" + stdString(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range appendStringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendString(nil, s)), stdString(t, s); got != want {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	})
}
