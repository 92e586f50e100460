package root

import (
	"go/ast"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every file goes through internal/fsutil (docs/architecture.md): no package of the product (what
// cmd/gw imports, on every OS) opens, reads, writes, creates, lists, links, renames or removes a file
// or a directory with package os, io/ioutil or filepath's walkers, outside internal/fsutil. What stays
// with package os: looking at a path (Stat, Lstat, Readlink, SameFile), which opens nothing and so cannot
// hang on a named pipe nor read a byte; setting the times of a file gw is writing (Chtimes); and opening
// os.DevNull, the null device a child process is given for its standard streams, which is no file gw
// reads. What the standard library reads on its own (crypto/x509's roots, os/user's user database) is
// not gw's code and not seen here.
func TestFilesGoThroughFsutil(t *testing.T) {
	root := filepath.Join("..", "..")
	files := map[string][]*ast.File{} // import path → its non-test files
	fset := token.NewFileSet()
	walkGo(t, root, func(path string, f *ast.File, fs *token.FileSet) {
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		p := module + "/" + filepath.ToSlash(rel)
		files[p] = append(files[p], f)
		fset = fs
	})
	product := map[string]bool{}
	for todo := []string{module + "/cmd/gw"}; len(todo) > 0; todo = todo[1:] {
		p := todo[0]
		if product[p] {
			continue
		}
		product[p] = true
		for _, f := range files[p] {
			for _, imp := range f.Imports {
				if ip, _ := strconv.Unquote(imp.Path.Value); files[ip] != nil {
					todo = append(todo, ip)
				}
			}
		}
	}
	for _, want := range []string{"keychain", "proxy", "reqlog", "config/agents/gemini", "internal/fsutil", "internal/autostart"} {
		if !product[module+"/"+want] {
			t.Fatalf("%s is not among the product's packages: %v", want, slices.Sorted(maps.Keys(product)))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(product)) {
		if p == module+"/internal/fsutil" {
			continue
		}
		for _, f := range files[p] {
			for _, pos := range fileOps(f) {
				t.Errorf("%s: a file operation outside internal/fsutil; use (or add) the fsutil function that does it", fset.Position(pos))
			}
		}
	}
}

// The rule sees each kind of file operation, however os is imported, and lets through what it allows.
func TestFilesGoThroughFsutil_SeesThem(t *testing.T) {
	for src, want := range map[string]int{
		`import "os"; func f() { os.ReadFile("x") }`:                                                   1,
		`import "os"; func f() { g(os.WriteFile) }`:                                                    1,
		`import sys "os"; func f() { sys.Remove("x"); sys.MkdirAll("d", 0) }`:                          2,
		`import "os"; func f() { os.Open("/proc/net/tcp") }`:                                           1,
		`import "io/ioutil"; func f() { ioutil.ReadAll(nil) }`:                                         1,
		`import "path/filepath"; func f() { filepath.Glob("/proc/*") }`:                                1,
		`import "os"; func f() { os.Open(os.DevNull); os.Stat("x"); os.Lstat("x"); os.Readlink("x") }`: 0,
		`import "path/filepath"; func f() { filepath.Join("a", "b") }`:                                 0,
		`func f() { var os x; os.ReadFile("x") }`:                                                      0, // no package os imported
	} {
		f := parseSrc(t, "package p\n"+src+"\n")
		if got := len(fileOps(f)); got != want {
			t.Errorf("%s: %d file operations seen, want %d", src, got, want)
		}
	}
}

// fileOps are the places in f that use a file operation of package os, io/ioutil or path/filepath.
func fileOps(f *ast.File) []token.Pos {
	forbidden := map[string]map[string]bool{
		"os": set("Open", "OpenFile", "OpenInRoot", "OpenRoot", "ReadFile", "ReadDir", "WriteFile", "Create",
			"CreateTemp", "Mkdir", "MkdirAll", "MkdirTemp", "Remove", "RemoveAll", "Rename", "Symlink", "Link",
			"Truncate", "Chmod", "Chown", "Lchown", "DirFS", "CopyFS", "NewFile"),
		"io/ioutil":     nil, // all of it
		"path/filepath": set("Glob", "Walk", "WalkDir"),
	}
	names := map[string]string{} // local name → import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := forbidden[p]; !ok {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	allowed := map[ast.Expr]bool{}
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			// os.Open(os.DevNull), os.OpenFile(os.DevNull, …): the null device.
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && len(x.Args) > 0 && isSel(x.Args[0], names, "os", "DevNull") &&
				(isSel(sel, names, "os", "Open") || isSel(sel, names, "os", "OpenFile")) {
				allowed[sel] = true
			}
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			if !ok || allowed[x] {
				return true
			}
			if p, ok := names[id.Name]; ok && (forbidden[p] == nil || forbidden[p][x.Sel.Name]) {
				out = append(out, x.Pos())
			}
		}
		return true
	})
	return out
}

func isSel(e ast.Expr, names map[string]string, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && names[id.Name] == pkg && sel.Sel.Name == name
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}
