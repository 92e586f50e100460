// Package tomledit makes targeted edits to a TOML document: it sets keys of
// the root table and of [section] tables, and leaves every other byte alone
// (comments, blank lines, ordering, quoting and number spelling of values it
// does not change, CRLF line endings). It locates keys with go-toml's
// unstable parser, which reports the byte range of every key/value and
// table header, and validates the document (and the result) with go-toml's
// decoder, which enforces TOML's rules (duplicate keys and tables) and
// reports line and column. Its errors, and the line endings, are package
// textedit's, which the JSON and YAML editors share.
package tomledit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/textedit"
)

// ParseError is a document that is not valid TOML. It is the one error of
// every editor (package textedit).
type ParseError = textedit.ParseError

// ConflictError is valid TOML that gw will not edit automatically; Msg says
// what to fix.
type ConflictError = textedit.ConflictError

// keyval is one key = value line of the document.
type keyval struct {
	path       []string // full dotted path: table path + key parts
	lineStart  int      // first byte of the line
	valStart   int      // first byte of the value
	valEnd     int      // one past the value's last byte
	end        int      // one past the end of the line (after its newline, if any)
	kind       unstable.Kind
	data       string // the decoded scalar (strings unescaped), "" for arrays and tables
	inlineRoot bool   // the value is an inline table or array
}

// header is a [table] or [[array]] line.
type header struct {
	path      []string
	array     bool
	lineStart int
	end       int
}

// Doc is a TOML document being edited.
type Doc struct {
	src     []byte
	nl      string
	keys    []keyval
	headers []header
	edits   []edit
}

type edit = textedit.Edit

// Parse reads src (which it never modifies). An empty document is fine.
func Parse(src []byte) (*Doc, error) {
	t := textedit.Open(src)
	if t.BOM {
		return nil, textedit.BOMRefused("TOML does not allow")
	}
	src = t.Body
	if off := depth(src, config.MaxDepth); off >= 0 {
		return nil, textedit.At(src, off, config.TooDeepMsg)
	}
	if err := validate(src); err != nil {
		return nil, err
	}
	d := &Doc{src: src, nl: t.NL}
	p := unstable.Parser{}
	p.Reset(src)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var path []string
			var first, last []byte
			it := e.Key()
			for it.Next() {
				n := it.Node()
				path = append(path, string(n.Data))
				if first == nil {
					first = p.Raw(n.Raw)
				}
				last = p.Raw(n.Raw)
			}
			start := lineStart(src, offset(&p, first))
			d.headers = append(d.headers, header{path: path, array: e.Kind == unstable.ArrayTable, lineStart: start, end: lineEnd(src, offset(&p, last)+len(last))})
			table = path
		case unstable.KeyValue:
			raw := p.Raw(e.Raw)
			kvStart := offset(&p, raw)
			v := e.Value()
			vraw := p.Raw(v.Raw)
			kv := keyval{
				lineStart: lineStart(src, kvStart),
				valStart:  offset(&p, vraw),
				valEnd:    kvStart + len(raw),
				kind:      v.Kind,
			}
			kv.end = lineEnd(src, kv.valEnd)
			switch v.Kind {
			case unstable.InlineTable, unstable.Array:
				kv.inlineRoot = true
			case unstable.String:
				kv.data = string(v.Data)
				kv.valEnd = kv.valStart + len(vraw)
			default:
				kv.data = string(v.Data)
				kv.valEnd = kv.valStart + len(vraw)
			}
			kv.path = slices.Clone(table)
			keyEnd := kvStart
			it := e.Key()
			for it.Next() {
				n := it.Node()
				kv.path = append(kv.path, string(n.Data))
				if r := p.Raw(n.Raw); len(r) > 0 {
					keyEnd = offset(&p, r) + len(r)
				}
			}
			if v.Kind == unstable.Array { // its value has no range of its own: after the key's "="
				if eq := bytes.IndexByte(src[keyEnd:kv.valEnd], '='); eq >= 0 {
					kv.valStart = keyEnd + eq + 1
					for kv.valStart < kv.valEnd && (src[kv.valStart] == ' ' || src[kv.valStart] == '\t') {
						kv.valStart++
					}
				}
			}
			d.keys = append(d.keys, kv)
		}
	}
	if err := p.Error(); err != nil {
		return nil, parseError(src, err)
	}
	return d, nil
}

