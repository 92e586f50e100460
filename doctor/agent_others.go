package doctor

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/opencode"
	"github.com/modelgateway/gw/internal/remedy"
)

// othersResult is what the configs of the agents other than OpenCode told, for checkAgentConfigs to add
// to OpenCode's.
type othersResult struct {
	found, ours               int
	notes, problems, warnings []string
	fixes, problemFixes       []remedy.Remedy
	unreachable               int
	unreadable                *Check
	models                    []string
	modelFrom                 map[string]string
	proxyUsers                []string
	foundAgents, lookedFor    []string
	versionNoted              []string // agents whose installed version was noted
}

// checkOtherAgents reads each agent's config (in.Agents) and checks gw's entry in it the way the agent
// uses it (config/agents' Inspect): the base URL (gw serve's port, or the service), the local token gw
// serve accepts now, a key written into the file, the settings that keep the agent from using gw's entry;
// the model ids, spelled as written, go to the model checks. An agent whose entry points at something
// else entirely (its own provider) is only noted.
func (r *run) checkOtherAgents() othersResult {
	var res othersResult
	in := r.in
	expect := agents.Expect{ProxyPort: r.proxyPort(), LocalToken: in.LocalToken, ServiceURLs: []string{in.BaseURL, in.CanonicalURL}}
	for _, af := range in.Agents {
		a := af.Agent
		res.lookedFor = append(res.lookedFor, af.Files...)
		srcs := make([][]byte, len(af.Files))
		exists := false
		var readErr error
		for i, p := range af.Files {
			data, ok, err := opencode.Read(p)
			if err != nil {
				readErr = err
				break
			}
			srcs[i], exists = data, exists || ok
		}
		path := af.Files[0]
		if readErr == nil && !exists {
			continue
		}
		res.found++
		res.foundAgents = append(res.foundAgents, a.Display)
		if af.Installed != "" && af.Installed != a.Version && !slices.Contains(res.versionNoted, a.Name) {
			res.versionNoted = append(res.versionNoted, a.Name)
			res.notes = append(res.notes, fmt.Sprintf("%s %s is installed; gw writes its config as %s %s reads it (if %s ignores gw's entry, run gw init agent --agent %s again, or install %s@%s)",
				a.Display, af.Installed, a.Display, a.Version, a.Display, a.Name, a.Package, a.Version))
		}
		if readErr != nil {
			if res.unreadable == nil {
				res.unreadable = &Check{ID: IDAgentConfig, Status: Fail, Cause: readErr.Error(), Fix: remedy.Remedy{Do: remedy.Say, Value: "replace it with " + a.Display + "'s config file, or remove it"}}
			}
			continue
		}
		insp, err := a.Inspect(srcs)
		if err != nil {
			var pe *agents.ParseError
			cause := fmt.Sprintf("%s: %s's config does not parse: %v", path, a.Display, err)
			if errors.As(err, &pe) {
				cause = fmt.Sprintf("%s:%d:%d: %s's config does not parse: %s", path, pe.Line, pe.Column, a.Display, pe.Msg)
			}
			if res.unreadable == nil {
				res.unreadable = &Check{ID: IDAgentConfig, Status: Fail, Cause: cause,
					Fix: remedy.Steps(remedy.Remedy{Do: remedy.Say, Value: fmt.Sprintf("fix %s by hand (%s cannot read it either)", path, a.Display)},
						remedy.Remedy{Do: remedy.InitAgentFor, Value: a.Name})}
			}
			continue
		}
		if !insp.Configured {
			res.notes = append(res.notes, fmt.Sprintf("%s: %s is not pointed at the service", path, a.Display))
			if insp.KeyKind == agents.KeyLiteral {
				res.warnings = append(res.warnings, fmt.Sprintf("%s: %s has an API key written into the file", path, a.Display))
				res.fixes = append(res.fixes, remedy.Remedy{Do: remedy.InitAgentProxy, Value: a.Name})
			}
			continue
		}
		proxied := r.isProxy(insp.BaseURL)
		if !proxied && !r.reachesService(insp) {
			res.notes = append(res.notes, fmt.Sprintf("%s: %s uses %s, not the service", path, a.Display, redactURL(insp.BaseURL)))
			continue
		}
		res.ours++
		what := a.Display
		for _, id := range insp.Models {
			res.models = append(res.models, id)
			if _, ok := res.modelFrom[id]; !ok {
				if res.modelFrom == nil {
					res.modelFrom = map[string]string{}
				}
				res.modelFrom[id] = path
			}
		}
		if proxied {
			res.proxyUsers = append(res.proxyUsers, fmt.Sprintf("%s (%s)", path, a.Display))
		}
		bad := false
		for _, f := range insp.Findings(expect) {
			switch f.Kind {
			case agents.FindOtherPort, agents.FindOtherURL:
				res.problems = append(res.problems, fmt.Sprintf("%s: %s %s", path, what, f.Text))
				res.problemFixes = append(res.problemFixes, remedy.Remedy{Do: remedy.InitAgentBaseURL, Value: a.Name})
				res.unreachable++
				bad = true
			case agents.FindStaleToken:
				res.problems = append(res.problems, fmt.Sprintf("%s: %s %s, so its requests are refused", path, what, f.Text))
				res.problemFixes = append(res.problemFixes, remedy.Remedy{Do: remedy.InitAgentToken, Value: a.Name})
				bad = true
			case agents.FindPlainKey:
				res.warnings = append(res.warnings, fmt.Sprintf("%s: %s %s", path, what, f.Text))
				res.fixes = append(res.fixes, remedy.Remedy{Do: remedy.InitAgentProxy, Value: a.Name})
			default:
				res.warnings = append(res.warnings, fmt.Sprintf("%s: %s", path, f.Text))
				res.fixes = append(res.fixes, remedy.Remedy{Do: remedy.InitAgentFor, Value: a.Name})
			}
		}
		if bad {
			continue
		}
		via := "reaches " + insp.BaseURL
		if proxied {
			via = "uses gw serve at " + insp.BaseURL
		}
		res.notes = append(res.notes, fmt.Sprintf("%s: %s %s with %s", path, what, via, nModels(len(insp.Models))))
	}
	return res
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
	return err == nil && config.IsLoopbackHost(u.Hostname()) && in.KeyKind == agents.KeyLocalToken
}
