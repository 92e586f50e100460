package token

import (
	"context"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
)

func TestTokenRun(t *testing.T) {
	tests := []struct {
		name      string
		tty, show bool
		stored    string
		wantOut   string
		wantCode  cmdutil.ExitCode
	}{
		{name: "piped", stored: "sk-abc-123456", wantOut: "sk-abc-123456\n"},
		{name: "terminal refused", tty: true, stored: "sk-abc-123456", wantCode: cmdutil.ExitError},
		{name: "terminal with --show", tty: true, show: true, stored: "sk-abc-123456", wantOut: "sk-abc-123456\n"},
		{name: "no key", wantCode: cmdutil.ExitAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := cmdtest.New(t)
			e.IO.SetStdoutTTY(tt.tty)
			if tt.stored != "" {
				_ = e.Keyring.Set(cmdutil.Profile, tt.stored)
			}
			err := tokenRun(context.Background(), &TokenOptions{IO: e.IO, Key: e.Factory.Key, Show: tt.show})
			if got := cmdutil.ExitCodeFor(err); got != tt.wantCode {
				t.Fatalf("exit %d (%v), want %d", got, err, tt.wantCode)
			}
			if e.Out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", e.Out, tt.wantOut)
			}
		})
	}
}
