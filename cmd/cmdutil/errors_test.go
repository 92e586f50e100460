package cmdutil

import (
	"errors"
	"fmt"
	"testing"

	"github.com/modelgateway/gw/tui"
)

// The TUI's own errors have their exit codes here, wrapped or not, so no command maps them by hand.
func TestExitCodeFor(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want ExitCode
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("the service accepts keys: invalid argument"), ExitError},
		{"flag", FlagErrorf("unknown flag: --x"), ExitUsage},
		{"wrapped flag", fmt.Errorf("gw models: %w", FlagErrorf("bad")), ExitUsage},
		{"no key", &NoKeyError{Msg: "no API key stored"}, ExitAuth},
		{"declined", ErrCancel, ExitCancel},
		{"esc in a picker", tui.ErrCancelled, ExitCancel},
		{"esc, wrapped", fmt.Errorf("choosing models: %w", tui.ErrCancelled), ExitCancel},
		{"ctrl-c in a picker or prompt", tui.ErrInterrupted, ExitInterrupted},
		{"ctrl-c, wrapped", fmt.Errorf("reading the key: %w", tui.ErrInterrupted), ExitInterrupted},
		{"silent", ErrSilent, ExitError},
	} {
		if got := ExitCodeFor(tt.err); got != tt.want {
			t.Errorf("%s: ExitCodeFor(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}
