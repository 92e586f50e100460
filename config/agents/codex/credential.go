package codex

import (
	"runtime"

	"github.com/pelletier/go-toml/v2"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/tomledit"
)

// authTable is where Codex reads a provider's credential command: it runs command with args (no shell)
// before its first request, again after a 401, and every refresh_interval_ms, waiting timeout_ms at most,
// and sends what it prints as the bearer token. It cannot be combined with experimental_bearer_token or
// env_key, so gw drops those.
var authTable = append(append([]string{}, table...), "auth")

const (
	// authTimeoutMS covers gw serve's start (a few seconds) and a wait for another agent's start of it.
	authTimeoutMS = 15000
	// authRefreshMS: Codex asks again every minute, so a gw serve that stopped during a session (and
	// that nothing else restarts) is started again on its next request.
	authRefreshMS = 60000
)

// CredentialHook: Codex runs [model_providers.gw.auth], a program and its arguments.
// Codex is an agents.CredentialCommander.
func (agent) CredentialHook() agents.CredentialHook {
	return agents.CredentialHook{Setting: "[model_providers.gw.auth]"}
}

// authFields are the keys of [model_providers.gw.auth] for gw's credential command c.
func authFields(c agents.CredentialCommand) []tomledit.Field {
	return []tomledit.Field{
		{Key: "command", Val: c.Path},
		{Key: "args", Val: c.Args},
		{Key: "timeout_ms", Val: authTimeoutMS},
		{Key: "refresh_interval_ms", Val: authRefreshMS},
	}
}

// inspectAuth reads [model_providers.gw.auth] into in, when there is one.
func inspectAuth(doc *tomledit.Doc, src []byte, in *agents.Inspection) {
	if !doc.HasTable(authTable...) {
		return
	}
	var cfg struct {
		ModelProviders map[string]struct {
			Auth struct {
				Command string   `toml:"command"`
				Args    []string `toml:"args"`
			} `toml:"auth"`
		} `toml:"model_providers"`
	}
	_ = toml.Unmarshal(src, &cfg) // it parsed already; a value of another type reads as none
	a := cfg.ModelProviders[agents.ProviderID].Auth
	in.KeyKind, in.KeyRef, in.LocalToken = agents.KeyCommand, "", ""
	in.KeyCommand = agents.CredentialCommand{Path: a.Command, Args: a.Args}.CommandLine(runtime.GOOS)
	in.GwCommand = a.Command != "" && agents.IsCredentialCommand(in.KeyCommand)
}

var _ agents.CredentialCommander = agent{}
