package doctor

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelgateway/gw/config"
)

// agentResult is what the agent configs told: the check, the model ids to check against the service, and
// which configs send their requests to the local proxy (so the proxy check knows whether it is needed).
type agentResult struct {
	check      Check
	models     []string
	proxyUsers []string
}

// provider is one OpenCode provider that reaches the service, directly or through gw serve.
type agentProvider struct {
	Path    string   // the config file
	Name    string   // the provider's key under "provider"
	BaseURL string   // options.baseURL as written
	Models  []string // the ids under "models", and the top-level "model" when it names this provider
}

// checkAgentConfigs reads the OpenCode configs and checks each provider that points at the service (or at
// gw serve): its base URL must be exactly the service's (or the proxy's), and its model ids are collected
// for the model checks.
func (r *run) checkAgentConfigs() agentResult {
	in := r.in
	res := agentResult{}
	if len(in.AgentConfigs) == 0 {
		res.check = skipped(IDAgentConfig, "no OpenCode config to check")
		return res
	}
	var found, problems, notes []string
	var failed Check
	for _, path := range in.AgentConfigs {
		provs, exists, err := readAgentConfig(path)
		if err != nil {
			if failed.ID == "" {
				failed = Check{ID: IDAgentConfig, Status: Fail, Cause: err.Error(),
					Fix: "fix " + path + " by hand (OpenCode cannot read it either), then run: gw init agent"}
			}
			continue
		}
		if !exists {
			continue
		}
		found = append(found, path)
		var ours []agentProvider
		for _, p := range provs {
			if r.isOurs(p) {
				ours = append(ours, p)
			}
		}
		if len(ours) == 0 {
			notes = append(notes, path+" has no provider for the service")
			continue
		}
		for _, p := range ours {
			res.models = append(res.models, p.Models...)
			if r.isProxy(p.BaseURL) {
				res.proxyUsers = append(res.proxyUsers, fmt.Sprintf("%s (provider %q)", path, p.Name))
				notes = append(notes, fmt.Sprintf("%s: provider %q uses gw serve at %s with %d models", path, p.Name, p.BaseURL, len(p.Models)))
				continue
			}
			if prob := r.agentBaseURLProblem(p); prob != "" {
				problems = append(problems, prob)
				continue
			}
			notes = append(notes, fmt.Sprintf("%s: provider %q reaches %s with %d models", path, p.Name, p.BaseURL, len(p.Models)))
		}
	}
	switch {
	case failed.ID != "":
		failed.Detail = strings.Join(notes, "; ")
		res.check = failed
	case len(problems) > 0:
		c := unreachable(Check{ID: IDAgentConfig})
		c.Cause = strings.Join(problems, "; ")
		c.Fix = "run: gw init agent (it rewrites the provider's baseURL and keeps the rest of the file)"
		c.Detail = strings.Join(notes, "; ")
		res.check = c
	case len(found) == 0:
		res.check = Check{ID: IDAgentConfig, Status: Skip,
			Cause: "no OpenCode config found (looked for " + strings.Join(in.AgentConfigs, ", ") + ")",
			Fix:   "to use the service from OpenCode, run: gw init agent"}
	case len(res.models) == 0 && len(res.proxyUsers) == 0 && !anyOurs(notes):
		res.check = Check{ID: IDAgentConfig, Status: Warn,
			Cause:  "OpenCode is configured, but no provider in its config reaches the service",
			Fix:    "run: gw init agent",
			Detail: strings.Join(notes, "; ")}
	default:
		res.check = Check{ID: IDAgentConfig, Status: Pass, Detail: strings.Join(notes, "; ")}
	}
	return res
}

func anyOurs(notes []string) bool {
	for _, n := range notes {
		if strings.Contains(n, "provider ") {
			return true
		}
	}
	return false
}

// isOurs: a provider whose baseURL is the service's (given, canonical, or a malformed spelling of either) or
// gw serve's address.
func (r *run) isOurs(p agentProvider) bool {
	if p.BaseURL == "" {
		return false
	}
	if r.isProxy(p.BaseURL) {
		return true
	}
	h := hostOf(p.BaseURL)
	return h != "" && (h == hostOf(r.in.BaseURL) || h == hostOf(r.in.CanonicalURL))
}

// isProxy: the baseURL is gw serve on this machine.
func (r *run) isProxy(raw string) bool {
	if r.in.ProxyAddr == "" {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !isLoopback(u.Hostname()) {
		return false
	}
	_, port := splitPort(r.in.ProxyAddr)
	return u.Port() == port
}

func splitPort(addr string) (host, port string) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return addr, ""
	}
	return addr[:i], addr[i+1:]
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

// agentBaseURLProblem: the agent reaches the service directly, so its baseURL must be exactly the service's.
func (r *run) agentBaseURLProblem(p agentProvider) string {
	var bp *config.BaseURLProblem
	if _, err := config.ValidateBaseURL(p.BaseURL); errors.As(err, &bp) {
		return fmt.Sprintf("%s: provider %q has a baseURL that %s", p.Path, p.Name, bp.Problem)
	}
	if p.BaseURL == r.in.CanonicalURL || p.BaseURL == r.in.BaseURL {
		return ""
	}
	want := r.in.CanonicalURL
	if want == "" {
		want = r.in.BaseURL
	}
	return fmt.Sprintf("%s: provider %q has baseURL %s, but the service's address is %s", p.Path, p.Name, redactURL(p.BaseURL), redactURL(want))
}
