package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config"
)

// This file holds the low-level editing of a hujson syntax tree. Every edit
// touches only the member it is about; the bytes around it (comments,
// spacing, commas of the neighbours) are kept or moved, never re-formatted.
// New byte slices are always freshly allocated so that nothing aliases the
// parsed input.

// doc carries the style of the file being edited.
type doc struct {
	src  []byte // the parsed bytes (BOM removed), for line numbers in errors
	nl   string // "\n" or "\r\n", as the file uses
	unit string // one level of indentation, as the file uses
}

// objRef is an object being edited and where it sits.
type objRef struct {
	obj    *hujson.Object
	indent string // indentation of the line the object's closing brace belongs to
	path   string // for messages, e.g. `provider.gw.options`
	root   bool
}

// cat concatenates into a new slice; never appends into a parsed buffer.
func cat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func (d *doc) at(v *hujson.Value) string {
	l, c := config.LineCol(d.src, v.StartOffset)
	return fmt.Sprintf("line %d, column %d", l, c)
}

// find returns the index of the member named key, -1 if absent. A key that
// appears twice is refused: OpenCode would silently use one of them and we
// cannot know which one the user edits.
func (d *doc) find(o objRef, key string) (int, error) {
	idx := -1
	for i := range o.obj.Members {
		name, ok := o.obj.Members[i].Name.Value.(hujson.Literal)
		if !ok || name.String() != key {
			continue
		}
		if idx >= 0 {
			return -1, &ConflictError{Msg: fmt.Sprintf("%q appears twice in %s (%s and %s); remove one of them",
				key, o.describe(), d.at(&o.obj.Members[idx].Name), d.at(&o.obj.Members[i].Name))}
		}
		idx = i
	}
	return idx, nil
}

func (o objRef) describe() string {
	if o.root {
		return "the top-level object"
	}
	return "\"" + o.path + "\""
}

func (o objRef) child(key string) string {
	if o.root {
		return key
	}
	return o.path + "." + key
}

// splitHead splits whitespace-and-comments into the part that ends the
// previous line (up to and including the first newline outside a block
// comment) and the rest. A same-line comment after a member's comma belongs
// to that member, so it travels with it.
func splitHead(b []byte) (head, tail []byte) {
	i := 0
	for i < len(b) {
		switch {
		case b[i] == '\n':
			return b[:i+1], b[i+1:]
		case bytes.HasPrefix(b[i:], []byte("//")):
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				return nil, b
			}
			return b[:i+j+1], b[i+j+1:]
		case bytes.HasPrefix(b[i:], []byte("/*")):
			j := bytes.Index(b[i+2:], []byte("*/"))
			if j < 0 {
				return nil, b
			}
			i += 2 + j + 2
		default:
			i++
		}
	}
	return nil, b
}

// leadingBlank returns the spaces and tabs at the start of b.
func leadingBlank(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return b[:i]
}

// lineIndent returns the indentation after the last newline in an Extra, and
// whether there was a newline at all.
func lineIndent(b []byte) (string, bool) {
	j := bytes.LastIndexByte(b, '\n')
	if j < 0 {
		return "", false
	}
	return string(leadingBlank(b[j+1:])), true
}

// memberIndent is the indentation of o's members, and whether o is laid out
// one member per line. An empty object is treated as multi-line.
func (d *doc) memberIndent(o objRef) (string, bool) {
	for i := len(o.obj.Members) - 1; i >= 0; i-- {
		if ind, ok := lineIndent(o.obj.Members[i].Name.BeforeExtra); ok {
			return ind, true
		}
	}
	return o.indent + d.unit, len(o.obj.Members) == 0 || o.root
}

// indentOf is the indentation of member i's line.
func (d *doc) indentOf(o objRef, i int) string {
	if ind, ok := lineIndent(o.obj.Members[i].Name.BeforeExtra); ok {
		return ind
	}
	ind, _ := d.memberIndent(o)
	return ind
}

