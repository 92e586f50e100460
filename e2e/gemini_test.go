package e2e

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGeminiCLIFailures runs Gemini CLI through gw serve with the key in the real keychain: each of the
// spec's three failures reaches the user in one line with the spec's message and gw's fix, after one
// request. Gemini CLI retries a 429 and every 5xx ten times over about two minutes, silently; gw serve's
// log shows it did not.
func TestGeminiCLIFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gw and runs Gemini CLI")
	}
	requireKeyring(t, "GW_REQUIRE_AGENTS")
	geminiCLI().binDir(t)
	runStories(t, "GW_REQUIRE_AGENTS", []story{{"Failures", geminiFailures}}, nil)
}

func geminiCLI() agentCLI {
	return agentCLIs[slices.IndexFunc(agentCLIs, func(c agentCLI) bool { return c.name == "gemini" })]
}

// answerRequests are gw serve's log lines for Gemini CLI's requests for an answer.
var answerRequests = regexp.MustCompile(`(?m)POST /v1beta/models/\S+:(stream)?[gG]enerateContent\S* `)

// geminiFailures: after gw init agent --agent gemini, a model the service does not know, an exhausted
// balance (the key rejected) and the service gone (unreachable).
func geminiFailures(t *testing.T, gw string) {
	c := geminiCLI()
	dir := c.binDir(t)
	m, svc, key, _ := agentMachine(t, gw, c, dir)
	serve := m.startServe(t, gw, "--port", "0")
	m.run(t, nil, "", gw, "init", "agent", "--agent", c.name, "--models", model, "--default", model, "--port", serve.port(), "--yes")
	logged := func() int { return len(answerRequests.FindAllString(serve.stderr.String(), -1)) }
	check := func(what, want string, args ...string) {
		t.Helper()
		from := logged()
		out, ok := m.runMayFail(t, nil, filepath.Join(dir, c.bin), append(args, "-p", "say hello")...)
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, want) {
				line = l
				break
			}
		}
		t.Logf("%s: gemini shows: %s", what, line)
		if ok || line == "" || !strings.Contains(line, " — ") {
			t.Errorf("%s: gemini shows no line with %q and the fix (ok %v):\n%s", what, want, ok, out)
		}
		// gw serve logs a request once it is answered, maybe just after Gemini CLI has ended.
		serve.await(t, "gw serve's log line", 10*time.Second, func() bool { return logged() > from })
		if n := logged() - from; n != 1 {
			t.Errorf("%s: gw serve received %d requests for the answer, want 1 (Gemini CLI retried):\n%s", what, n, serve.stderr)
		}
	}

	check("unknown model", "model not found / invalid model: ", "-m", "vendor-a/model-a-sonnet-4.7")
	svc.SetBalance(key, 0)
	check("balance exhausted", "API key invalid or unauthorized: ")
	svc.Close()
	check("service unreachable", "unable to connect to API: ")
	noFileHolds(t, m.home, key)
	serve.stop(t)
}
