package copilot

import (
	"slices"
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// gw run: Copilot CLI's provider is gw serve's chat completions, with the default model and its limits
// (Copilot CLI knows none of the service's ids); the token only in the environment.
func TestRun(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"COPILOT_PROVIDER_BASE_URL=" + d.BaseURL,
		"COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_WIRE_API=completions",
		"COPILOT_PROVIDER_API_KEY=" + d.Token,
		"COPILOT_MODEL=" + d.Default,
		"COPILOT_PROVIDER_MAX_PROMPT_TOKENS=200000",
		"COPILOT_PROVIDER_MAX_OUTPUT_TOKENS=32000",
	}
	if !slices.Equal(spec.Env, want) || len(spec.Args) != 0 || len(spec.Files) != 0 {
		t.Errorf("%+v", spec)
	}
	if _, err := (agent{}).Run(agentstest.DirectDecl()); err == nil {
		t.Error("direct mode has no run route")
	}
}
