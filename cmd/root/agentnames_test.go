package root

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents/all"
)

// No command and no doctor check branches on an agent: what differs between agents is an interface of
// package agents the agent implements (or its Info), in the agent's own package (config/agents/…), and the
// command tests for the interface, so that adding an agent is one package.
// The rule, as the code can be held to it: no Go source of cmd/, doctor/ or internal/remedy (the remedies and
// their renderer: an agent is a remedy's value) holds a string that is an agent's --agent name or display
// name, tests aside, and none imports one agent's package (only config/agents/all, which lists them).
func TestCommandsAndDoctorNameNoAgent(t *testing.T) {
	var names []string
	for _, a := range all.All() {
		names = append(names, a.Info().Name, a.Info().Display)
	}
	checked := 0
	for _, dir := range []string{"..", filepath.Join("..", "..", "doctor"), filepath.Join("..", "..", "internal", "remedy")} {
		checked += walkGo(t, dir, func(path string, f *ast.File, fset *token.FileSet) {
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(p, module+"/config/agents/") && p != module+"/config/agents/all" {
					t.Errorf("%s imports %s: commands and doctor reach an agent only through config/agents/all and the interfaces of config/agents", path, p)
				}
			}
			for _, lit := range agentNamesIn(f, names) {
				t.Errorf("%s: %s names an agent; what differs is an interface of config/agents (ConfigWriter, Runner, DirectRefuser, …) that the agent's package implements and the command tests for: implement one, or add one there",
					fset.Position(lit.Pos()), lit.Value)
			}
		})
	}
	if checked < 20 {
		t.Fatalf("checked %d files of cmd/, doctor/ and internal/remedy, want all of them", checked)
	}
}

// The rule sees a branch on an agent's name where one is written.
func TestCommandsAndDoctorNameNoAgent_SeesABranch(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", `package p
func f(name string) bool { return name == "opencode" || name == "other" }`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := agentNamesIn(f, []string{"opencode", "OpenCode"}); len(got) != 1 || got[0].Value != `"opencode"` {
		t.Fatalf("agentNamesIn = %v, want the one \"opencode\"", got)
	}
}

// agentNamesIn are the string literals of f that are one of names.
func agentNamesIn(f *ast.File, names []string) []*ast.BasicLit {
	var out []*ast.BasicLit
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(names, s) {
			out = append(out, lit)
		}
		return true
	})
	return out
}

// walkGo parses every non-test Go file below dir (testdata aside) and hands it to fn; it returns how many.
func walkGo(t *testing.T, dir string, fn func(path string, f *ast.File, fset *token.FileSet)) int {
	t.Helper()
	n := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		n++
		fn(p, f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
