// Package textedit is what gw's three config editors (config/jsonc,
// config/tomledit, config/yamledit) share: the one error for a file that does
// not parse, the one error for a file gw will not edit automatically, and the
// layer that takes a byte-order mark off a file on the way in and learns the
// line ending it uses, and puts the mark back on the way out; and Apply, which
// splices the TOML and YAML editors' edits into the file's text.
//
// An editor never rewrites line endings: it keeps the file's bytes as they
// are and writes every line it adds with the file's prevailing ending (Text.NL),
// so that a CRLF file stays CRLF and a file with a mark keeps it, byte for byte.
package textedit

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/modelgateway/gw/config"
)

// BOM is the UTF-8 byte-order mark some editors put at the start of a file.
const BOM = "\uFEFF"

// ParseError is a config that cannot be parsed: the line and column (1-based,
// counted in the file without its byte-order mark) and what is wrong there.
// The file is left alone.
type ParseError struct {
	Line, Column int
	Msg          string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// At is the *ParseError at byte offset off of body (clamped to body).
func At(body []byte, off int, msg string) *ParseError {
	l, c := config.LineCol(body, off)
	return &ParseError{Line: l, Column: c, Msg: msg}
}

// BOMRefused is the *ParseError of a file that starts with a byte-order mark
// its reader does not accept; reader finishes the sentence ("TOML does not
// allow", "Crush cannot read").
func BOMRefused(reader string) *ParseError {
	return &ParseError{Line: 1, Column: 1, Msg: "the file starts with a byte-order mark, which " + reader + "; save it as UTF-8 without one"}
}

// ConflictError is a config that parses but that gw will not edit
// automatically (a key defined twice, a value of the wrong type); Msg says
// what to fix. The file is left alone.
type ConflictError struct{ Msg string }

func (e *ConflictError) Error() string { return e.Msg }

// Text is a config file as an editor works on it.
type Text struct {
	// Body is the file without its byte-order mark: a copy, so that a parse
	// tree may alias it while the caller's bytes stay untouched.
	Body []byte
	BOM  bool   // the file started with a byte-order mark
	NL   string // "\r\n" when most of the file's lines end so, else "\n"
}

// Open splits src (which it never modifies) into its byte-order mark and its
// body, and finds the line ending new lines are written with.
func Open(src []byte) Text {
	t := Text{Body: bytes.Clone(src), NL: "\n"}
	if bytes.HasPrefix(t.Body, []byte(BOM)) {
		t.BOM, t.Body = true, t.Body[len(BOM):]
	}
	t.NL = LineEnding(t.Body)
	return t
}

// LineEnding is the prevailing line ending of b: "\r\n" when at least half of
// its line feeds follow a carriage return, else "\n".
func LineEnding(b []byte) string {
	if crlf := bytes.Count(b, []byte("\r\n")); crlf > 0 && 2*crlf >= bytes.Count(b, []byte("\n")) {
		return "\r\n"
	}
	return "\n"
}

// Close is an edited body as the file is written: with the byte-order mark
// the file had. body is not modified.
func (t Text) Close(body []byte) []byte {
	if !t.BOM {
		return body
	}
	out := make([]byte, 0, len(BOM)+len(body))
	return append(append(out, BOM...), body...)
}

// Edit replaces Body[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
}

// Apply is body with edits applied (stably in order of Start), checked by
// valid; lang names the format in the internal errors. body is not modified.
func Apply(body []byte, edits []Edit, lang string, valid func([]byte) error) ([]byte, error) {
	es := slices.Clone(edits)
	slices.SortStableFunc(es, func(a, b Edit) int { return a.Start - b.Start })
	var out bytes.Buffer
	at := 0
	for _, e := range es {
		if e.Start < at {
			return nil, errors.New("internal error: overlapping " + lang + " edits")
		}
		out.Write(body[at:e.Start])
		out.WriteString(e.Text)
		at = e.End
	}
	out.Write(body[at:])
	res := out.Bytes()
	if err := valid(res); err != nil {
		return nil, fmt.Errorf("internal error: the edited %s is not valid (%v)", lang, err)
	}
	return res, nil
}
