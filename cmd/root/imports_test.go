package root

import (
	"go/build"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/modelgateway/gw"

// Every command is one hop from its own folder: a cmd/<command> package imports no other command's package.
// What commands share lives in cmd/cmdutil (or below the packages they wire, in api, config, tui, …).
// Only the tree may import the commands: cmd/root adds the top-level ones (and nothing of their
// subcommands: a subcommand's completions and hints are its own), a group (gw auth, gw init) adds its own
// subcommands, and cmd/gw runs the root. Tests are held to the same rule.
func TestCommandsImportNoOtherCommand(t *testing.T) {
	pkgs := packages(t, "..", "cmd", true)
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages under cmd/, want every command's: %v", len(pkgs), slices.Sorted(maps.Keys(pkgs)))
	}
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		for _, imp := range pkgs[p] {
			if reason := forbiddenImport(p, imp); reason != "" {
				t.Errorf("%s imports %s: %s", p, imp, reason)
			}
		}
	}
}

// The rule itself, on the imports it must refuse and the ones it must allow.
func TestForbiddenImport(t *testing.T) {
	for _, tc := range []struct {
		from, imp string
		refused   bool
	}{
		{"cmd/initcmd/agent", "cmd/models", true},
		{"cmd/initcmd/editor", "cmd/models", true},
		{"cmd/initcmd/agent", "cmd/initcmd/editor", true},
		{"cmd/version", "cmd/root", true},
		{"cmd/auth/login", "cmd/auth", true},
		{"cmd/cmdutil", "cmd/models", true},
		{"cmd/root", "cmd/initcmd/agent", true},
		{"cmd/root", "cmd/initcmd", false},
		{"cmd/root", "cmd/version", false},
		{"cmd/gw", "cmd/root", false},
		{"cmd/auth", "cmd/auth/login", false},
		{"cmd/initcmd", "cmd/initcmd/agent", false},
		{"cmd/models", "cmd/cmdutil", false},
		{"cmd/models", "cmd/cmdutil/cmdtest", false},
		{"cmd/version", "cmd/build", false},
		{"cmd/models", "api", false},
	} {
		got := forbiddenImport(module+"/"+tc.from, module+"/"+tc.imp) != ""
		if got != tc.refused {
			t.Errorf("%s importing %s: refused %v, want %v", tc.from, tc.imp, got, tc.refused)
		}
	}
}

// forbiddenImport says why package from may not import imp ("" when it may).
func forbiddenImport(from, imp string) string {
	cmd := module + "/cmd/"
	if !strings.HasPrefix(imp, cmd) {
		return ""
	}
	switch {
	case imp == cmd+"cmdutil" || strings.HasPrefix(imp, cmd+"cmdutil/"), imp == cmd+"build":
		return "" // shared by every command
	case from == cmd+"root" && path.Dir(imp) == module+"/cmd", from == cmd+"gw" && imp == cmd+"root":
		return "" // the tree: the root adds the top-level commands
	case path.Dir(imp) == from:
		return "" // a group wiring its own subcommands
	}
	return "a command imports no other command's package; move what both use to cmd/cmdutil or to the package it belongs to (api, config, tui, …)"
}

// packages maps each Go package below dir (the module's folder under) to its imports, with tests' ones
// included when tests.
func packages(t *testing.T, dir, under string, tests bool) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(p, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := path.Join(module, under, filepath.ToSlash(rel))
		pkgs[name] = bp.Imports
		if tests {
			pkgs[name] = slices.Concat(bp.Imports, bp.TestImports, bp.XTestImports)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// layerRows are the rows of docs/architecture.md's diagram, top to bottom, each as the folders it holds;
// imports point down a row, or stay in it. standin, tools/ and e2e stand beside the diagram.
var layerRows = [][]string{{"cmd"}, {"doctor"}, {"proxy", "protocol"}, {"reqlog"}, {"config"}, {"api"}, {"keychain"}, {"tui"}, {"internal"}}

// Nothing in a lower row of the diagram imports a higher one, and only config/agents/all imports one
// agent's package (tests aside: they may use what they test against): proxy, doctor and the commands reach the agents through its list and the interfaces of
// config/agents (an agent's own route of gw serve is an agents.ServeRouter, not an import).
func TestLowerRowsImportNoHigher(t *testing.T) {
	pkgs := packages(t, filepath.Join("..", ".."), "", false)
	checked := 0
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		from := rowOf(p)
		if from < 0 {
			continue
		}
		checked++
		for _, imp := range pkgs[p] {
			if to := rowOf(imp); to >= 0 && to < from {
				t.Errorf("%s imports %s, a row above it in docs/architecture.md", p, imp)
			}
			if isAgentPackage(imp) && !isAgentPackage(p) && p != module+"/config/agents/all" {
				t.Errorf("%s imports %s: only config/agents/all lists the agents; implement an interface of config/agents instead", p, imp)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("checked %d packages, want every one of the diagram", checked)
	}
}

// rowOf is the row of package p in layerRows; -1 outside the diagram.
func rowOf(p string) int {
	rel, ok := strings.CutPrefix(p, module+"/")
	if !ok {
		return -1
	}
	top, _, _ := strings.Cut(rel, "/")
	return slices.IndexFunc(layerRows, func(row []string) bool { return slices.Contains(row, top) })
}

// isAgentPackage: p is one agent's package (config/agents/<agent>), not the list, the shared format or the
// tests' helpers.
func isAgentPackage(p string) bool {
	name, ok := strings.CutPrefix(p, module+"/config/agents/")
	return ok && !strings.Contains(name, "/") && !slices.Contains([]string{"all", "agentstest", "opencodefmt"}, name)
}
