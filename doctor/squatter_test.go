package doctor

import (
	"strings"
	"testing"

	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/standin"
)

// A program that listened first on gw serve's port and answers like gw serve (its errors, a hello with a
// proof it cannot compute), with Claude Code's settings pointing there: the proxy check fails, saying the
// listener cannot prove it is this install's gw serve, and the program was sent nothing — no local token,
// no key. (Another user's squatter: cmd/root's hostile_squatter script.)
func TestRun_SquatterOnTheProxyPortGetsNothing(t *testing.T) {
	s := startStandin(t, standin.Options{})
	sq := testutil.NewSquatter(t)
	addr := sq.Addr()
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.ProxyAddr, in.LocalToken = addr, localToken
	in.Agents = []AgentFiles{agentFiles(t, "claude-code", claudeSettings("http://"+addr, localToken, "vendor-a/model-a-haiku-4.5"))}
	rep := runDoctor(t, in)
	c := wantStatus(t, rep, IDProxy, Fail)
	if !strings.Contains(c.Cause, "refuses the local token on "+addr) {
		t.Errorf("proxy check: %+v", c)
	}
	sq.GotNothing(t, localToken[len("gw-local-"):], standin.DemoKeyFull)
}
