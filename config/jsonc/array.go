package jsonc

import (
	"fmt"

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

	before := d.leadIn(&a.Arr.AfterExtra, inline, indent, a.Indent)
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
	if !closeGap(removed, follower) && i == 0 && i+1 < len(es) {
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

// Keyed is an array element gw owns, identified by the string member Key.
type Keyed struct {
	ID   string // the value of the key member
	Want Want   // the element's members gw sets (including the key member)
}

// SyncList makes the elements of a that ours accepts exactly wants (matched
// by the string member key), keeping every other element and the order of
// the kept ones: gw's elements no longer wanted are removed, missing ones
// appended, present ones corrected member by member. It reports the ids
// added, removed and corrected.
func (d *Doc) SyncList(a ArrRef, key string, ours func(*hujson.Object) bool, wants []Keyed) (added, removed, updated []string, err error) {
	idOf := func(i int) (string, *hujson.Object, bool) {
		o, ok := a.Arr.Elements[i].Value.(*hujson.Object)
		if !ok || !ours(o) {
			return "", nil, false
		}
		return Str(Member(o, key)), o, true
	}
	seen := map[string]bool{}
	for i := range a.Arr.Elements {
		id, _, ok := idOf(i)
		if !ok {
			continue
		}
		if seen[id] {
			return nil, nil, nil, &ConflictError{Msg: fmt.Sprintf("%q appears twice in %q (%s); remove one of them", id, a.Path, d.At(&a.Arr.Elements[i]))}
		}
		seen[id] = true
	}
	wanted := map[string]bool{}
	for _, w := range wants {
		wanted[w.ID] = true
	}
	for i := len(a.Arr.Elements) - 1; i >= 0; i-- {
		if id, _, ok := idOf(i); ok && !wanted[id] {
			removed = append([]string{id}, removed...)
			d.RemoveElem(a, i)
		}
	}
	for _, w := range wants {
		found := -1
		for i := range a.Arr.Elements {
			if id, _, ok := idOf(i); ok && id == w.ID {
				found = i
				break
			}
		}
		if found < 0 {
			if err := d.InsertElem(a, w.Want); err != nil {
				return nil, nil, nil, err
			}
			added = append(added, w.ID)
			continue
		}
		_, o, _ := idOf(found)
		changed, err := d.Apply(ObjRef{Obj: o, Indent: d.ElemIndent(a, found), Path: fmt.Sprintf("%s[%q]", a.Path, w.ID)}, w.Want)
		if err != nil {
			return nil, nil, nil, err
		}
		if changed {
			updated = append(updated, w.ID)
		}
	}
	return added, removed, updated, nil
}

// List finds or creates the array member key of o: a new one is an empty
// array; a value of another type is a *ConflictError.
func (d *Doc) List(o ObjRef, key string) (ArrRef, error) {
	i, err := d.Find(o, key)
	if err != nil {
		return ArrRef{}, err
	}
	if i < 0 {
		if err := d.Insert(o, key, List{}); err != nil {
			return ArrRef{}, err
		}
		i = len(o.Obj.Members) - 1
	}
	v := &o.Obj.Members[i].Value
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return ArrRef{}, &ConflictError{Msg: fmt.Sprintf("%q at %s is %s, not an array; fix or remove it by hand", o.Child(key), d.At(v), KindName(v))}
	}
	return ArrRef{Arr: arr, Indent: d.IndentOf(o, i), Path: o.Child(key)}, nil
}

// Object finds or creates the object member key of o, and in it the member of
// each key of below in turn: a new one is empty; a value of another type is a
// *ConflictError.
func (d *Doc) Object(o ObjRef, key string, below ...string) (ObjRef, error) {
	if len(below) > 0 {
		parent, err := d.Object(o, key)
		if err != nil {
			return ObjRef{}, err
		}
		return d.Object(parent, below[0], below[1:]...)
	}
	i, err := d.Find(o, key)
	if err != nil {
		return ObjRef{}, err
	}
	if i < 0 {
		if err := d.Insert(o, key, Want{Container: true}); err != nil {
			return ObjRef{}, err
		}
		i = len(o.Obj.Members) - 1
	}
	v := &o.Obj.Members[i].Value
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return ObjRef{}, &ConflictError{Msg: fmt.Sprintf("%q at %s is %s, not an object; fix or remove it by hand", o.Child(key), d.At(v), KindName(v))}
	}
	return ObjRef{Obj: obj, Indent: d.IndentOf(o, i), Path: o.Child(key)}, nil
}
