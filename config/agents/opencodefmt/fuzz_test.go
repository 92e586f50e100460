package opencodefmt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzMerge: any input is either merged with every part we do not own
// preserved (and a second merge is a no-op), or refused as unparsable or
// conflicting, with the input untouched.
func FuzzMerge(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, src []byte, withDefault bool) {
		orig := bytes.Clone(src)
		p := testProvider()
		var opts MergeOptions
		if withDefault {
			opts = MergeOptions{Model: p.Models[0].ID, SmallModel: p.Models[2].ID}
		}
		res, err := Merge(src, p, opts)
		if !bytes.Equal(src, orig) {
			t.Fatal("Merge modified its input")
		}
		if err != nil {
			var pe *ParseError
			var ce *ConflictError
			if !errors.As(err, &pe) && !errors.As(err, &ce) {
				t.Fatalf("refused for a reason other than a parse error or a conflict: %v", err)
			}
			return
		}
		checkMerged(t, src, res, p, opts)
	})
}
