package jsonc

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

// Doc carries the style of the file being edited.
type Doc struct {
	Src  []byte // the parsed bytes (BOM removed), for line numbers in errors
	NL   string // "\n" or "\r\n", as the file uses
	Unit string // one level of indentation, as the file uses
}

// ObjRef is an object being edited and where it sits.
type ObjRef struct {
	Obj    *hujson.Object
	Indent string // indentation of the line the object's closing brace belongs to
	Path   string // for messages, e.g. `provider.gw.options`
	Root   bool
}

// cat concatenates into a new slice; never appends into a parsed buffer.
func Cat(parts ...[]byte) []byte {
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

func (d *Doc) At(v *hujson.Value) string {
	l, c := config.LineCol(d.Src, v.StartOffset)
	return fmt.Sprintf("line %d, column %d", l, c)
}

// find returns the index of the member named key, -1 if absent. A key that
// appears twice is refused: OpenCode would silently use one of them and we
// cannot know which one the user edits.
func (d *Doc) Find(o ObjRef, key string) (int, error) {
	idx := -1
	for i := range o.Obj.Members {
		name, ok := o.Obj.Members[i].Name.Value.(hujson.Literal)
		if !ok || name.String() != key {
			continue
		}
		if idx >= 0 {
			return -1, &ConflictError{Msg: fmt.Sprintf("%q appears twice in %s (%s and %s); remove one of them",
				key, o.describe(), d.At(&o.Obj.Members[idx].Name), d.At(&o.Obj.Members[i].Name))}
		}
		idx = i
	}
	return idx, nil
}

func (o ObjRef) describe() string {
	if o.Root {
		return "the top-level object"
	}
	return "\"" + o.Path + "\""
}

func (o ObjRef) Child(key string) string {
	if o.Root {
		return key
	}
	return o.Path + "." + key
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
func LineIndent(b []byte) (string, bool) {
	j := bytes.LastIndexByte(b, '\n')
	if j < 0 {
		return "", false
	}
	return string(leadingBlank(b[j+1:])), true
}

// memberIndent is the indentation of o's members, and whether o is laid out
// one member per line. An empty object is treated as multi-line.
func (d *Doc) memberIndent(o ObjRef) (string, bool) {
	for i := len(o.Obj.Members) - 1; i >= 0; i-- {
		if ind, ok := LineIndent(o.Obj.Members[i].Name.BeforeExtra); ok {
			return ind, true
		}
	}
	return o.Indent + d.Unit, len(o.Obj.Members) == 0 || o.Root
}

// indentOf is the indentation of member i's line.
func (d *Doc) IndentOf(o ObjRef, i int) string {
	if ind, ok := LineIndent(o.Obj.Members[i].Name.BeforeExtra); ok {
		return ind
	}
	ind, _ := d.memberIndent(o)
	return ind
}

// colonStyle copies the spacing around the colon from a sibling.
func colonStyle(o ObjRef) (beforeColon, afterColon []byte) {
	afterColon = []byte(" ")
	if n := len(o.Obj.Members); n > 0 {
		m := o.Obj.Members[n-1]
		if isBlank(m.Name.AfterExtra) {
			beforeColon = Cat(m.Name.AfterExtra)
		}
		if isBlank(m.Value.BeforeExtra) {
			afterColon = Cat(m.Value.BeforeExtra)
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
func (d *Doc) Insert(o ObjRef, key string, val any) error {
	ms := o.Obj.Members
	indent, multi := d.memberIndent(o)
	inline := !multi && len(ms) > 0 && isInline(val)
	trailing := hasTrailingComma(o.Obj)
	beforeColon, afterColon := colonStyle(o)

	before := d.leadIn(&o.Obj.AfterExtra, inline, indent, o.Indent)
	rendered, err := d.parseRendered(val, indent)
	if err != nil {
		return err
	}
	rendered.BeforeExtra = afterColon
	if len(ms) > 0 && ms[len(ms)-1].Value.AfterExtra == nil {
		o.Obj.Members[len(ms)-1].Value.AfterExtra = []byte{} // it now needs a comma
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: before, Value: hujson.Literal(MustJSON(key)), AfterExtra: beforeColon},
		Value: rendered,
	}
	if trailing {
		m.Value.AfterExtra = []byte{}
	}
	o.Obj.Members = append(o.Obj.Members, m)
	return nil
}

// leadIn is what goes before a new last member or element: a space on an
// inline line; else a new line at indent, the comments ending the last line
// staying before it and the rest of after (what precedes the closing
// bracket) moved to a line of its own at outer.
func (d *Doc) leadIn(after *hujson.Extra, inline bool, indent, outer string) []byte {
	if inline {
		return []byte(" ")
	}
	head, tail := splitHead(*after)
	if head == nil {
		*after = Cat([]byte(d.NL), []byte(outer), bytes.TrimLeft(tail, " \t"))
		return Cat([]byte(d.NL), []byte(indent))
	}
	*after = Cat([]byte(d.NL), tail)
	return Cat(head, []byte(indent))
}

// closeGap gives follower (what precedes the member or element after a
// removed one) the start of the removed one's line, when removed (what
// preceded it) began a line, and reports whether it did.
func closeGap(removed []byte, follower *hujson.Extra) bool {
	if bytes.IndexByte(removed, '\n') < 0 {
		return false
	}
	head, _ := splitHead(removed)
	ind, _ := LineIndent(removed)
	if fh, ft := splitHead(*follower); fh != nil {
		*follower = Cat(head, ft)
	} else {
		// The follower shared the removed one's line: it takes over that
		// line's start.
		*follower = Cat(head, []byte(ind), bytes.TrimLeft(*follower, " \t"))
	}
	return true
}

// remove deletes member i. Comments before it and the same-line comment
// after its comma go with it; the comment ending the previous line stays.
func (d *Doc) Remove(o ObjRef, i int) {
	ms := o.Obj.Members
	removed := ms[i].Name.BeforeExtra
	follower := &o.Obj.AfterExtra
	if i+1 < len(ms) {
		follower = &o.Obj.Members[i+1].Name.BeforeExtra
	}
	// When the removed member shared the previous member's line, the
	// follower's spacing is already right.
	closeGap(removed, follower)
	if i+1 < len(ms) {
		o.Obj.Members = append(ms[:i:i], ms[i+1:]...)
		return
	}
	trailing := hasTrailingComma(o.Obj)
	o.Obj.Members = ms[:i:i]
	if n := len(o.Obj.Members); n > 0 && !trailing {
		// The new last member loses its comma; what sat before the comma stays.
		last := &o.Obj.Members[n-1]
		o.Obj.AfterExtra = Cat(last.Value.AfterExtra, o.Obj.AfterExtra)
		last.Value.AfterExtra = nil
	}
}

// replace swaps member i's value, keeping the comments around it.
func (d *Doc) Replace(o ObjRef, i int, val any) error {
	rendered, err := d.parseRendered(val, d.IndentOf(o, i))
	if err != nil {
		return err
	}
	o.Obj.Members[i].Value.Value = rendered.Value
	return nil
}

func (d *Doc) parseRendered(val any, indent string) (hujson.Value, error) {
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

func MustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only called with strings, numbers and booleans
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// ---- desired values ----

// Field is one member we own.
type Field struct {
	Key string
	Val any // string, int, bool, []string, Want or List
	// onlyIfMissing: written when absent, left alone when present (display
	// names the user may have changed).
	OnlyIfMissing bool
}

// Want is an object we own some members of; other members are the user's.
type Want struct {
	Fields []Field
	Drop   []string // keys we remove when present
	Inline bool     // rendered on one line when new
	// container: the user may keep their own data in it, so a value of the
	// wrong type is refused rather than replaced.
	Container bool
}

// List is an array we write whole, one element per line (objects, when
// new, laid out member per line).
type List []any

func isInline(v any) bool {
	switch o := v.(type) {
	case Want:
		return o.Inline
	case List:
		return len(o) == 0
	}
	return true
}

// render writes val as JSON text in the file's style; indent is the
// indentation of the line val starts on.
func (d *Doc) render(val any, indent string) []byte {
	var b strings.Builder
	d.renderTo(&b, val, indent, false)
	return []byte(b.String())
}

func (d *Doc) renderTo(b *strings.Builder, val any, indent string, forceInline bool) {
	switch v := val.(type) {
	case Want:
		if v.Inline || forceInline {
			b.WriteString("{")
			for i, f := range v.Fields {
				if i > 0 {
					b.WriteString(", ")
				}
				b.Write(MustJSON(f.Key))
				b.WriteString(": ")
				d.renderTo(b, f.Val, indent, true)
			}
			b.WriteString("}")
			return
		}
		inner := indent + d.Unit
		b.WriteString("{")
		for i, f := range v.Fields {
			b.WriteString(d.NL + inner)
			b.Write(MustJSON(f.Key))
			b.WriteString(": ")
			d.renderTo(b, f.Val, inner, false)
			if i < len(v.Fields)-1 {
				b.WriteString(",")
			}
		}
		b.WriteString(d.NL + indent + "}")
	case List:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		if forceInline {
			b.WriteString("[")
			for i, e := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				d.renderTo(b, e, indent, true)
			}
			b.WriteString("]")
			return
		}
		inner := indent + d.Unit
		b.WriteString("[")
		for i, e := range v {
			b.WriteString(d.NL + inner)
			d.renderTo(b, e, inner, false)
			if i < len(v)-1 {
				b.WriteString(",")
			}
		}
		b.WriteString(d.NL + indent + "]")
	case []string:
		b.WriteString("[")
		for i, s := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(MustJSON(s))
		}
		b.WriteString("]")
	default:
		b.Write(MustJSON(v))
	}
}

// inlineJSON is val as one line of standard JSON, for comparisons.
func inlineJSON(val any) []byte {
	var b strings.Builder
	(&Doc{}).renderTo(&b, val, "", true)
	return []byte(b.String())
}

// apply makes o hold every Field of want, keeping the user's other members.
// It returns whether anything changed.
func (d *Doc) Apply(o ObjRef, want Want) (bool, error) {
	changed := false
	for _, f := range want.Fields {
		i, err := d.Find(o, f.Key)
		if err != nil {
			return false, err
		}
		if i < 0 {
			if err := d.Insert(o, f.Key, f.Val); err != nil {
				return false, err
			}
			changed = true
			continue
		}
		if f.OnlyIfMissing {
			continue
		}
		cur := &o.Obj.Members[i].Value
		if sub, ok := f.Val.(Want); ok {
			if co, isObj := cur.Value.(*hujson.Object); isObj {
				c, err := d.Apply(ObjRef{Obj: co, Indent: d.IndentOf(o, i), Path: o.Child(f.Key)}, sub)
				if err != nil {
					return false, err
				}
				changed = changed || c
				continue
			}
			if sub.Container {
				return false, &ConflictError{Msg: fmt.Sprintf("%q at %s is %s, not an object; fix or remove it by hand", o.Child(f.Key), d.At(cur), KindName(cur))}
			}
		}
		if !sameValue(*cur, f.Val) {
			if err := d.Replace(o, i, f.Val); err != nil {
				return false, err
			}
			changed = true
		}
	}
	for _, key := range want.Drop {
		i, err := d.Find(o, key)
		if err != nil {
			return false, err
		}
		if i >= 0 {
			d.Remove(o, i)
			changed = true
		}
	}
	return changed, nil
}

func KindName(v *hujson.Value) string {
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
