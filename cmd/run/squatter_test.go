//go:build unix

package run

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/testutil"
)

// A program that listened first on gw serve's configured port and answers like gw serve (its errors, a
// hello with a proof it cannot compute): gw run sends it nothing, points the agent at a gw serve of its own
// and says who holds the port and what to do. (The squatter of another user, whom the socket's owner gives
// away on Linux too, is cmd/root's hostile_squatter script.)
func TestRunRun_SquatterOnTheConfiguredPortGetsNothing(t *testing.T) {
	fakeAgentOnPath(t, "qwen")
	e, opts := runEnv(t, "qwen-code", "report")
	const token = "gw-local-0123456789abcdef0123456789abcdef"
	sq := testutil.NewSquatter(t)
	port := sq.Port()
	if err := config.Save(filepath.Join(e.Dir, "home", ".config", "gw", "config.json"), config.File{LocalToken: token, Port: port}); err != nil {
		t.Fatal(err)
	}
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, e.Out)
	}
	if strings.Contains(r.Env["OPENAI_BASE_URL"], sq.Addr()) || r.Status != http.StatusOK {
		t.Errorf("the agent was pointed at %s (status %d), want gw run's own gw serve", r.Env["OPENAI_BASE_URL"], r.Status)
	}
	sq.GotNothing(t, token, "0123456789abcdef0123456789abcdef")
	stderr := e.ErrOut.String()
	addr := sq.Addr()
	if !strings.HasPrefix(stderr, "warning: gw serve refuses the local token on "+addr+": it was started with another local token, or is another program posing as gw serve") ||
		!strings.Contains(stderr, "gw sent it nothing") || !strings.Contains(stderr, "gw run serves the agent on a free port instead\nfix: restart gw serve") {
		t.Errorf("gw run said:\n%s", stderr)
	}
}
