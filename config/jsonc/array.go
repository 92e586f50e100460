package jsonc

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// ArrRef is an array being edited and where it sits.
type ArrRef struct {
	Arr    *hujson.Array
	Indent string // indentation of the line the array's closing bracket belongs to
	Path   string // for messages
}

// elemIndent is the indentation of a's elements, and whether a is laid out
// one element per line. An empty array is treated as multi-line.
func (d *Doc) elemIndent(a ArrRef) (string, bool) {
	for i := len(a.Arr.Elements) - 1; i >= 0; i-- {
		if ind, ok := LineIndent(a.Arr.Elements[i].BeforeExtra); ok {
			return ind, true
		}
	}
	return a.Indent + d.Unit, len(a.Arr.Elements) == 0
}

// ElemIndent is the indentation of the line element i starts on.
func (d *Doc) ElemIndent(a ArrRef, i int) string {
	if ind, ok := LineIndent(a.Arr.Elements[i].BeforeExtra); ok {
		return ind
	}
	ind, _ := d.elemIndent(a)
	return ind
}

func hasTrailingCommaArr(a *hujson.Array) bool {
	n := len(a.Elements)
	return n > 0 && a.Elements[n-1].AfterExtra != nil
}

// InsertElem appends val to a, in a's style.
func (d *Doc) InsertElem(a ArrRef, val any) error {
	es := a.Arr.Elements
	indent, multi := d.elemIndent(a)
	inline := !multi && len(es) > 0 && isInline(val)
	trailing := hasTrailingCommaArr(a.Arr)

	var before []byte
	switch {
	case inline:
		before = []byte(" ")
	default:
		head, tail := splitHead(a.Arr.AfterExtra)
		if head == nil {
			before = Cat([]byte(d.NL), []byte(indent))
			a.Arr.AfterExtra = Cat([]byte(d.NL), []byte(a.Indent), bytes.TrimLeft(tail, " \t"))
		} else {
			before = Cat(head, []byte(indent))
			a.Arr.AfterExtra = Cat([]byte(d.NL), tail)
		}
	}
	rendered, err := d.parseRendered(val, indent)
	if err != nil {
		return err
	}
	rendered.BeforeExtra = before
	if len(es) > 0 && es[len(es)-1].AfterExtra == nil {
		a.Arr.Elements[len(es)-1].AfterExtra = []byte{} // it now needs a comma
	}
	if trailing {
		rendered.AfterExtra = []byte{}
	} else {
		rendered.AfterExtra = nil
	}
	a.Arr.Elements = append(a.Arr.Elements, rendered)
	return nil
}

// RemoveElem deletes element i. Comments before it and the same-line
// comment after its comma go with it; the comment ending the previous line
// stays.
func (d *Doc) RemoveElem(a ArrRef, i int) {
	es := a.Arr.Elements
	removed := es[i].BeforeExtra
	follower := &a.Arr.AfterExtra
	if i+1 < len(es) {
		follower = &a.Arr.Elements[i+1].BeforeExtra
	}
	if bytes.IndexByte(removed, '\n') >= 0 {
		head, _ := splitHead(removed)
		ind, _ := LineIndent(removed)
		if fh, ft := splitHead(*follower); fh != nil {
			*follower = Cat(head, ft)
		} else {
			*follower = Cat(head, []byte(ind), bytes.TrimLeft(*follower, " \t"))
		}
	} else if i == 0 && i+1 < len(es) {
		// The first element shared the bracket's line; so does the next.
		*follower = Cat(removed)
	}
	if i+1 < len(es) {
		a.Arr.Elements = append(es[:i:i], es[i+1:]...)
		return
	}
	trailing := hasTrailingCommaArr(a.Arr)
	a.Arr.Elements = es[:i:i]
	if n := len(a.Arr.Elements); n > 0 && !trailing {
		last := &a.Arr.Elements[n-1]
		a.Arr.AfterExtra = Cat(last.AfterExtra, a.Arr.AfterExtra)
		last.AfterExtra = nil
	}
}
