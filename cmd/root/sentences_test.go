package root

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// No library package holds a sentence of the command line: what to do is a remedy (internal/remedy), said in
// words by internal/remedy/render, and a command's error gets its "fix:" line and "(nothing was changed)" from
// cmdutil.ErrorWithFix. As the code can be held to it: no string literal of a Go source outside cmd/ and the
// renderer (tests, the stand-in and the benchmark and end-to-end tools aside) tells the user to run a gw
// command ("run gw …", "run: gw …") or builds those two lines.
func TestNoLibraryHoldsACommandSentence(t *testing.T) {
	// The service contract's own words for a refused key (cli-contract.md), which gw serve answers as they are.
	allowed := []string{"no key stored — run gw auth login"}
	skip := []string{"cmd", "e2e", "standin", "tools", filepath.Join("tui", "e2e"), filepath.Join("internal", "remedy", "render")}
	root := filepath.Join("..", "..")
	checked := walkGo(t, root, func(path string, f *ast.File, fset *token.FileSet) {
		rel, _ := filepath.Rel(root, path)
		for _, s := range skip {
			if strings.HasPrefix(rel, s+string(filepath.Separator)) {
				return
			}
		}
		for _, lit := range commandSentences(f, allowed) {
			t.Errorf("%s: %s says a command line's sentence; return a remedy (internal/remedy) and let render say it",
				fset.Position(lit.Pos()), lit.Value)
		}
	})
	if checked < 100 {
		t.Fatalf("checked %d files, want every library package's", checked)
	}
}

// The rule sees each kind of sentence.
func TestNoLibraryHoldsACommandSentence_SeesThem(t *testing.T) {
	for _, src := range []string{`"x; run gw init agent again"`, `"run: gw models"`, `"%w\n(nothing was changed)"`, `"%s\nfix: %s"`} {
		f := &ast.File{Decls: []ast.Decl{&ast.GenDecl{Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{
			Names: []*ast.Ident{ast.NewIdent("x")}, Values: []ast.Expr{&ast.BasicLit{Kind: token.STRING, Value: "`" + mustUnquote(t, src) + "`"}}}}}}}
		if len(commandSentences(f, nil)) != 1 {
			t.Errorf("%s is not seen", src)
		}
	}
}

func mustUnquote(t *testing.T, s string) string {
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// commandSentences are the string literals of f that tell the user to run a gw command or build a fix line.
func commandSentences(f *ast.File, allowed []string) []*ast.BasicLit {
	var out []*ast.BasicLit
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, a := range allowed {
			s = strings.ReplaceAll(s, a, "")
		}
		for _, bad := range []string{"run gw ", "run: gw ", "nothing was changed", "\nfix: "} {
			if strings.Contains(s, bad) {
				out = append(out, lit)
				break
			}
		}
		return true
	})
	return out
}
