package doctor

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/internal/remedy"
)

// checkProviders checks the config files of an agent that declares providers of its own (OpenCode): every
// OpenAI-compatible provider that points at the service (or at gw serve), gw's or one the user wrote. Its
// base URL must be exactly the service's (or the proxy's), and its model ids are collected for the model
// checks.
func (r *run) checkProviders(af AgentFiles, pl agents.ProviderLister, t *agentTally) {
	a := af.Agent.Info()
	for _, path := range af.Files {
		data, exists, err := agentfile.Read(path)
		if err != nil {
			t.fail(Check{ID: IDAgentConfig, Status: Fail, Cause: err.Error(), Fix: unreadableFix(a, path, err)})
			continue
		}
		if !exists {
			continue
		}
		provs, err := pl.Providers(data)
		if err != nil {
			err = fmt.Errorf("%s does not parse: %v", path, err)
			t.fail(Check{ID: IDAgentConfig, Status: Fail, Cause: err.Error(), Fix: unreadableFix(a, path, err)})
			continue
		}
		t.foundAgent(af)
		if c, ok := af.Agent.(agents.CompanionReader); ok {
			if o, ok := c.Companion(path); ok && o.Problem != "" && !slices.Contains(t.pairsWarned, o.Path) {
				t.pairsWarned = append(t.pairsWarned, path)
				t.warnings = append(t.warnings, o.Problem)
				t.addFix(remedy.Remedy{Do: remedy.Say, Value: o.Fix}) // about the agent's two files: no gw command
			}
		}
		n := 0
		for _, p := range provs {
			if !r.isOurs(p) {
				continue
			}
			n++
			r.checkProvider(a, path, p, t)
		}
		if n == 0 {
			t.notes = append(t.notes, path+" has no provider for the service")
		}
		t.ours += n
	}
}

// checkProvider checks one provider of the config at path that reaches the service or gw serve.
func (r *run) checkProvider(a agents.Info, path string, p agents.Provider, t *agentTally) {
	if p.Disabled {
		t.warnings = append(t.warnings, fmt.Sprintf("%s: provider %q is listed in disabled_providers, so %s does not offer it", path, p.Name, a.Display))
		t.addFix(remedy.Remedy{Do: remedy.Say, Value: fmt.Sprintf("remove %q from disabled_providers in %s", p.Name, path)})
	}
	if p.LiteralKey {
		t.warnings = append(t.warnings, fmt.Sprintf("%s: provider %q has the API key written into the file", path, p.Name))
		t.addFix(remedy.Remedy{Do: remedy.InitAgentProxy, Agent: a.RemedyAgent()})
	}
	if len(p.Undeclared) > 0 {
		t.problems = append(t.problems, fmt.Sprintf("%s: %s, but provider %q does not declare that model, so %s cannot use it",
			path, strings.Join(p.Undeclared, " and "), p.Name, a.Display))
		t.problemFixes = append(t.problemFixes, undeclaredFix(a, path, p))
	}
	t.addModels(path, p.Models)
	if r.isProxy(p.BaseURL) && p.LocalToken != "" && p.LocalToken != r.in.LocalToken {
		t.problems = append(t.problems, fmt.Sprintf("%s: provider %q holds a local token that gw serve no longer accepts (gw's config has another one), so its requests are refused", path, p.Name))
		t.problemFixes = append(t.problemFixes, remedy.Remedy{Do: remedy.InitAgentToken, Agent: a.RemedyAgent()})
	}
	if r.isProxy(p.BaseURL) {
		t.res.proxyUsers = append(t.res.proxyUsers, fmt.Sprintf("%s (provider %q)", path, p.Name))
		t.notes = append(t.notes, fmt.Sprintf("%s: provider %q uses gw serve at %s with %s", path, p.Name, p.BaseURL, count(len(p.Declared), "model")))
		return
	}
	if prob := r.providerBaseURLProblem(path, p); prob != "" {
		t.problems = append(t.problems, prob)
		t.unreachable++
		if t.baseURLFix == (remedy.Agent{}) {
			t.baseURLFix = a.RemedyAgent()
		}
		return
	}
	t.notes = append(t.notes, fmt.Sprintf("%s: provider %q reaches %s with %s", path, p.Name, p.BaseURL, count(len(p.Declared), "model")))
}

// undeclaredFix: what points "model" and "small_model" back at a model the provider declares.
func undeclaredFix(a agents.Info, path string, p agents.Provider) remedy.Remedy {
	switch {
	case p.Name == agents.ProviderID:
		// gw's own provider: gw init agent writes it (with no models declared, it adds them).
		return remedy.Remedy{Do: remedy.InitAgentModels, Value: strings.Join(p.Declared, ","), Also: firstOr(p.Declared, ""), Agent: a.RemedyAgent()}
	case len(p.Declared) == 0:
		return remedy.Remedy{Do: remedy.Say, Value: fmt.Sprintf("declare the model under provider %q in %s, or point \"model\" at a provider that has it", p.Name, path)}
	}
	return remedy.Remedy{Do: remedy.Say, Value: fmt.Sprintf("in %s, set \"model\" to one of the models provider %q declares, e.g. \"%s/%s\"", path, p.Name, p.Name, p.Declared[0])}
}

func firstOr(ss []string, none string) string {
	if len(ss) == 0 {
		return none
	}
	return ss[0]
}

// isOurs: a provider whose baseURL is the service's (given, canonical, or a malformed spelling of either) or
// gw serve's address.
func (r *run) isOurs(p agents.Provider) bool {
	if p.BaseURL == "" {
		return false
	}
	if r.isProxy(p.BaseURL) {
		return true
	}
	h := hostOf(p.BaseURL)
	return h != "" && (h == hostOf(r.in.BaseURL) || h == hostOf(r.in.CanonicalURL))
}

// providerBaseURLProblem: the provider reaches the service directly, so its baseURL must be exactly the
// service's.
func (r *run) providerBaseURLProblem(path string, p agents.Provider) string {
	var bp *config.BaseURLProblem
	if _, err := config.ValidateBaseURL(p.BaseURL); errors.As(err, &bp) {
		return fmt.Sprintf("%s: provider %q has a baseURL that %s", path, p.Name, bp.Problem)
	}
	if p.BaseURL == r.in.CanonicalURL || p.BaseURL == r.in.BaseURL {
		return ""
	}
	want := cmp.Or(r.in.CanonicalURL, r.in.BaseURL)
	return fmt.Sprintf("%s: provider %q has baseURL %s, but the service's address is %s", path, p.Name, redactURL(p.BaseURL), redactURL(want))
}
