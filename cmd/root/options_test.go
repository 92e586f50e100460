package root

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// A command keeps none of the Factory: NewCmdX hands its options struct the functions the command uses, so
// the options say what it may touch and a test fakes only that. No struct of a command's package (tests
// aside) has a field of type *cmdutil.Factory; only cmd/cmdutil itself holds one.
func TestNoCommandHoldsTheFactory(t *testing.T) {
	checked := walkGo(t, "..", func(path string, f *ast.File, fset *token.FileSet) {
		if strings.HasPrefix(filepath.ToSlash(path), "../cmdutil/") {
			return
		}
		for _, field := range factoryFields(f) {
			t.Errorf("%s: a field holds the whole *cmdutil.Factory; give the options the functions the command uses",
				fset.Position(field.Pos()))
		}
	})
	if checked < 20 {
		t.Fatalf("checked %d files of cmd/, want all of them", checked)
	}
}

// The rule sees a Factory held in a struct, and not one passed to a function.
func TestNoCommandHoldsTheFactory_SeesAField(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", `package p
type Options struct { Factory *cmdutil.Factory; N int }
func NewCmd(f *cmdutil.Factory) {}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := factoryFields(f); len(got) != 1 {
		t.Fatalf("factoryFields = %d fields, want the one", len(got))
	}
}

// factoryFields are the struct fields of f whose type is *cmdutil.Factory.
func factoryFields(f *ast.File) []*ast.Field {
	var out []*ast.Field
	ast.Inspect(f, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok {
			return true
		}
		for _, field := range st.Fields.List {
			star, ok := field.Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Factory" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "cmdutil" {
					out = append(out, field)
				}
			}
		}
		return true
	})
	return out
}
