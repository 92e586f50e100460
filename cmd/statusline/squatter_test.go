package statusline

import (
	"context"
	"strconv"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/internal/testutil"
)

// A program that listened first on gw serve's configured port and answers like gw serve (its errors, a
// hello with a proof it cannot compute): gw statusline, which Claude Code runs at every turn, says the port
// is taken and sends it nothing — no local token. (Another user's squatter: cmd/root's hostile_squatter.)
func TestStatuslineRun_SquatterOnTheConfiguredPortGetsNothing(t *testing.T) {
	sq := testutil.NewSquatter(t)
	port := sq.Port()
	e := cmdtest.New(t)
	configure(t, e, port)
	e.In.WriteString(recordedClaudeCodeStatus)
	if err := statuslineRun(context.Background(), &StatuslineOptions{IO: e.Factory.IOStreams, Config: e.Factory.Config}); err != nil {
		t.Fatal(err)
	}
	if want := "gw ! port " + strconv.Itoa(port) + " taken, run gw doctor · vendor-a/model-a-opus-4.6 · today: no requests\n"; e.Out.String() != want {
		t.Errorf("got  %q\nwant %q", e.Out.String(), want)
	}
	sq.GotNothing(t, "0123456789abcdef0123456789abcdef")
}