// colonStyle copies the spacing around the colon from a sibling.
func colonStyle(o objRef) (beforeColon, afterColon []byte) {
	afterColon = []byte(" ")
	if n := len(o.obj.Members); n > 0 {
		m := o.obj.Members[n-1]
		if isBlank(m.Name.AfterExtra) {
			beforeColon = cat(m.Name.AfterExtra)
		}
		if isBlank(m.Value.BeforeExtra) {
			afterColon = cat(m.Value.BeforeExtra)
		}
	}
	return beforeColon, afterColon
}

func isBlank(b []byte) bool {
	return len(bytes.Trim(b, " \t")) == 0
}

func hasTrailingComma(o *hujson.Object) bool {
	n := len(o.Members)
	return n > 0 && o.Members[n-1].Value.AfterExtra != nil
}

// insert appends key: val to o, in o's style.
func (d *doc) insert(o objRef, key string, val any) error {
	ms := o.obj.Members
	indent, multi := d.memberIndent(o)
	inline := !multi && len(ms) > 0 && isInline(val)
	trailing := hasTrailingComma(o.obj)
	beforeColon, afterColon := colonStyle(o)

	var before []byte
	if inline {
		before = []byte(" ")
	} else {
		head, tail := splitHead(o.obj.AfterExtra)
		if head == nil {
			before = cat([]byte(d.nl), []byte(indent))
			o.obj.AfterExtra = cat([]byte(d.nl), []byte(o.indent), bytes.TrimLeft(tail, " \t"))
		} else {
			before = cat(head, []byte(indent))
			o.obj.AfterExtra = cat([]byte(d.nl), tail)
		}
	}
	rendered, err := d.parseRendered(val, indent)
	if err != nil {
		return err
	}
	rendered.BeforeExtra = afterColon
	if len(ms) > 0 && ms[len(ms)-1].Value.AfterExtra == nil {
		o.obj.Members[len(ms)-1].Value.AfterExtra = []byte{} // it now needs a comma
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: before, Value: hujson.Literal(mustJSON(key)), AfterExtra: beforeColon},
		Value: rendered,
	}
	if trailing {
		m.Value.AfterExtra = []byte{}
	}
	o.obj.Members = append(o.obj.Members, m)
	return nil
}

// remove deletes member i. Comments before it and the same-line comment
// after its comma go with it; the comment ending the previous line stays.
func (d *doc) remove(o objRef, i int) {
	ms := o.obj.Members
	removed := ms[i].Name.BeforeExtra
	follower := &o.obj.AfterExtra
	if i+1 < len(ms) {
		follower = &o.obj.Members[i+1].Name.BeforeExtra
	}
	if bytes.IndexByte(removed, '\n') >= 0 {
		head, _ := splitHead(removed)
		ind, _ := lineIndent(removed)
		if fh, ft := splitHead(*follower); fh != nil {
			*follower = cat(head, ft)
		} else {
			// The follower shared the removed member's line: it takes over
			// that line's start.
			*follower = cat(head, []byte(ind), bytes.TrimLeft(*follower, " \t"))
		}
	}
	// Otherwise the removed member shared the previous member's line and
	// the follower's spacing is already right.
	if i+1 < len(ms) {
		o.obj.Members = append(ms[:i:i], ms[i+1:]...)
		return
	}
	trailing := hasTrailingComma(o.obj)
	o.obj.Members = ms[:i:i]
	if n := len(o.obj.Members); n > 0 && !trailing {
		// The new last member loses its comma; what sat before the comma stays.
		last := &o.obj.Members[n-1]
		o.obj.AfterExtra = cat(last.Value.AfterExtra, o.obj.AfterExtra)
		last.Value.AfterExtra = nil
	}
}

// replace swaps member i's value, keeping the comments around it.
func (d *doc) replace(o objRef, i int, val any) error {
	rendered, err := d.parseRendered(val, d.indentOf(o, i))
	if err != nil {
		return err
	}
	o.obj.Members[i].Value.Value = rendered.Value
	return nil
}

func (d *doc) parseRendered(val any, indent string) (hujson.Value, error) {
	text := d.render(val, indent)
	v, err := hujson.Parse(text)
	if err != nil {
		return hujson.Value{}, fmt.Errorf("internal error: rendered value does not parse: %w", err)
	}
	return v, nil
}