func offset(p *unstable.Parser, b []byte) int { return int(p.Range(b).Offset) }

// lineStart is the offset of the first byte of the line holding off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd is one past the newline ending the line holding off (len(src)
// when the line is the last and has none). A comment after the value is
// part of the line.
func lineEnd(src []byte, off int) int {
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}

// depth scans src for arrays and inline tables nested deeper than max, without parsing it (go-toml
// recurses once per level, up to its own bound of 10000): it knows strings of the four kinds and
// comments, and counts every bracket and brace outside them, so a [table] header counts one level while
// it lasts. It returns the offset of the bracket that passes max, or -1.
func depth(src []byte, max int) int {
	n := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case '"', '\'':
			if three := []byte{c, c, c}; bytes.HasPrefix(src[i:], three) { // multi-line, to the next three quotes
				for i += 3; i < len(src) && !bytes.HasPrefix(src[i:], three); i++ {
					if c == '"' && src[i] == '\\' {
						i++
					}
				}
				i += 2
				continue
			}
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if c == '"' && src[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if n++; n > max {
				return i
			}
		case ']', '}':
			if n > 0 {
				n--
			}
		}
	}
	return -1
}

// validate decodes src with go-toml, which applies all of TOML's rules.
func validate(src []byte) error {
	var v map[string]any
	if err := toml.Unmarshal(src, &v); err != nil {
		return parseError(src, err)
	}
	return nil
}

func parseError(src []byte, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return &ParseError{Line: row, Column: col, Msg: de.Error()}
	}
	var pe *unstable.ParserError
	if errors.As(err, &pe) && pe.Highlight != nil {
		off := cap(src) - cap(pe.Highlight)
		if off >= 0 && off <= len(src) {
			return textedit.At(src, off, pe.Message)
		}
	}
	return &ParseError{Line: 1, Column: 1, Msg: err.Error()}
}

func (d *Doc) pos(off int) string {
	l := bytes.Count(d.src[:off], []byte("\n")) + 1
	return fmt.Sprintf("line %d, column %d", l, off-lineStart(d.src, off)+1)
}

// Value is what Set writes: a string, an int, a bool or a []string (an array of strings).
type Value any

func render(v Value) string {
	switch x := v.(type) {
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x) // a JSON string is a valid TOML basic string
		return strings.TrimRight(buf.String(), "\n")
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case []string:
		words := make([]string, len(x))
		for i, w := range x {
			words[i] = render(w)
		}
		return "[" + strings.Join(words, ", ") + "]"
	}
	panic(fmt.Sprintf("tomledit: unsupported value %T", v))
}

// same reports whether an existing scalar already holds v (so that an
// unchanged value keeps its spelling: 'single quotes', 200_000).
func same(kv keyval, v Value) bool {
	switch x := v.(type) {
	case string:
		return kv.kind == unstable.String && kv.data == x
	case int:
		n, err := strconv.ParseInt(strings.ReplaceAll(kv.data, "_", ""), 0, 64)
		return kv.kind == unstable.Integer && err == nil && int(n) == x
	case bool:
		return kv.kind == unstable.Bool && kv.data == strconv.FormatBool(x)
	}
	return false
}

// Field is a key gw owns in a table.
type Field struct {
	Key string
	Val Value
	// OnlyIfMissing: written when absent, left alone when present.
	OnlyIfMissing bool
}

func (d *Doc) find(path []string) (int, bool) {
	for i, kv := range d.keys {
		if slices.Equal(kv.path, path) {
			return i, true
		}
	}
	return -1, false
}

