// Package jsonc edits JSON and JSON-with-comments configuration files without
// disturbing what it does not own: comments, member order, spacing, line
// endings and a byte-order mark survive, and every edit touches only the
// member or element it is about. It is the engine behind the writers of
// OpenCode's, Kilo's, Qwen Code's, Claude Code's, Cline's and Crush's
// configs (github.com/tailscale/hujson parses; the edits are made on its
// syntax tree). Its errors, and the byte-order mark and line endings, are
// package textedit's, which the TOML and YAML editors share.
package jsonc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/textedit"
)

// BOM is the UTF-8 byte-order mark some editors put at the start of a file.
const BOM = textedit.BOM

// ParseError is a config that cannot be parsed (line and column). The file
// is left alone. It is the one error of every editor (package textedit).
type ParseError = textedit.ParseError

// ConflictError is a config that parses but that we will not edit
// automatically (a duplicate key, a value of the wrong type). The file is
// left alone and Msg says what to fix.
type ConflictError = textedit.ConflictError

var hujsonPos = regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)

// File is a parsed config being edited.
type File struct {
	Doc
	Root  hujson.Value
	Fresh bool // the input was empty or held only comments: Root is a new object
	text  textedit.Text
	// addedNL: a newline was added so that a final line comment parses; it
	// is taken off again by Pack.
	addedNL bool
}

// Dialect is what an agent's JSON reader accepts beyond plain JSON. What it
// does not accept is a *ParseError at its position rather than something
// to keep: the agent could not read the file either.
type Dialect struct {
	Comments       bool // // and /* */ comments
	TrailingCommas bool
	BOM            bool // a UTF-8 byte-order mark at the start
	Agent          string
}

// HuJSON is OpenCode's and Kilo's reader: comments, trailing commas and a
// byte-order mark.
var HuJSON = Dialect{Comments: true, TrailingCommas: true, BOM: true}

// Parse parses src (which it never modifies) for editing. An empty file, or
// one holding only comments, becomes a new object after those comments.
func Parse(src []byte, dialect Dialect) (*File, error) {
	t := textedit.Open(src) // a copy: the parse tree aliases its input; never touch src
	if t.BOM && !dialect.BOM {
		return nil, textedit.BOMRefused(agentName(dialect) + " cannot read")
	}
	body := t.Body
	f := &File{Doc: Doc{NL: t.NL, Unit: "  "}, text: t}
	if !dialect.Comments || !dialect.TrailingCommas {
		if err := checkDialect(body, dialect); err != nil {
			return nil, err
		}
	}
	root, fresh, addedNL, err := ParseValue(body, f.NL)
	if err != nil {
		return nil, err
	}
	f.Root, f.Fresh, f.addedNL, f.Src = root, fresh, addedNL, body
	if o, ok := root.Value.(*hujson.Object); ok {
		if ind, ok := firstIndent(o); ok {
			f.Unit = ind
		}
	}
	return f, nil
}

// Top is the top-level object, or a *ConflictError naming what is there
// instead; agent names the program for the message.
func (f *File) Top(agent string) (ObjRef, error) {
	o, ok := f.Root.Value.(*hujson.Object)
	if !ok {
		return ObjRef{}, &ConflictError{Msg: fmt.Sprintf("the config is %s, not a JSON object; %s expects {...} at the top", KindName(&f.Root), agent)}
	}
	return ObjRef{Obj: o, Root: true}, nil
}

// Pack is the edited file, with the byte-order mark and final line as the
// input had them.
func (f *File) Pack() []byte {
	out := f.Root.Pack()
	if f.addedNL {
		out = bytes.TrimSuffix(out, []byte("\n"))
	}
	return f.text.Close(out)
}

// ParseValue parses body (no BOM). An empty body, or one holding only
// comments, becomes a new object after those comments (fresh). A line
// comment at the very end without a newline is accepted (addedNL: a newline
// was added to parse it).
//
// An array or object nested deeper than config.MaxDepth is a *ParseError at the bracket that passes it,
// found before hujson, whose parser recurses once per level, sees the file.
func ParseValue(body []byte, nl string) (root hujson.Value, fresh, addedNL bool, err error) {
	if off := config.JSONDepth(body, config.MaxDepth); off >= 0 {
		return root, false, false, textedit.At(body, off, config.TooDeepMsg)
	}
	if hujson.Extra(body).IsValid() {
		v, _ := hujson.Parse([]byte("{}"))
		if len(bytes.TrimSpace(body)) > 0 {
			pre := body
			if !bytes.HasSuffix(pre, []byte("\n")) {
				pre = Cat(pre, []byte(nl))
			}
			v.BeforeExtra = pre
		}
		v.AfterExtra = []byte(nl)
		return v, true, false, nil
	}
	root, err = hujson.Parse(body)
	if err != nil && !bytes.HasSuffix(body, []byte("\n")) {
		// A line comment at the very end without a newline is fine for
		// the agents (they strip comments first) but not for hujson;
		// parse with one and take it off again.
		if v, err2 := hujson.Parse(Cat(body, []byte("\n"))); err2 == nil {
			return v, false, true, nil
		}
	}
	if err != nil {
		if m := hujsonPos.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			return root, false, false, &ParseError{Line: line, Column: col, Msg: m[3]}
		}
		return root, false, false, &ParseError{Line: 1, Column: 1, Msg: err.Error()}
	}
	return root, false, false, nil
}

