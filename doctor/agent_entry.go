package doctor

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/internal/remedy"
)

// checkEntry reads one agent's config files of one scope and checks gw's entry in them the way the agent
// uses it (agents.ConfigWriter's Inspect): the base URL (gw serve's port, or the service), the local token gw serve
// accepts now, a key written into the file, the settings that keep the agent from using gw's entry; the
// model ids, spelled as written, go to the model checks. An agent whose entry points at something else
// entirely (its own provider) is only noted.
func (r *run) checkEntry(af AgentFiles, t *agentTally) {
	in := r.in
	a := af.Agent.Info()
	cw, ok := af.Agent.(agents.ConfigWriter)
	if !ok {
		return
	}
	expect := agents.Expect{ProxyPort: r.proxyPort(), LocalToken: in.LocalToken, ServiceURLs: []string{in.BaseURL, in.CanonicalURL}}
	srcs, exists, readErr := agentfile.ReadAll(af.Files)
	path := af.Files[0]
	if readErr == nil && !exists {
		return
	}
	t.foundAgent(af)
	if readErr != nil {
		t.fail(Check{ID: IDAgentConfig, Status: Fail, Cause: readErr.Error(), Fix: remedy.Remedy{Do: remedy.Say, Value: "replace it with " + a.Display + "'s config file, or remove it"}})
		return
	}
	insp, err := cw.Inspect(srcs)
	if err != nil {
		var pe *agents.ParseError
		cause := fmt.Sprintf("%s: %s's config does not parse: %v", path, a.Display, err)
		if errors.As(err, &pe) {
			cause = fmt.Sprintf("%s:%d:%d: %s's config does not parse: %s", path, pe.Line, pe.Column, a.Display, pe.Msg)
		}
		t.fail(Check{ID: IDAgentConfig, Status: Fail, Cause: cause,
			Fix: remedy.Remedy{Do: remedy.FixAgentFile, Value: path, Agent: a.RemedyAgent()}})
		return
	}
	if !insp.Configured {
		t.notes = append(t.notes, fmt.Sprintf("%s: %s is not pointed at the service", path, a.Display))
		if insp.KeyKind == agents.KeyLiteral {
			t.warnings = append(t.warnings, fmt.Sprintf("%s: %s has an API key written into the file", path, a.Display))
			t.addFix(remedy.Remedy{Do: remedy.InitAgentProxy, Agent: a.RemedyAgent()})
		}
		return
	}
	proxied := r.isProxy(insp.BaseURL)
	if !proxied && !r.reachesService(insp) {
		t.notes = append(t.notes, fmt.Sprintf("%s: %s uses %s, not the service", path, a.Display, redactURL(insp.BaseURL)))
		return
	}
	t.ours++
	what := a.Display
	t.addModels(path, insp.Models)
	if proxied {
		t.res.proxyUsers = append(t.res.proxyUsers, fmt.Sprintf("%s (%s)", path, a.Display))
	}
	if proxied && insp.GwCommand {
		t.res.onDemand = append(t.res.onDemand, a.Display)
	}
	bad := false
	for _, f := range insp.Findings(expect) {
		switch f.Kind {
		case agents.FindOtherPort, agents.FindOtherURL:
			t.problems = append(t.problems, fmt.Sprintf("%s: %s %s", path, what, f.Text))
			t.problemFixes = append(t.problemFixes, remedy.Remedy{Do: remedy.InitAgentBaseURL, Agent: a.RemedyAgent()})
			t.unreachable++
			bad = true
		case agents.FindStaleToken:
			t.problems = append(t.problems, fmt.Sprintf("%s: %s %s, so its requests are refused", path, what, f.Text))
			t.problemFixes = append(t.problemFixes, remedy.Remedy{Do: remedy.InitAgentToken, Agent: a.RemedyAgent()})
			bad = true
		case agents.FindPlainKey:
			t.warnings = append(t.warnings, fmt.Sprintf("%s: %s %s", path, what, f.Text))
			t.addFix(remedy.Remedy{Do: remedy.InitAgentProxy, Agent: a.RemedyAgent()})
		default:
			t.warnings = append(t.warnings, fmt.Sprintf("%s: %s", path, f.Text))
			t.addFix(remedy.Remedy{Do: remedy.InitAgentFor, Agent: a.RemedyAgent()})
		}
	}
	// gw's credential command names the gw binary by its path, which an upgrade or a move may have taken away.
	if prog := agents.CredentialProgram(insp.KeyCommand); insp.GwCommand && prog != "" {
		if fi, err := os.Stat(prog); err != nil || fi.IsDir() {
			t.problems = append(t.problems, fmt.Sprintf("%s: %s runs %s for its key, which is not there any more, so it cannot start", path, what, prog))
			t.problemFixes = append(t.problemFixes, remedy.Remedy{Do: remedy.InitAgentFor, Agent: a.RemedyAgent()})
			bad = true
		}
	}
	if bad {
		return
	}
	via := "reaches " + insp.BaseURL
	if proxied {
		via = "uses gw serve at " + insp.BaseURL
	}
	note := fmt.Sprintf("%s: %s %s with %s", path, what, via, count(len(insp.Models), "model"))
	if a.Unavailable != "" {
		note += "; not available through the service: " + a.Unavailable
	}
	t.notes = append(t.notes, note)
}

// proxyPort is gw serve's port, from ProxyAddr (0 when unknown).
func (r *run) proxyPort() int {
	_, p, err := net.SplitHostPort(r.in.ProxyAddr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}

// reachesService: gw's entry is gw's, not the agent's own provider that happens to sit in the same place
// (Cline's OpenAI-compatible slot, Claude Code's ANTHROPIC_BASE_URL): it names the service's host, or gw
// serve on this machine (by its local token) on another port.
func (r *run) reachesService(in agents.Inspection) bool {
	if h := hostOf(in.BaseURL); h != "" && (h == hostOf(r.in.BaseURL) || h == hostOf(r.in.CanonicalURL)) {
		return true
	}
	u, err := url.Parse(strings.TrimSpace(in.BaseURL))
	return err == nil && config.IsLoopbackHost(u.Hostname()) && (in.KeyKind == agents.KeyLocalToken || in.GwCommand)
}