// under refuses a table gw would edit that the document defines some other
// way than a [table] header with key = value lines: dotted keys from a
// parent table, or an inline table.
func (d *Doc) under(table []string) error {
	hi := slices.IndexFunc(d.headers, func(h header) bool { return slices.Equal(h.path, table) })
	inBody := func(kv keyval) bool {
		if hi < 0 || kv.lineStart < d.headers[hi].end {
			return false
		}
		return hi+1 >= len(d.headers) || kv.lineStart < d.headers[hi+1].lineStart
	}
	// A key of a [table.sub] header of its own is the sub-table's, not a dotted key of table's.
	inSubTable := func(kv keyval) bool {
		var in []string
		for _, h := range d.headers {
			if h.lineStart <= kv.lineStart {
				in = h.path
			}
		}
		return len(in) > len(table) && slices.Equal(in[:len(table)], table)
	}
	for _, kv := range d.keys {
		if len(kv.path) > len(table) && slices.Equal(kv.path[:len(table)], table) && !inBody(kv) && !inSubTable(kv) {
			return &ConflictError{Msg: fmt.Sprintf("%s is set with a dotted key (%s); gw edits a [%s] table only, so move it there by hand or remove it", strings.Join(kv.path, "."), d.pos(kv.lineStart), strings.Join(table, "."))}
		}
		for n := 1; n <= len(table); n++ {
			if slices.Equal(kv.path, table[:n]) {
				return &ConflictError{Msg: fmt.Sprintf("%s is written as a value (%s); gw edits a [%s] table only, so rewrite it as one or remove it", strings.Join(kv.path, "."), d.pos(kv.lineStart), strings.Join(table, "."))}
			}
		}
	}
	return nil
}

// SetRoot sets keys of the root table (before the first table header): a
// present key gets its value replaced (comments on its line kept), a
// missing one is added after the last root key (or before the first header).
func (d *Doc) SetRoot(fields []Field) (changed bool, err error) {
	var add []string
	for _, f := range fields {
		for _, h := range d.headers {
			if h.path[0] == f.Key {
				return false, &ConflictError{Msg: fmt.Sprintf("[%s] at %s makes %q a table; it must be a plain value, so rename or remove that table", strings.Join(h.path, "."), d.pos(h.lineStart), f.Key)}
			}
		}
		for _, kv := range d.keys {
			if len(kv.path) > 1 && kv.path[0] == f.Key {
				return false, &ConflictError{Msg: fmt.Sprintf("%s at %s makes %q a table; it must be a plain value, so fix it by hand", strings.Join(kv.path, "."), d.pos(kv.lineStart), f.Key)}
			}
		}
		i, ok := d.find([]string{f.Key})
		if ok {
			kv := d.keys[i]
			if kv.inlineRoot {
				return false, &ConflictError{Msg: fmt.Sprintf("%q at %s is not a plain value; fix or remove it by hand", f.Key, d.pos(kv.lineStart))}
			}
			if !f.OnlyIfMissing && !same(kv, f.Val) {
				d.edits = append(d.edits, edit{Start: kv.valStart, End: kv.valEnd, Text: render(f.Val)})
				changed = true
			}
			continue
		}
		add = append(add, f.Key+" = "+render(f.Val)+d.nl)
	}
	if len(add) == 0 {
		return changed, nil
	}
	at := -1
	for _, kv := range d.keys {
		if d.inRoot(kv) {
			at = kv.end
		}
	}
	text := strings.Join(add, "")
	switch {
	case at < 0 && len(d.headers) > 0:
		at = d.headers[0].lineStart
		text += d.nl // a blank line before the first table
	case at < 0:
		at = len(d.src) // after the comments of a document without keys
	}
	if at > 0 && !bytes.HasSuffix(d.src[:at], []byte("\n")) {
		text = d.nl + text
	}
	d.edits = append(d.edits, edit{Start: at, End: at, Text: text})
	return true, nil
}

// inRoot: kv is a key/value line before any table header.
func (d *Doc) inRoot(kv keyval) bool {
	return len(d.headers) == 0 || kv.lineStart < d.headers[0].lineStart
}

