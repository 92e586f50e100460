package root

import (
	"context"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
)

// A key pasted where a flag was expected is a usage error that does not repeat the key (the one rule of
// internal/secret, shared with the scrubbing of the service's messages).
func TestRun_FlagErrorsNeverEchoAKey(t *testing.T) {
	for _, args := range [][]string{
		{"models", "--sk-gw-demo-full"},
		{"models", "--sk-proj-Ab3dE5gH7jK9mN1pQ3sT"},
		{"models", "-Ab3dE5gH7jK9mN1pQ3sTuV"},
		{"auth", "status", "--base-url"},
	} {
		e := cmdtest.New(t)
		code := Run(context.Background(), e.Factory, args)
		if code != cmdutil.ExitUsage {
			t.Errorf("gw %s: exit %d, want 2", strings.Join(args, " "), code)
		}
		for _, a := range args {
			if len(a) > 12 && strings.Contains(e.ErrOut.String(), strings.TrimLeft(a, "-")) {
				t.Errorf("gw %s: stderr repeats %q:\n%s", strings.Join(args, " "), a, e.ErrOut)
			}
		}
	}
}
