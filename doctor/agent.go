package doctor

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
)

// agentResult is what the agent configs told: the check, the model ids to check against the service, and
// which configs send their requests to the local proxy (so the proxy check knows whether it is needed).
type agentResult struct {
	check      Check
	models     []string
	modelFrom  map[string]string // id → the config file that names it first
	proxyUsers []string
	unread     int // configs that could not be read or parsed: they may use gw serve too
	// onDemand are the proxy users whose key comes from gw's credential command, which starts gw serve
	// when they start (in proxyUsers too).
	onDemand []string
}

// agentTally gathers what every agent's config files told, for the one verdict of the agent check.
type agentTally struct {
	res       agentResult
	found     int // config files (or file sets) found
	ours      int // entries that reach the service, directly or through gw serve
	foundIn   []string
	lookedFor []string // the agents looked for, by their display names
	notes     []string
	problems  []string
	warnings  []string
	fixes     []remedy.Remedy // with warnings, without repeats
	// problemFixes go with problems; baseURLFix: the agent whose provider's base URL is wrong (said first;
	// zero when none).
	problemFixes []remedy.Remedy
	baseURLFix   remedy.Agent
	unreachable  int
	unreadable   *Check
	versionNoted []string // agents whose installed version was noted
	// versionFixes are what to do about those versions, said after the check's detail (its Note).
	versionFixes []remedy.Remedy
	pairsWarned  []string // configs whose companion file was reported, so a pair given twice is reported once
}

func (t *agentTally) addFix(f remedy.Remedy) {
	if !slices.ContainsFunc(t.fixes, func(g remedy.Remedy) bool {
		return g.Do == f.Do && g.Value == f.Value && g.Also == f.Also && g.Agent == f.Agent
	}) {
		t.fixes = append(t.fixes, f)
	}
}

func (t *agentTally) addModels(path string, ids []string) {
	t.res.models = append(t.res.models, ids...)
	for _, id := range ids {
		if _, ok := t.res.modelFrom[id]; !ok {
			if t.res.modelFrom == nil {
				t.res.modelFrom = map[string]string{}
			}
			t.res.modelFrom[id] = path
		}
	}
}

// fail adds a config that could not be read or parsed: each one is the check's failure, in order, each
// with its fix.
func (t *agentTally) fail(c Check) {
	t.res.unread++
	if t.unreadable == nil {
		t.unreadable = &c
		return
	}
	t.unreadable.Cause += "; " + c.Cause
	t.unreadable.Fix = remedy.Steps(t.unreadable.Fix, c.Fix)
}

// foundAgent counts a config of a found, and notes once an installed version other than the one gw writes
// its config for.
func (t *agentTally) foundAgent(af AgentFiles) {
	a := af.Agent.Info()
	t.found++
	if !slices.Contains(t.foundIn, a.Display) {
		t.foundIn = append(t.foundIn, a.Display)
	}
	if af.Installed != "" && af.Installed != a.Version && !slices.Contains(t.versionNoted, a.Name) {
		t.versionNoted = append(t.versionNoted, a.Name)
		t.notes = append(t.notes, fmt.Sprintf("%s %s is installed; gw writes its config as %s %s reads it", a.Display, af.Installed, a.Display, a.Version))
		t.versionFixes = append(t.versionFixes, remedy.Remedy{Do: remedy.AgentVersion, Agent: a.RemedyAgent(), Value: a.Package + "@" + a.Version})
	}
}

