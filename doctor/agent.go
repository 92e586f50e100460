package doctor

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/opencode"
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
}

// provider is one OpenCode provider that reaches the service, directly or through gw serve.
type agentProvider struct {
	Path    string   // the config file
	Name    string   // the provider's key under "provider"
	BaseURL string   // options.baseURL as written
	Models  []string // the ids under "models", and "model"/"small_model" when they name this provider
	// LiteralKey: the API key is written into the file (rather than {env:…} or the local token).
	LiteralKey bool
	// LocalToken is the gw serve token written as the key ("" for other keys).
	LocalToken string
	// DeclaredIDs are the models the provider declares (Models may add "model"/"small_model").
	DeclaredIDs []string
	// Undeclared are the "model"/"small_model" settings that name this provider but a model it does not
	// declare (`"model" is "gw/<id>"`): OpenCode cannot start with them.
	Undeclared []string
	// Disabled: listed in "disabled_providers".
	Disabled bool
}

// checkAgentConfigs reads the OpenCode configs and checks each provider that points at the service (or at
// gw serve): its base URL must be exactly the service's (or the proxy's), and its model ids are collected
// for the model checks.
func (r *run) checkAgentConfigs() agentResult {
	in := r.in
	res := agentResult{}
	if len(in.AgentConfigs) == 0 && len(in.Agents) == 0 {
		res.check = skipped(IDAgentConfig, "no OpenCode config to check")
		return res
	}
	var (
		found                     int
		ours                      int
		notes, problems, warnings []string
		fixes                     []remedy.Remedy
		unreadable                *Check
		// problemFixes go with problems that are not about the base URL.
		problemFixes        []remedy.Remedy
		unreachableProblems int
		// pairsWarned: configs whose sibling was reported, so a pair given twice is reported once.
		pairsWarned []string
	)
	addFix := func(f remedy.Remedy) {
		if !slices.ContainsFunc(fixes, func(g remedy.Remedy) bool { return g.Do == f.Do && g.Value == f.Value && g.Also == f.Also }) {
			fixes = append(fixes, f)
		}
	}
	for _, path := range in.AgentConfigs {
		provs, exists, err := readAgentConfig(path)
		if err != nil {
			if unreadable == nil {
				unreadable = &Check{ID: IDAgentConfig, Status: Fail, Cause: err.Error(), Fix: unreadableFix(path, err)}
			}
			continue
		}
		if !exists {
			continue
		}
		found++
		if other, w, fix := shadowingSibling(path); w != "" && !slices.Contains(pairsWarned, other) {
			pairsWarned = append(pairsWarned, path)
			warnings = append(warnings, w)
			addFix(remedy.Remedy{Do: remedy.Say, Value: fix}) // about OpenCode's two files: no gw command
		}
		n := 0
		for _, p := range provs {
			if !r.isOurs(p) {
				continue
			}
			n++
			if p.Disabled {
				warnings = append(warnings, fmt.Sprintf("%s: provider %q is listed in disabled_providers, so OpenCode does not offer it", path, p.Name))
				addFix(remedy.Remedy{Do: remedy.Say, Value: fmt.Sprintf("remove %q from disabled_providers in %s", p.Name, path)})
			}
			if p.LiteralKey {
				warnings = append(warnings, fmt.Sprintf("%s: provider %q has the API key written into the file", path, p.Name))
				addFix(remedy.Remedy{Do: remedy.InitAgentProxy})
			}
			if len(p.Undeclared) > 0 {
				problems = append(problems, fmt.Sprintf("%s: %s, but provider %q does not declare that model, so OpenCode cannot use it",
					path, strings.Join(p.Undeclared, " and "), p.Name))
				problemFixes = append(problemFixes, undeclaredFix(path, p))
			}
			res.models = append(res.models, p.Models...)
			for _, id := range p.Models {
				if _, ok := res.modelFrom[id]; !ok {
					if res.modelFrom == nil {
						res.modelFrom = map[string]string{}
					}
					res.modelFrom[id] = path
				}
			}
			if r.isProxy(p.BaseURL) && p.LocalToken != "" && p.LocalToken != in.LocalToken {
				problems = append(problems, fmt.Sprintf("%s: provider %q holds a local token that gw serve no longer accepts (gw's config has another one), so its requests are refused", path, p.Name))
				problemFixes = append(problemFixes, remedy.Remedy{Do: remedy.InitAgentToken, Value: "opencode"})
			}
			if r.isProxy(p.BaseURL) {
				res.proxyUsers = append(res.proxyUsers, fmt.Sprintf("%s (provider %q)", path, p.Name))
				notes = append(notes, fmt.Sprintf("%s: provider %q uses gw serve at %s with %s", path, p.Name, p.BaseURL, nModels(len(p.DeclaredIDs))))
				continue
			}
			if prob := r.agentBaseURLProblem(p); prob != "" {
				problems = append(problems, prob)
				unreachableProblems++
				continue
			}
			notes = append(notes, fmt.Sprintf("%s: provider %q reaches %s with %s", path, p.Name, p.BaseURL, nModels(len(p.DeclaredIDs))))
		}
		if n == 0 {
			notes = append(notes, path+" has no provider for the service")
		}
		ours += n
	}
	// The other agents' configs (Claude Code, Codex, …), each through its own reader.
	o := r.checkOtherAgents()
	found, ours = found+o.found, ours+o.ours
	notes, problems, warnings = append(notes, o.notes...), append(problems, o.problems...), append(warnings, o.warnings...)
	problemFixes = append(problemFixes, o.problemFixes...)
	for _, f := range o.fixes {
		addFix(f)
	}
	if unreadable == nil {
		unreadable = o.unreadable
	}
	res.models = append(res.models, o.models...)
	for id, p := range o.modelFrom {
		if _, ok := res.modelFrom[id]; !ok {
			if res.modelFrom == nil {
				res.modelFrom = map[string]string{}
			}
			res.modelFrom[id] = p
		}
	}
	res.proxyUsers = append(res.proxyUsers, o.proxyUsers...)
	detail := strings.Join(notes, "; ")
	switch {
	case unreadable != nil:
		unreadable.Detail = detail
		res.check = *unreadable
	case len(problems) > 0:
		c := Check{ID: IDAgentConfig, Status: Fail, Detail: detail}
		var fix []remedy.Remedy
		if unreachableProblems > 0 || o.unreachable > 0 {
			c = unreachable(c)
		}
		if unreachableProblems > 0 {
			fix = append(fix, remedy.Remedy{Do: remedy.InitAgentBaseURL})
		}
		c.Cause = strings.Join(problems, "; ")
		c.Fix = remedy.Steps(append(fix, problemFixes...)...)
		res.check = c
	case found == 0:
		res.check = Check{ID: IDAgentConfig, Status: Skip,
			Cause: "no OpenCode config found (looked for " + strings.Join(in.AgentConfigs, ", ") + ")",
			Fix:   remedy.Remedy{Do: remedy.SetUpAgent}}
	case ours == 0 && o.found > 0:
		res.check = Check{ID: IDAgentConfig, Status: Warn,
			Cause: strings.Join(append([]string{"coding agents are configured (" + strings.Join(append(openCodeFound(found-o.found), o.foundAgents...), ", ") + "), but none reaches the service"}, warnings...), "; "),
			Fix:   remedy.Steps(append([]remedy.Remedy{{Do: remedy.InitAgentFor}}, fixes...)...), Detail: detail}
	case ours == 0:
		res.check = Check{ID: IDAgentConfig, Status: Warn,
			Cause: strings.Join(append([]string{"OpenCode is configured, but no provider in its config reaches the service"}, warnings...), "; "),
			Fix:   remedy.Steps(append([]remedy.Remedy{{Do: remedy.InitAgent}}, fixes...)...), Detail: detail}
	case len(warnings) > 0:
		res.check = Check{ID: IDAgentConfig, Status: Warn, Cause: strings.Join(warnings, "; "), Fix: remedy.Steps(fixes...), Detail: detail}
	default:
		res.check = Check{ID: IDAgentConfig, Status: Pass, Detail: detail}
	}
	return res
}