func agentName(d Dialect) string {
	if d.Agent != "" {
		return d.Agent
	}
	return "the agent"
}

// checkDialect reports the first thing in body that the dialect does not
// allow. Empty input is fine (a new file).
func checkDialect(body []byte, dialect Dialect) error {
	if len(bytes.TrimSpace(body)) == 0 || json.Valid(body) {
		return nil
	}
	if _, _, _, err := ParseValue(body, "\n"); err != nil {
		return err
	}
	// hujson accepts it: find the first comment or trailing comma.
	if off, what := firstExtension(body, dialect); off >= 0 {
		return textedit.At(body, off, fmt.Sprintf("%s, which %s does not accept", what, agentName(dialect)))
	}
	return nil
}

// firstExtension finds the first comment or trailing comma in b (which
// hujson parsed) that the dialect does not allow: its offset and what it
// is; -1 when there is none.
func firstExtension(b []byte, dialect Dialect) (int, string) {
	comma := -1 // the last comma outside strings, while only blanks and comments follow it
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			comma = -1
		case c == '/' && i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '*'):
			if !dialect.Comments {
				if b[i+1] == '/' {
					return i, "a // comment"
				}
				return i, "a /* comment */"
			}
			// Skip the comment; a comma before it may still be trailing.
			if b[i+1] == '/' {
				for i < len(b) && b[i] != '\n' {
					i++
				}
			} else {
				i += 2
				for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
					i++
				}
				i++
			}
		case c == ',':
			comma = i
		case c == '}' || c == ']':
			if comma >= 0 && !dialect.TrailingCommas {
				return comma, "a trailing comma"
			}
			comma = -1
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			comma = -1
		}
	}
	return -1, ""
}

// firstIndent is the indentation of the top-level members, which is the
// file's indentation unit.
func firstIndent(o *hujson.Object) (string, bool) {
	for _, m := range o.Members {
		if ind, ok := LineIndent(m.Name.BeforeExtra); ok && ind != "" {
			return ind, true
		}
	}
	return "", false
}

// ---- reading ----

// MemberName is the name of an object member.
func MemberName(m hujson.ObjectMember) string {
	if l, ok := m.Name.Value.(hujson.Literal); ok {
		return l.String()
	}
	return ""
}

// Member is the value of the last member named name (JavaScript and Go's
// encoding/json keep the last of duplicated names); nil when absent or when
// o is nil.
func Member(o *hujson.Object, name string) *hujson.Value {
	if o == nil {
		return nil
	}
	for i := len(o.Members) - 1; i >= 0; i-- {
		if MemberName(o.Members[i]) == name {
			return &o.Members[i].Value
		}
	}
	return nil
}

// ObjOf is v's object, nil when v is nil or not an object.
func ObjOf(v *hujson.Value) *hujson.Object {
	if v == nil {
		return nil
	}
	o, _ := v.Value.(*hujson.Object)
	return o
}

// ArrOf is v's array, nil when v is nil or not an array.
func ArrOf(v *hujson.Value) *hujson.Array {
	if v == nil {
		return nil
	}
	a, _ := v.Value.(*hujson.Array)
	return a
}

// Str is v's string, "" when v is nil or not a string.
func Str(v *hujson.Value) string {
	if v == nil {
		return ""
	}
	if l, ok := v.Value.(hujson.Literal); ok && l.Kind() == '"' {
		return l.String()
	}
	return ""
}

// Strs are the strings of an array value (other elements skipped); nil when
// v is not an array.
func Strs(v *hujson.Value) []string {
	a := ArrOf(v)
	if a == nil {
		return nil
	}
	out := []string{}
	for i := range a.Elements {
		if s := Str(&a.Elements[i]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// StringList decodes v as a list of strings.
func StringList(v hujson.Value) ([]string, bool) {
	c := v.Clone()
	c.Standardize()
	var list []string
	if err := json.Unmarshal(c.Pack(), &list); err != nil {
		return nil, false
	}
	return list, true
}

// ReadTop parses src for reading only: the top-level object, nil for an
// empty (or comment-only) file.
func ReadTop(src []byte, dialect Dialect) (*hujson.Object, error) {
	f, err := Parse(src, dialect)
	if err != nil {
		return nil, err
	}
	if f.Fresh {
		return nil, nil
	}
	o, _ := f.Root.Value.(*hujson.Object)
	return o, nil
}

// Decode unmarshals a JSON-with-comments document (a byte-order mark,
// comments and trailing commas allowed) into v.
func Decode(src []byte, v any) error {
	root, fresh, _, err := ParseValue(textedit.Open(src).Body, "\n")
	if err != nil || fresh {
		return err
	}
	root.Standardize()
	return json.Unmarshal(root.Pack(), v)
}
