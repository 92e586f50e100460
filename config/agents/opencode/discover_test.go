package opencode

import (
	"os"
	"path/filepath"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFindPrefersJSONCThenJSONThenCreatesJSONC(t *testing.T) {
	xdg := t.TempDir()
	dir := filepath.Join(xdg, "opencode")
	getenv := env(map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": "/nonexistent"})

	loc, err := Find(Global, getenv, "")
	if err != nil {
		t.Fatal(err)
	}
	if loc.Path != filepath.Join(dir, "opencode.jsonc") || loc.Exists {
		t.Fatalf("no file yet: %+v, want a new opencode.jsonc", loc)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if loc, _ = Find(Global, getenv, ""); loc.Path != filepath.Join(dir, "opencode.json") || !loc.Exists {
		t.Fatalf("only opencode.json: %+v", loc)
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.jsonc"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if loc, _ = Find(Global, getenv, ""); loc.Path != filepath.Join(dir, "opencode.jsonc") || !loc.Exists {
		t.Fatalf("both: %+v, want opencode.jsonc", loc)
	}
}

func TestFindGlobalFallsBackToHome(t *testing.T) {
	loc, err := Find(Global, env(map[string]string{"HOME": "/home/u"}), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/home/u", ".config", "opencode", "opencode.jsonc"); loc.Path != want {
		t.Fatalf("path = %s, want %s", loc.Path, want)
	}
	if _, err := Find(Global, env(nil), ""); err == nil {
		t.Fatal("no HOME and no XDG_CONFIG_HOME: want an error")
	}
	if _, err := Find(Global, env(map[string]string{"XDG_CONFIG_HOME": "relative/dir"}), ""); err == nil {
		t.Fatal("relative XDG_CONFIG_HOME: want an error")
	}
}

func TestFindProjectUsesWorkDir(t *testing.T) {
	wd := t.TempDir()
	if err := os.WriteFile(filepath.Join(wd, "opencode.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	loc, err := Find(Project, env(nil), wd)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Path != filepath.Join(wd, "opencode.json") || !loc.Exists || loc.Scope != Project {
		t.Fatalf("%+v", loc)
	}
}
