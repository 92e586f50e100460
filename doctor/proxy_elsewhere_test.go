package doctor

import (
	"net"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api/apitest"
	"github.com/modelgateway/gw/standin"
)

// gw serve --port 0 after gw init agent pointed the agent at the configured port: doctor finds gw serve where
// it said it runs and says how to bring the two together, instead of "run gw serve".
func TestRun_ProxyOnAnotherPort(t *testing.T) {
	s := startStandin(t, standin.Options{})
	running := startServe(t, s.BaseURL, localToken)
	_, runningPort, _ := net.SplitHostPort(running)
	configured := apitest.ClosedAddr(t)

	cases := []struct {
		name       string
		noted      string // RunningProxyAddr: what gw serve's state file says
		agentUses  bool
		status     Status
		cause, fix string
	}{
		{"agent uses the configured port", running, true, Fail,
			"sends requests to gw serve at " + configured + ", but gw serve runs on " + running,
			"or point the agents at port " + runningPort + ": gw init agent --port " + runningPort},
		{"nothing uses it", running, false, Pass, "", ""},
		{"the note is stale", apitest.ClosedAddr(t), true, Fail, "but nothing answers there",
			"run: gw serve (and keep it running while the agent works); to have gw serve start at login and restart when it fails, run: gw service install"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(s.BaseURL, standin.DemoKeyFull)
			in.ProxyAddr, in.LocalToken, in.RunningProxyAddr = configured, localToken, tc.noted
			if tc.agentUses {
				path := writeFile(t, t.TempDir(), "opencode.json",
					opencodeConfig("http://"+configured+"/v1", localToken, []string{"vendor-a/model-a-haiku-4.5"}, ""))
				in.Agents = openCodeFiles(path)
			}
			rep := runDoctor(t, in)
			c := wantStatus(t, rep, IDProxy, tc.status)
			if !strings.Contains(c.Cause, tc.cause) || !strings.Contains(fixText(in, c), tc.fix) {
				t.Errorf("proxy %+v: want cause with %q, fix with %q", c, tc.cause, tc.fix)
			}
			if tc.status == Pass && !strings.Contains(c.Detail, "gw serve runs on "+running+", not on the configured port") {
				t.Errorf("detail %q does not say where gw serve runs", c.Detail)
			}
		})
	}
}