// openCodeFound names OpenCode among the agents found when n of its configs were.
func openCodeFound(n int) []string {
	if n == 0 {
		return nil
	}
	return []string{"OpenCode"}
}

// unreadableFix: what to do about an OpenCode config that could not be read. A path that is not a regular
// file (a named pipe, a device, a directory) or is far too large was refused without reading it (a project
// can plant one).
func unreadableFix(path string, err error) remedy.Remedy {
	var nr *fsutil.NotRegularError
	if errors.As(err, &nr) {
		if nr.Mode.IsDir() {
			return remedy.Remedy{Do: remedy.Say, Value: "move " + path + " out of the way; OpenCode's config is a file"}
		}
		return remedy.Remedy{Do: remedy.Say, Value: "replace " + path + " with a regular file (OpenCode's JSON config), or remove it"}
	}
	var tl *fsutil.TooLargeError
	if errors.As(err, &tl) {
		return remedy.Remedy{Do: remedy.Say, Value: "check that " + path + " is OpenCode's config; move it away if it is not"}
	}
	return remedy.Remedy{Do: remedy.FixAgentFile, Value: path}
}

// undeclaredFix: what points "model" and "small_model" back at a model the provider declares.
func undeclaredFix(path string, p agentProvider) remedy.Remedy {
	switch {
	case p.Name == opencode.ProviderID:
		// gw's own provider: gw init agent writes it (with no models declared, it adds them).
		return remedy.Remedy{Do: remedy.InitAgentModels, Value: strings.Join(p.DeclaredIDs, ","), Also: firstOr(p.DeclaredIDs, "")}
	case len(p.DeclaredIDs) == 0:
		return remedy.Remedy{Do: remedy.Say, Value: fmt.Sprintf("declare the model under provider %q in %s, or point \"model\" at a provider that has it", p.Name, path)}
	}
	return remedy.Remedy{Do: remedy.Say, Value: fmt.Sprintf("in %s, set \"model\" to one of the models provider %q declares, e.g. \"%s/%s\"", path, p.Name, p.Name, p.DeclaredIDs[0])}
}

func firstOr(ss []string, none string) string {
	if len(ss) == 0 {
		return none
	}
	return ss[0]
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

// nModels is "1 model" or "N models".
func nModels(n int) string {
	if n == 1 {
		return "1 model"
	}
	return fmt.Sprintf("%d models", n)
}
