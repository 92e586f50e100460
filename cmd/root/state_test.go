package root

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// No package-level mutable state (docs/architecture.md), except cmd/build's
// -ldflags -X variables: as far as the source can show it, no package-level
// variable of a library or command is assigned to (x = …, x[k] = …,
// x.f = …, x++), emptied (delete, clear) or holds a lock or an atomic
// value, outside its declaration. Tables read only (sentinel errors,
// regexps, lookup maps) pass, and so does a sync.Pool of buffers: what it
// holds is never read back as meaning. (A change through a method of the
// variable is not seen.)
func TestNoPackageLevelMutableState(t *testing.T) {
	root := filepath.Join("..", "..")
	vars := map[string]map[string]token.Pos{} // directory → package-level variable → where declared
	var files []*ast.File
	var dirs []string
	fset := token.NewFileSet()
	checked := walkGo(t, root, func(path string, f *ast.File, fs *token.FileSet) {
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(rel, filepath.Join("cmd", "build")+string(filepath.Separator)) {
			return
		}
		fset = fs
		dir := filepath.Dir(rel)
		files, dirs = append(files, f), append(dirs, dir)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for _, n := range vs.Names {
					if n.Name == "_" {
						continue
					}
					if vars[dir] == nil {
						vars[dir] = map[string]token.Pos{}
					}
					vars[dir][n.Name] = n.Pos()
					if isSyncType(vs.Type) || len(vs.Values) > 0 && isSyncValue(vs.Values[0]) {
						t.Errorf("%s: package-level %s holds a lock or an atomic value: keep it in a value its owner makes", fset.Position(n.Pos()), n.Name)
					}
				}
			}
		}
	})
	if checked < 100 {
		t.Fatalf("checked %d files, want every package's", checked)
	}
	for i, f := range files {
		pkgVars := vars[dirs[i]]
		for _, pos := range mutations(f, pkgVars) {
			t.Errorf("%s: a package-level variable is changed here: keep the state in a value its owner makes", fset.Position(pos))
		}
	}
}

// The rule sees each kind of change, and a local variable of the same name
// is not taken for the package's.
func TestNoPackageLevelMutableState_SeesThem(t *testing.T) {
	for _, stmt := range []string{"x = 1", "x[k] = v", "x.f = v", "x++", "x += 2", "delete(x, k)", "clear(x)"} {
		f := parseSrc(t, "package p\nvar x map[string]int\nfunc f() { "+stmt+" }\n")
		if got := mutations(f, map[string]token.Pos{"x": 1}); len(got) != 1 {
			t.Errorf("%s: %d changes seen, want 1", stmt, len(got))
		}
	}
	f := parseSrc(t, "package p\nvar x = 1\nfunc f() { x := 2; x++; _ = x }\n")
	if got := mutations(f, map[string]token.Pos{"x": 1}); len(got) != 0 {
		t.Errorf("a local x is taken for the package's: %d changes", len(got))
	}
}

func parseSrc(t *testing.T, src string) *ast.File {
	t.Helper()
	f, err := parserParse(src)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// mutations are the places in f where a variable of vars is changed; a
// function's own variable (a parameter, :=, var) of the same name hides it.
func mutations(f *ast.File, vars map[string]token.Pos) []token.Pos {
	var out []token.Pos
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		local := map[string]bool{}
		for _, fl := range []*ast.FieldList{fn.Recv, fn.Type.Params, fn.Type.Results} {
			if fl != nil {
				for _, fd := range fl.List {
					for _, n := range fd.Names {
						local[n.Name] = true
					}
				}
			}
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.AssignStmt:
				if s.Tok == token.DEFINE {
					for _, l := range s.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							local[id.Name] = true
						}
					}
					return true
				}
				for _, l := range s.Lhs {
					if id := rootIdent(l); id != nil && vars[id.Name] != 0 && !local[id.Name] {
						out = append(out, l.Pos())
					}
				}
			case *ast.IncDecStmt:
				if id := rootIdent(s.X); id != nil && vars[id.Name] != 0 && !local[id.Name] {
					out = append(out, s.Pos())
				}
			case *ast.ValueSpec:
				for _, id := range s.Names {
					local[id.Name] = true
				}
			case *ast.FuncLit:
				if s.Type.Params != nil {
					for _, fd := range s.Type.Params.List {
						for _, id := range fd.Names {
							local[id.Name] = true
						}
					}
				}
			case *ast.RangeStmt:
				if s.Tok == token.DEFINE {
					for _, e := range []ast.Expr{s.Key, s.Value} {
						if id, ok := e.(*ast.Ident); ok {
							local[id.Name] = true
						}
					}
				}
			case *ast.CallExpr:
				if fn, ok := s.Fun.(*ast.Ident); ok && (fn.Name == "delete" || fn.Name == "clear") && len(s.Args) > 0 {
					if id := rootIdent(s.Args[0]); id != nil && vars[id.Name] != 0 && !local[id.Name] {
						out = append(out, s.Pos())
					}
				}
			}
			return true
		})
	}
	return out
}

// rootIdent is the variable an expression such as x, x[k], x.f or *x
// changes; nil for anything else.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// isSyncType: a type of package sync (but Pool) or sync/atomic (a lock,
// an atomic value), or a struct holding one.
func isSyncType(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		if p, ok := x.X.(*ast.Ident); ok {
			return p.Name == "sync" && x.Sel.Name != "Pool" || p.Name == "atomic"
		}
	case *ast.StructType:
		for _, fd := range x.Fields.List {
			if isSyncType(fd.Type) {
				return true
			}
		}
	case *ast.StarExpr:
		return isSyncType(x.X)
	}
	return false
}

func isSyncValue(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.CompositeLit:
		return isSyncType(x.Type)
	case *ast.UnaryExpr:
		return isSyncValue(x.X)
	}
	return false
}

func parserParse(src string) (*ast.File, error) {
	return parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
}