// SetTable sets keys of [path], creating the table at the end of the
// document when it is not there; drop are keys removed when present (with
// their line). It reports whether the table was created.
func (d *Doc) SetTable(path []string, fields []Field, drop []string) (created, changed bool, err error) {
	if err := d.under(path); err != nil {
		return false, false, err
	}
	hi := -1
	for i, h := range d.headers {
		if slices.Equal(h.path, path) {
			if h.array {
				return false, false, &ConflictError{Msg: fmt.Sprintf("[[%s]] at %s is an array of tables; fix or remove it by hand", strings.Join(path, "."), d.pos(h.lineStart))}
			}
			hi = i
		}
	}
	if hi < 0 {
		var b strings.Builder
		// What the document ends with once the edits so far are applied
		// (keys added at its end by SetRoot included).
		tail := string(d.src)
		for _, e := range d.edits {
			if e.Start == len(d.src) {
				tail += e.Text
			}
		}
		if tail != "" {
			if !strings.HasSuffix(tail, "\n") {
				b.WriteString(d.nl)
			}
			if !strings.HasSuffix(tail, "\n\n") && !strings.HasSuffix(tail, "\r\n\r\n") {
				b.WriteString(d.nl)
			}
		}
		b.WriteString("[" + strings.Join(quoteKeys(path), ".") + "]" + d.nl)
		for _, f := range fields {
			b.WriteString(quoteKey(f.Key) + " = " + render(f.Val) + d.nl)
		}
		d.edits = append(d.edits, edit{Start: len(d.src), End: len(d.src), Text: b.String()})
		return true, true, nil
	}
	h := d.headers[hi]
	bodyEnd := len(d.src)
	if hi+1 < len(d.headers) {
		bodyEnd = d.headers[hi+1].lineStart
	}
	insertAt := h.end
	for _, kv := range d.keys {
		if kv.lineStart >= h.end && kv.lineStart < bodyEnd {
			insertAt = kv.end
		}
	}
	var add []string
	for _, f := range fields {
		i, ok := d.find(append(slices.Clone(path), f.Key))
		if ok {
			kv := d.keys[i]
			if _, list := f.Val.([]string); list && kv.kind == unstable.Array && !f.OnlyIfMissing {
				// An array is rewritten whole (the same text when it holds the same strings).
				if text := render(f.Val); string(d.src[kv.valStart:kv.valEnd]) != text {
					d.edits = append(d.edits, edit{Start: kv.valStart, End: kv.valEnd, Text: text})
					changed = true
				}
				continue
			}
			if kv.inlineRoot && !f.OnlyIfMissing {
				return false, false, &ConflictError{Msg: fmt.Sprintf("%s.%s at %s is not a plain value; fix or remove it by hand", strings.Join(path, "."), f.Key, d.pos(kv.lineStart))}
			}
			if !f.OnlyIfMissing && !same(kv, f.Val) {
				d.edits = append(d.edits, edit{Start: kv.valStart, End: kv.valEnd, Text: render(f.Val)})
				changed = true
			}
			continue
		}
		add = append(add, quoteKey(f.Key)+" = "+render(f.Val)+d.nl)
	}
	for _, k := range drop {
		if i, ok := d.find(append(slices.Clone(path), k)); ok {
			kv := d.keys[i]
			d.edits = append(d.edits, edit{Start: kv.lineStart, End: kv.end, Text: ""})
			changed = true
		}
	}
	if len(add) > 0 {
		text := strings.Join(add, "")
		if insertAt > 0 && !bytes.HasSuffix(d.src[:insertAt], []byte("\n")) {
			text = d.nl + text
		}
		d.edits = append(d.edits, edit{Start: insertAt, End: insertAt, Text: text})
		changed = true
	}
	return false, changed, nil
}

var bareKey = func(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func quoteKey(k string) string {
	if bareKey(k) {
		return k
	}
	return render(k)
}

func quoteKeys(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = quoteKey(k)
	}
	return out
}

// Bytes applies the edits and returns the new document, checked to be
// valid TOML.
func (d *Doc) Bytes() ([]byte, error) {
	return textedit.Apply(d.src, d.edits, "TOML", validate)
}

// Get returns the decoded scalar at path as a string ("" when absent or
// not a scalar) and whether it is present.
func (d *Doc) Get(path ...string) (string, bool) {
	i, ok := d.find(path)
	if !ok || d.keys[i].inlineRoot {
		return "", ok
	}
	return d.keys[i].data, true
}

// HasTable reports whether [path] is a table header in the document.
func (d *Doc) HasTable(path ...string) bool {
	return slices.ContainsFunc(d.headers, func(h header) bool { return slices.Equal(h.path, path) })
}
