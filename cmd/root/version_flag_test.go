package root

import (
	"context"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
)

// gw --version and gw version print the same version line, the factory's: the version every other command
// sends as its User-Agent, not one read separately.
func TestVersionFlagAndCommandAgree(t *testing.T) {
	line := func(args ...string) string {
		t.Helper()
		e := cmdtest.New(t)
		e.Factory.Version = "9.8.7-factory"
		e.Factory.DefaultBaseURL = "https://gateway.example.com/v1"
		if code := Run(context.Background(), e.Factory, args); code != 0 {
			t.Fatalf("gw %s: exit %d, stderr %q", strings.Join(args, " "), code, e.ErrOut)
		}
		first, _, _ := strings.Cut(e.Out.String(), "\n")
		return first
	}
	flag, cmd := line("--version"), line("version")
	if !strings.HasPrefix(flag, "gw version 9.8.7-factory") {
		t.Errorf("gw --version printed %q, want the factory's version 9.8.7-factory", flag)
	}
	if flag != cmd {
		t.Errorf("gw --version printed %q but gw version printed %q", flag, cmd)
	}
}
