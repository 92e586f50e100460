// Package yamledit makes targeted edits to a YAML document whose top level
// is a mapping: it sets top-level scalars and keeps gw's items of a
// top-level block list in step, leaving every other byte alone (comments,
// blank lines, the user's own items, quoting, CRLF line endings, a
// byte-order mark). It locates nodes with go.yaml.in/yaml/v3 (the
// maintained continuation of gopkg.in/yaml.v3), whose Node API reports the
// line and column of every node, and validates the document and the result
// with the same decoder. gw's own list items are rewritten whole when they
// change (comments inside them are not kept); everything else is untouched.
// Its errors, and the byte-order mark and line endings, are package
// textedit's, which the JSON and TOML editors share.
package yamledit

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/textedit"
)

// ParseError is a document that is not valid YAML. It is the one error of
// every editor (package textedit).
type ParseError = textedit.ParseError

// ConflictError is valid YAML that gw will not edit automatically.
type ConflictError = textedit.ConflictError

// Doc is a YAML document being edited.
type Doc struct {
	src   []byte // without the byte-order mark
	text  textedit.Text
	nl    string
	lines []int      // offset of the first byte of each line (0-based line index)
	top   *yaml.Node // the top-level mapping; nil for an empty document
	edits []edit
}

type edit = textedit.Edit

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse reads src (which it never modifies). An empty document, or one of
// comments only, is fine; a top level that is not a mapping is a
// *ConflictError.
func Parse(src []byte, agent string) (*Doc, error) {
	t := textedit.Open(src)
	d := &Doc{src: t.Body, text: t, nl: t.NL}
	d.lines = []int{0}
	for i, c := range d.src {
		switch {
		case c == '\n':
			d.lines = append(d.lines, i+1)
		case c == '\r' && (i+1 == len(d.src) || d.src[i+1] != '\n'):
			// YAML counts a lone CR as a line break; the positions gw edits by
			// would not match its lines.
			return nil, &ParseError{Line: len(d.lines), Column: i - d.lines[len(d.lines)-1] + 1, Msg: "a carriage return without a line feed; save the file with LF or CRLF line endings"}
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(d.src, &doc); err != nil {
		return nil, parseError(err)
	}
	if n := tooDeep(&doc, 0); n != nil {
		return nil, &ParseError{Line: n.Line, Column: n.Column, Msg: config.TooDeepMsg}
	}
	// Decoding into values also applies the rules a Node tree does not
	// check (a key defined twice in a mapping).
	var v any
	if err := yaml.Unmarshal(d.src, &v); err != nil {
		return nil, parseError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return d, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" && root.Value == "" {
		return d, nil // comments only
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ConflictError{Msg: fmt.Sprintf("the config is not a mapping (key: value lines) at the top; %s expects one", agent)}
	}
	if root.Style&yaml.FlowStyle != 0 {
		return nil, &ConflictError{Msg: "the config is written as one {…} flow mapping; gw edits block YAML only, so rewrite it with one key per line"}
	}
	if len(root.Content) > 0 && root.Content[0].Column != 1 {
		return nil, &ConflictError{Msg: fmt.Sprintf("the top-level keys are indented (line %d); gw edits YAML whose top-level keys start at the beginning of the line", root.Content[0].Line)}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		if seen[k] {
			return nil, &ConflictError{Msg: fmt.Sprintf("%q appears twice at the top level (line %d); remove one of them", k, root.Content[i].Line)}
		}
		seen[k] = true
	}
	d.top = root
	return d, nil
}

// tooDeep is the first sequence or mapping nested deeper than config.MaxDepth below n (at depth d), or
// nil. The decoder refuses past 10000 levels on its own; gw's bound is the same for every format. Aliases
// are not followed: each node is visited once.
func tooDeep(n *yaml.Node, d int) *yaml.Node {
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		if d++; d > config.MaxDepth {
			return n
		}
	}
	for _, c := range n.Content {
		if t := tooDeep(c, d); t != nil {
			return t
		}
	}
	return nil
}

// yamlTooDeep is the decoder's own refusal of a deeper document.
var yamlTooDeep = regexp.MustCompile(`^(yaml: )?(line \d+: )?exceeded max depth of \d+$`)

func parseError(err error) error {
	if msg := err.Error(); yamlTooDeep.MatchString(msg) {
		l := 1
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			l, _ = strconv.Atoi(m[1])
		}
		return &ParseError{Line: l, Column: 1, Msg: config.TooDeepMsg}
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		if m := regexp.MustCompile(`^line (\d+): (.*)$`).FindStringSubmatch(te.Errors[0]); m != nil {
			l, _ := strconv.Atoi(m[1])
			return &ParseError{Line: l, Column: 1, Msg: m[2]}
		}
		return &ParseError{Line: 1, Column: 1, Msg: te.Errors[0]}
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		l, _ := strconv.Atoi(m[1])
		return &ParseError{Line: l, Column: 1, Msg: m[2]}
	}
	return &ParseError{Line: 1, Column: 1, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// off is the byte offset of a 1-based line and column.
func (d *Doc) off(line, col int) int {
	if line-1 >= len(d.lines) {
		return len(d.src)
	}
	return min(d.lines[line-1]+col-1, len(d.src))
}

// lineOf is the 0-based line index holding offset o.
func (d *Doc) lineOf(o int) int {
	i, _ := slices.BinarySearch(d.lines, o+1)
	return i - 1
}

func (d *Doc) lineStart(o int) int { return d.lines[d.lineOf(o)] }

// topValue is the value node of a top-level key and the index of its key.
func (d *Doc) topValue(key string) (*yaml.Node, int) {
	if d.top == nil {
		return nil, -1
	}
	for i := 0; i+1 < len(d.top.Content); i += 2 {
		if d.top.Content[i].Value == key {
			return d.top.Content[i+1], i
		}
	}
	return nil, -1
}

// nextTopStart is where the top-level entry after key index i starts (its
// key's line), or the end of the document.
func (d *Doc) nextTopStart(i int) int {
	if i+2 < len(d.top.Content) {
		k := d.top.Content[i+2]
		return d.off(k.Line, 1)
	}
	return len(d.src)
}

// trimTail moves end back over trailing blank and comment-only lines, so
// that comments before the next entry stay where they are.
func (d *Doc) trimTail(start, end int) int {
	for end > start {
		ls := d.lineStart(end - 1)
		if ls < start {
			break
		}
		l := strings.TrimSpace(string(d.src[ls:end]))
		if l != "" && !strings.HasPrefix(l, "#") {
			break
		}
		end = ls
	}
	return end
}

// Scalar is a top-level key gw sets to a string.
type Scalar struct {
	Key, Val      string
	OnlyIfMissing bool
}

// SetTop sets top-level scalars: a present one gets its value replaced
// when it differs, a missing one is added at the top of the document.
func (d *Doc) SetTop(fields []Scalar) error {
	var add strings.Builder
	for _, f := range fields {
		v, _ := d.topValue(f.Key)
		if v == nil {
			add.WriteString(f.Key + ": " + scalar(f.Val) + d.nl)
			continue
		}
		if f.OnlyIfMissing || v.Value == f.Val && v.Kind == yaml.ScalarNode {
			continue
		}
		if v.Kind != yaml.ScalarNode || strings.ContainsAny(v.Value, "\n") || v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return &ConflictError{Msg: fmt.Sprintf("%q at line %d is not a one-line value; fix it by hand", f.Key, v.Line)}
		}
		start := d.off(v.Line, v.Column)
		end := start + len(scalarText(d.src[start:]))
		d.edits = append(d.edits, edit{Start: start, End: end, Text: scalar(f.Val)})
	}
	if add.Len() == 0 {
		return nil
	}
	if d.top != nil && len(d.top.Content) > 0 {
		// In the first key's place, at its indentation.
		k := d.top.Content[0]
		at := d.off(k.Line, k.Column)
		indent := string(d.src[d.lines[k.Line-1]:at])
		d.edits = append(d.edits, edit{Start: at, End: at, Text: strings.ReplaceAll(add.String(), d.nl, d.nl+indent)})
		return nil
	}
	at := len(d.src)
	if at > 0 && !bytes.HasSuffix(d.src, []byte("\n")) {
		d.edits = append(d.edits, edit{Start: at, End: at, Text: d.nl})
	}
	d.edits = append(d.edits, edit{Start: at, End: at, Text: add.String()})
	return nil
}

// scalarText is the text of the one-line scalar at the start of b: a quoted
// string up to its closing quote, else up to a comment or the line's end.
func scalarText(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	switch b[0] {
	case '"':
		for i := 1; i < len(b); i++ {
			if b[i] == '\\' {
				i++
				continue
			}
			if b[i] == '"' {
				return b[:i+1]
			}
		}
	case '\'':
		for i := 1; i < len(b); i++ {
			if b[i] == '\'' {
				if i+1 < len(b) && b[i+1] == '\'' {
					i++
					continue
				}
				return b[:i+1]
			}
		}
	}
	end := bytes.IndexAny(b, "\r\n")
	if end < 0 {
		end = len(b)
	}
	line := b[:end]
	if i := bytes.Index(line, []byte(" #")); i >= 0 {
		line = line[:i]
	}
	return bytes.TrimRight(line, " \t")
}

// scalar is s as a YAML scalar, quoted only when it must be.
func scalar(s string) string {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	b, err := yaml.Marshal(n)
	if err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimRight(string(b), "\n")
}

// Item is one list item gw owns: a mapping identified by ID.
type Item struct {
	ID string
	// Node is the mapping to write (yaml.MappingNode).
	Node *yaml.Node
}

// SyncList keeps gw's items of the top-level list key in step with wants:
// ours tells gw's items (a mapping node) from the user's, id names one. gw's
// items no longer wanted are removed, changed ones rewritten whole, new
// ones appended after the last item; the user's items are not touched.
func (d *Doc) SyncList(key string, ours func(*yaml.Node) bool, id func(*yaml.Node) string, wants []Item) (added, removed, updated []string, err error) {
	seq, ki := d.topValue(key)
	var items []*yaml.Node
	top := ""
	if d.top != nil && len(d.top.Content) > 0 {
		top = strings.Repeat(" ", d.top.Content[0].Column-1)
	}
	seqIndent := top + "  "
	insertAt := -1
	prefix := ""
	switch {
	case seq == nil:
		// no key: a new list at the end, at the top level's indentation
		insertAt = len(d.src) // a missing final newline is added below
		prefix = top + key + ":" + d.nl
	case seq.Kind == yaml.ScalarNode && seq.Tag == "!!null",
		seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle != 0 && len(seq.Content) == 0:
		// "models:" with nothing after it, or "models: []" (the brackets go): the items follow the key's line
		if seq.Kind == yaml.SequenceNode {
			start := d.off(seq.Line, seq.Column)
			if !bytes.HasPrefix(d.src[start:], []byte("[]")) {
				return nil, nil, nil, &ConflictError{Msg: fmt.Sprintf("%q at line %d is an empty list gw cannot edit; write it as a block list", key, seq.Line)}
			}
			s := start
			if s > 0 && d.src[s-1] == ' ' {
				s--
			}
			d.edits = append(d.edits, edit{Start: s, End: start + 2, Text: ""})
		}
		keyNode := d.top.Content[ki]
		if keyNode.Line < len(d.lines) {
			insertAt = d.lines[keyNode.Line]
		} else {
			insertAt = len(d.src)
			prefix = d.nl
		}
	case seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle != 0:
		return nil, nil, nil, &ConflictError{Msg: fmt.Sprintf("%q at line %d is written as a [...] flow list; gw edits a block list (one \"- \" item per line), so rewrite it", key, seq.Line)}
	case seq.Kind == yaml.SequenceNode:
		items = seq.Content
	default:
		return nil, nil, nil, &ConflictError{Msg: fmt.Sprintf("%q at line %d is not a list; fix or remove it by hand", key, seq.Line)}
	}

	// The text range of each existing item: its "-" line to the next
	// item's, the last one up to the next top-level entry.
	type span struct{ start, end int }
	spans := make([]span, len(items))
	for i, it := range items {
		s := d.dashLine(it)
		spans[i].start = s
		if i > 0 {
			spans[i-1].end = d.trimTail(spans[i-1].start, s)
		}
	}
	if n := len(items); n > 0 {
		spans[n-1].end = d.trimTail(spans[n-1].start, d.nextTopStart(ki))
		first := d.src[spans[0].start:]
		seqIndent = string(first[:len(first)-len(bytes.TrimLeft(first, " "))])
		insertAt = spans[n-1].end
	}
	seen := map[string]bool{}
	var mine []int
	for i, it := range items {
		if it.Kind != yaml.MappingNode || !ours(it) {
			continue
		}
		k := id(it)
		if seen[k] {
			return nil, nil, nil, &ConflictError{Msg: fmt.Sprintf("%q is listed twice under %q (line %d); remove one of them", k, key, it.Line)}
		}
		seen[k] = true
		mine = append(mine, i)
	}
	byID := map[string]Item{}
	for _, w := range wants {
		byID[w.ID] = w
	}
	for _, i := range mine {
		k := id(items[i])
		w, ok := byID[k]
		if !ok {
			removed = append(removed, k)
			d.edits = append(d.edits, edit{Start: spans[i].start, End: spans[i].end, Text: ""})
			continue
		}
		if equal(items[i], w.Node) {
			continue
		}
		updated = append(updated, k)
		d.edits = append(d.edits, edit{Start: spans[i].start, End: spans[i].end, Text: d.renderItem(w.Node, seqIndent)})
	}
	var add strings.Builder
	add.WriteString(prefix)
	for _, w := range wants {
		if seen[w.ID] {
			continue
		}
		added = append(added, w.ID)
		add.WriteString(d.renderItem(w.Node, seqIndent))
	}
	if len(added) > 0 {
		text := add.String()
		if insertAt > 0 && !bytes.HasSuffix(d.src[:insertAt], []byte("\n")) {
			text = d.nl + text
		}
		d.edits = append(d.edits, edit{Start: insertAt, End: insertAt, Text: text})
	}
	return added, removed, updated, nil
}

// dashLine is the start of the line holding the "-" of a list item.
func (d *Doc) dashLine(it *yaml.Node) int {
	o := d.off(it.Line, it.Column)
	ls := d.lineStart(o)
	if bytes.Contains(d.src[ls:o], []byte("-")) {
		return ls
	}
	// "-" alone on an earlier line
	for l := d.lineOf(o) - 1; l >= 0; l-- {
		t := strings.TrimSpace(string(d.src[d.lines[l]:d.lines[l+1]]))
		if strings.HasPrefix(t, "-") {
			return d.lines[l]
		}
	}
	return ls
}

// renderItem writes a mapping as a block list item at indent.
func (d *Doc) renderItem(n *yaml.Node, indent string) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	_ = enc.Encode(n)
	_ = enc.Close()
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		if i == 0 {
			b.WriteString(indent + "- " + line + d.nl)
		} else {
			b.WriteString(indent + "  " + line + d.nl)
		}
	}
	return b.String()
}

// equal compares two nodes as data.
func equal(a, b *yaml.Node) bool {
	var x, y any
	if a.Decode(&x) != nil || b.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Bytes applies the edits and returns the new document (with the
// byte-order mark it had), checked to be valid YAML.
func (d *Doc) Bytes() ([]byte, error) {
	res, err := textedit.Apply(d.src, d.edits, "YAML", func(b []byte) error { var v any; return yaml.Unmarshal(b, &v) })
	if err != nil {
		return nil, err
	}
	return d.text.Close(res), nil
}

// Top is the top-level mapping (nil for an empty document).
func (d *Doc) Top() *yaml.Node { return d.top }

// Get is the string value of key in a mapping node ("" when absent).
func Get(m *yaml.Node, key string) string {
	if m == nil || m.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.ScalarNode {
			return m.Content[i+1].Value
		}
	}
	return ""
}

// Value is the value node of key in a mapping node (nil when absent).
func Value(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