// sameValue reports whether an existing value equals what we would write,
// so that an unchanged setting is never rewritten (and its spelling, e.g.
// 2e5 for 200000, is kept).
func sameValue(existing hujson.Value, want any) bool {
	c := existing.Clone()
	c.Standardize()
	var got any
	if err := json.Unmarshal(c.Pack(), &got); err != nil {
		return false
	}
	var w any
	if err := json.Unmarshal(inlineJSON(want), &w); err != nil {
		return false
	}
	return reflect.DeepEqual(got, w)
}

func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only called with strings, numbers and booleans
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// ---- desired values ----

// field is one member we own.
type field struct {
	key string
	val any // string, int, bool, []string or obj
	// onlyIfMissing: written when absent, left alone when present (display
	// names the user may have changed).
	onlyIfMissing bool
}

// obj is an object we own some members of; other members are the user's.
type obj struct {
	fields []field
	drop   []string // keys we remove when present
	inline bool     // rendered on one line when new
	// container: the user may keep their own data in it, so a value of the
	// wrong type is refused rather than replaced.
	container bool
}

func isInline(v any) bool {
	if o, ok := v.(obj); ok {
		return o.inline
	}
	return true
}

// render writes val as JSON text in the file's style; indent is the
// indentation of the line val starts on.
func (d *doc) render(val any, indent string) []byte {
	var b strings.Builder
	d.renderTo(&b, val, indent, false)
	return []byte(b.String())
}

func (d *doc) renderTo(b *strings.Builder, val any, indent string, forceInline bool) {
	switch v := val.(type) {
	case obj:
		if v.inline || forceInline {
			b.WriteString("{")
			for i, f := range v.fields {
				if i > 0 {
					b.WriteString(", ")
				}
				b.Write(mustJSON(f.key))
				b.WriteString(": ")
				d.renderTo(b, f.val, indent, true)
			}
			b.WriteString("}")
			return
		}
		inner := indent + d.unit
		b.WriteString("{")
		for i, f := range v.fields {
			b.WriteString(d.nl + inner)
			b.Write(mustJSON(f.key))
			b.WriteString(": ")
			d.renderTo(b, f.val, inner, false)
			if i < len(v.fields)-1 {
				b.WriteString(",")
			}
		}
		b.WriteString(d.nl + indent + "}")
	case []string:
		b.WriteString("[")
		for i, s := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(mustJSON(s))
		}
		b.WriteString("]")
	default:
		b.Write(mustJSON(v))
	}
}

// inlineJSON is val as one line of standard JSON, for comparisons.
func inlineJSON(val any) []byte {
	var b strings.Builder
	(&doc{}).renderTo(&b, val, "", true)
	return []byte(b.String())
}

// apply makes o hold every field of want, keeping the user's other members.
// It returns whether anything changed.
func (d *doc) apply(o objRef, want obj) (bool, error) {
	changed := false
	for _, f := range want.fields {
		i, err := d.find(o, f.key)
		if err != nil {
			return false, err
		}
		if i < 0 {
			if err := d.insert(o, f.key, f.val); err != nil {
				return false, err
			}
			changed = true
			continue
		}
		if f.onlyIfMissing {
			continue
		}
		cur := &o.obj.Members[i].Value
		if sub, ok := f.val.(obj); ok {
			if co, isObj := cur.Value.(*hujson.Object); isObj {
				c, err := d.apply(objRef{obj: co, indent: d.indentOf(o, i), path: o.child(f.key)}, sub)
				if err != nil {
					return false, err
				}
				changed = changed || c
				continue
			}
			if sub.container {
				return false, &ConflictError{Msg: fmt.Sprintf("%q at %s is %s, not an object; fix or remove it by hand", o.child(f.key), d.at(cur), kindName(cur))}
			}
		}
		if !sameValue(*cur, f.val) {
			if err := d.replace(o, i, f.val); err != nil {
				return false, err
			}
			changed = true
		}
	}
	for _, key := range want.drop {
		i, err := d.find(o, key)
		if err != nil {
			return false, err
		}
		if i >= 0 {
			d.remove(o, i)
			changed = true
		}
	}
	return changed, nil
}

func kindName(v *hujson.Value) string {
	switch v.Value.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "not an object"
}
