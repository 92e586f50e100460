// Package copilot runs GitHub Copilot CLI (@github/copilot) with its bring-your-own-key provider pointed
// at gw serve: COPILOT_PROVIDER_BASE_URL (gw serve's /v1), COPILOT_PROVIDER_TYPE "openai" with
// COPILOT_PROVIDER_WIRE_API "completions" (chat completions, the service's own API, with no translation
// in between), COPILOT_PROVIDER_API_KEY (the local token), COPILOT_MODEL, and the model's limits in
// COPILOT_PROVIDER_MAX_PROMPT_TOKENS and COPILOT_PROVIDER_MAX_OUTPUT_TOKENS (Copilot CLI knows none of
// the service's model ids, so it would fall back to small defaults).
//
// Checked against Copilot CLI 1.0.102 (copilot help providers): with COPILOT_PROVIDER_BASE_URL set it
// needs no GitHub sign-in. It reads the provider only from these variables: the providers.json it keeps
// in its config directory holds the providers it manages itself (local models), in a format it does not
// document, so gw writes no config for it and gw init agent points to gw run.
package copilot

import (
	"errors"
	"strconv"

	"github.com/modelgateway/gw/config/agents"
)

const (
	displayName   = "Copilot CLI"
	testedVersion = "1.0.102"
)

// Agent describes GitHub Copilot CLI for gw.
func Agent() agents.Agent { return agent{} }

type agent struct{}

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "copilot", Display: displayName, Binary: "copilot", Version: testedVersion,
		UserAgents: []string{"copilot", "githubcopilot"},
		Install:    "npm install -g @github/copilot", Package: "@github/copilot", Entry: "COPILOT_PROVIDER_* in its environment",
		Protocol: agents.ChatCompletions,
		NoConfig: "Copilot CLI takes its bring-your-own-key provider only from its environment (COPILOT_PROVIDER_*), not from a global or project config file gw could write",
	}
}

// Run is gw run's route: the provider and the model in Copilot CLI's environment, the local token as its
// API key. Nothing in the arguments.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) {
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	if d.Mode == agents.Direct {
		return agents.RunSpec{}, errors.New("gw run points Copilot CLI at gw serve; for the service itself, set COPILOT_PROVIDER_BASE_URL to the service's address and COPILOT_PROVIDER_API_KEY to the key in Copilot CLI's environment")
	}
	m := d.DefaultModel()
	return agents.RunSpec{Env: []string{
		"COPILOT_PROVIDER_BASE_URL=" + d.BaseURL,
		"COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_WIRE_API=completions",
		"COPILOT_PROVIDER_API_KEY=" + d.Token,
		"COPILOT_MODEL=" + m.ID,
		"COPILOT_PROVIDER_MAX_PROMPT_TOKENS=" + strconv.Itoa(m.Context),
		"COPILOT_PROVIDER_MAX_OUTPUT_TOKENS=" + strconv.Itoa(m.Output),
	}}, nil
}
