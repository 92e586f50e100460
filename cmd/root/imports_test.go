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
	pkgs := cmdPackages(t, "..")
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

// cmdPackages maps each Go package below dir (cmd/) to its imports, tests' included.
func cmdPackages(t *testing.T, dir string) map[string][]string {
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
		name := module + "/cmd"
		if rel != "." {
			name += "/" + filepath.ToSlash(rel)
		}
		pkgs[name] = slices.Concat(bp.Imports, bp.TestImports, bp.XTestImports)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}
