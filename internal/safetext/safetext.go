// Package safetext makes text that came from outside gw — a client, a
// cloned repository's config, the service, a log file — safe to print on a
// terminal or write as one line of a log: every control character is shown
// escaped instead of acting. That is C0 (but tab and newline where the
// caller keeps them: the text's own lines), DEL, C1 (U+0080–U+009F, which
// some terminals read as ESC [ and the like) and bytes that are not UTF-8
// (a lone 0x9b is CSI to an 8-bit terminal). An escape sequence therefore
// shows as text — \x1b]52;c;…\x07 — and never reaches the terminal as one.
//
// It is the one sanitizer of what gw prints: every command that prints what
// it did not write itself goes through it. A request-log line escapes its
// values itself (reqlog.AppendField, reqlog.Note).
package safetext

import (
	"io"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// Line is s as one line: every control character escaped, tab and newline
// too.
func Line(s string) string {
	if clean(s, false) {
		return s
	}
	return string(Append(nil, s, false))
}

// Text is s with every control character escaped but tab and newline.
func Text(s string) string {
	if clean(s, true) {
		return s
	}
	return string(Append(nil, s, true))
}

// clean reports whether s needs no escaping.
func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || control(r, keepLines) {
					return false
				}
			}
			return true
		}
		if control(rune(c), keepLines) {
			return false
		}
	}
	return true
}

func control(r rune, keepLines bool) bool {
	switch {
	case r == '\t' || r == '\n':
		return !keepLines
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	}
	return false
}

// Append appends s to b with its control characters escaped (tab and
// newline kept when keepLines): \x1b for a C0 or DEL byte, \u009b for a C1
// character, \xNN for a byte that is not UTF-8. A backslash is left as it
// is: what is escaped is told by the control characters, not hidden.
func Append(b []byte, s string, keepLines bool) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b = append(b, '\\', 'x', hex[s[i]>>4], hex[s[i]&15])
		case control(r, keepLines):
			if r < 0x80 {
				b = append(b, '\\', 'x', hex[r>>4], hex[r&15])
			} else {
				b = append(b, `\u00`...)
				b = append(b, hex[r>>4], hex[r&15])
			}
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// Writer escapes what is written through it (tab and newline kept) before
// it reaches w. A character split across two writes is escaped whole.
type Writer struct {
	w    io.Writer
	tail []byte // the start of a character the next write completes
	buf  []byte
}

// NewWriter is a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (sw *Writer) Write(p []byte) (int, error) {
	data := p
	if len(sw.tail) > 0 {
		data = append(sw.tail, p...)
		sw.tail = nil
	}
	// Keep an unfinished character at the end for the next write.
	cut := len(data)
	for k := 1; k <= utf8.UTFMax-1 && k <= len(data); k++ {
		c := data[len(data)-k]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(data[len(data)-k:]) {
				cut = len(data) - k
			}
			break
		}
	}
	sw.tail = append(sw.tail[:0], data[cut:]...)
	sw.buf = Append(sw.buf[:0], string(data[:cut]), true)
	if _, err := sw.w.Write(sw.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes an unfinished character left at the end, escaped.
func (sw *Writer) Flush() error {
	if len(sw.tail) == 0 {
		return nil
	}
	b := Append(nil, string(sw.tail), true)
	sw.tail = nil
	_, err := sw.w.Write(b)
	return err
}

// JSON is JSON text (as encoding/json writes it, valid UTF-8 with C0
// escaped) with DEL and the C1 characters escaped too (\u007f, \u009b),
// which encoding/json leaves as they are: the same JSON to a program,
// nothing that acts on a terminal.
func JSON(b []byte) []byte {
	if clean(string(b), true) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			out = append(out, `\u00`...)
			out = append(out, hex[r>>4], hex[r&15])
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
