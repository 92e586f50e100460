package pi

import (
	"runtime"

	"github.com/modelgateway/gw/config/agents"
)

// CredentialHook: pi runs an apiKey of models.json that starts with "!" as a shell command (sh, or on
// Windows its configured shell) and sends what it prints as the key, before each request (checked with
// 0.73.1: uncached for a provider's key, at most 10 s, its standard error not shown). pi is an
// agents.CredentialCommander.
func (agent) CredentialHook() agents.CredentialHook {
	return agents.CredentialHook{Setting: `"apiKey": "!…"`, Shell: true}
}

// credentialKey is the apiKey that runs gw's credential command c.
func credentialKey(c agents.CredentialCommand) string { return "!" + c.CommandLine(runtime.GOOS) }

var _ agents.CredentialCommander = agent{}
