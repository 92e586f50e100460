//go:build unix

package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/config/agents"
)

// TestHostileProjectSettings: a cloned repository's .gemini/settings.json that is a named pipe, or a link
// to /dev/zero, is refused at once without being read (gw run neither hangs on it nor reads it until memory
// runs out): the run goes on, with a warning naming the file and what it is.
func TestHostileProjectSettings(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(path string) error
		words string
	}{
		{"named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "named pipe"},
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "character device"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, e, _ := homeMachine(t, map[string]string{})
			settings := filepath.Join(e.WorkDir, ".gemini", "settings.json")
			if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := c.plant(settings); err != nil {
				t.Fatal(err)
			}
			done := make(chan agents.RunSpec, 1)
			go func() { spec, _ := prepared(t, e); done <- spec }()
			select {
			case spec := <-done:
				if len(spec.Warnings) != 1 || !strings.Contains(spec.Warnings[0], settings) || !strings.Contains(spec.Warnings[0], c.words) {
					t.Errorf("warnings %q, want one naming %s as %s", spec.Warnings, settings, c.words)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("gw run is still reading %s (%s)", settings, c.name)
			}
		})
	}
}