// checkAgentConfigs is the one check of every coding agent's config, global and project (Input.Agents):
// each config file is read the way its agent reads it, and what points at the service (or at gw serve) is
// checked — its base URL, the local token gw serve accepts now, a key written into the file, the settings
// that keep the agent from using it — and its model ids go to the model checks. An agent whose config
// declares its own providers (agents.ProviderLister: OpenCode) has each one that reaches the service
// checked; the others have gw's entry checked (agents.ConfigWriter's Inspect).
func (r *run) checkAgentConfigs() agentResult {
	in := r.in
	if len(in.Agents) == 0 {
		return agentResult{check: skipped(IDAgentConfig, "no coding agent config to check")}
	}
	t := &agentTally{}
	for _, af := range in.Agents {
		if !slices.Contains(t.lookedFor, af.Agent.Info().Display) {
			t.lookedFor = append(t.lookedFor, af.Agent.Info().Display)
		}
		if pl, ok := af.Agent.(agents.ProviderLister); ok {
			r.checkProviders(af, pl, t)
		} else {
			r.checkEntry(af, t)
		}
	}
	res := t.res
	detail := strings.Join(t.notes, "; ")
	switch {
	case t.unreadable != nil:
		t.unreadable.Detail = detail
		res.check = *t.unreadable
	case len(t.problems) > 0:
		c := Check{ID: IDAgentConfig, Status: Fail, Detail: detail}
		var fix []remedy.Remedy
		if t.unreachable > 0 {
			c = unreachable(c)
		}
		if t.baseURLFix != (remedy.Agent{}) {
			fix = append(fix, remedy.Remedy{Do: remedy.InitAgentProviderURL, Agent: t.baseURLFix})
		}
		c.Cause = strings.Join(t.problems, "; ")
		c.Fix = remedy.Steps(append(fix, t.problemFixes...)...)
		res.check = c
	case t.found == 0:
		res.check = Check{ID: IDAgentConfig, Status: Skip,
			Cause: "no coding agent config found (looked for the configs of " + strings.Join(t.lookedFor, ", ") + ")",
			// The first agent looked for (OpenCode, as config/agents/all lists them) is the one suggested.
			Fix: remedy.Remedy{Do: remedy.SetUpAgent, Agent: in.Agents[0].Agent.Info().RemedyAgent()}}
	case t.ours == 0 && len(t.foundIn) == 1 && providersOf(in.Agents, t.foundIn[0]) != nil:
		// One agent with providers of its own, none of them the service's.
		a := providersOf(in.Agents, t.foundIn[0])
		res.check = Check{ID: IDAgentConfig, Status: Warn,
			Cause: strings.Join(append([]string{a.Display + " is configured, but no provider in its config reaches the service"}, t.warnings...), "; "),
			Fix:   remedy.Steps(append([]remedy.Remedy{{Do: remedy.InitAgentFor, Agent: a.RemedyAgent()}}, t.fixes...)...), Detail: detail}
	case t.ours == 0:
		res.check = Check{ID: IDAgentConfig, Status: Warn,
			Cause: strings.Join(append([]string{"coding agents are configured (" + strings.Join(t.foundIn, ", ") + "), but none reaches the service"}, t.warnings...), "; "),
			Fix:   remedy.Steps(append([]remedy.Remedy{{Do: remedy.InitAgentFor}}, t.fixes...)...), Detail: detail}
	case len(t.warnings) > 0:
		res.check = Check{ID: IDAgentConfig, Status: Warn, Cause: strings.Join(t.warnings, "; "), Fix: remedy.Steps(t.fixes...), Detail: detail}
	default:
		res.check = Check{ID: IDAgentConfig, Status: Pass, Detail: detail}
	}
	if res.check.Status != Skip {
		res.check.Note = remedy.Steps(t.versionFixes...)
	}
	return res
}

// providersOf is the agent named display among list when its config declares providers of its own.
func providersOf(list []AgentFiles, display string) *agents.Info {
	for _, af := range list {
		if _, ok := af.Agent.(agents.ProviderLister); ok && af.Agent.Info().Display == display {
			a := af.Agent.Info()
			return &a
		}
	}
	return nil
}

// isProxy: the baseURL is gw serve on this machine.
func (r *run) isProxy(raw string) bool {
	if r.in.ProxyAddr == "" {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !config.IsLoopbackHost(u.Hostname()) {
		return false
	}
	_, port, err := net.SplitHostPort(r.in.ProxyAddr)
	return err == nil && u.Port() == port
}

func hostOf(raw string) string {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// unreadableFix: what to do about a config that could not be read. A path that is not a regular file (a
// named pipe, a device, a directory) or is far too large was refused without reading it (a project can plant
// one).
func unreadableFix(a agents.Info, path string, err error) remedy.Remedy {
	var nr *fsutil.NotRegularError
	if errors.As(err, &nr) {
		if nr.Mode.IsDir() {
			return remedy.Remedy{Do: remedy.Say, Value: "move " + path + " out of the way; " + a.Display + "'s config is a file"}
		}
		return remedy.Remedy{Do: remedy.Say, Value: "replace " + path + " with a regular file (" + a.Display + "'s JSON config), or remove it"}
	}
	var tl *fsutil.TooLargeError
	if errors.As(err, &tl) {
		return remedy.Remedy{Do: remedy.Say, Value: "check that " + path + " is " + a.Display + "'s config; move it away if it is not"}
	}
	return remedy.Remedy{Do: remedy.FixAgentFile, Value: path, Agent: a.RemedyAgent()}
}

// count is "1 thing" or "N things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
