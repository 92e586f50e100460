package agents

import (
	"os"
	"path/filepath"
	"testing"
)

// The version comes from the package.json of the package the command is installed in, through the
// .bin symlink npm makes; another package's package.json, or none, gives nothing.
func TestInstalledVersion(t *testing.T) {
	root := t.TempDir()
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pkg := filepath.Join(root, "node_modules", "@mariozechner", "pi-coding-agent")
	write(filepath.Join(pkg, "package.json"), `{"name": "@mariozechner/pi-coding-agent", "version": "0.74.0"}`)
	write(filepath.Join(pkg, "dist", "cli.js"), "#!/usr/bin/env node\n")
	bin := filepath.Join(root, "node_modules", ".bin", "pi")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "@mariozechner", "pi-coding-agent", "dist", "cli.js"), bin); err != nil {
		t.Fatal(err)
	}
	if v, ok := InstalledVersion(bin, "@mariozechner/pi-coding-agent"); !ok || v != "0.74.0" {
		t.Errorf("got %q %v", v, ok)
	}
	platform := filepath.Join(root, "node_modules", "@factory", "cli-linux-x64")
	write(filepath.Join(platform, "package.json"), `{"name": "@factory/cli-linux-x64", "version": "0.226.0"}`)
	write(filepath.Join(platform, "bin", "droid"), "binary")
	if v, ok := InstalledVersion(filepath.Join(platform, "bin", "droid"), "@factory/cli"); !ok || v != "0.226.0" {
		t.Errorf("platform package: got %q %v", v, ok)
	}
	if _, ok := InstalledVersion(bin, "@github/copilot"); ok {
		t.Error("another package's version")
	}
	other := filepath.Join(root, "usr", "bin", "pi")
	write(other, "binary")
	if _, ok := InstalledVersion(other, "@mariozechner/pi-coding-agent"); ok {
		t.Error("a version for a command outside any package")
	}
}
