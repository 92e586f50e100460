package agents

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
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

// A named pipe where a package.json would be (planted in a directory on PATH) is not read: gw doctor,
// which asks for the version, must not wait on it.
func TestInstalledVersionSkipsAPipe(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/usr/bin/env node\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.Mkfifo(t, filepath.Join(filepath.Dir(bin), "package.json"))
	testutil.Within(t, 5*time.Second, "InstalledVersion with a pipe for package.json", func() {
		if v, ok := InstalledVersion(bin, "@mariozechner/pi-coding-agent"); ok {
			t.Errorf("a version %q read from a pipe", v)
		}
	})
}
