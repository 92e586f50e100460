package claudecode

import (
	"runtime"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
)

// HelperSetting is Claude Code's setting for a command whose standard output is its key: it runs it
// (through the shell) before its first request and again after a 401, and sends what it prints as the
// token. In the user's settings it beats nothing that sets a key in "env" (ANTHROPIC_AUTH_TOKEN,
// ANTHROPIC_API_KEY win over it), so gw writes it only with those gone. In a project's settings Claude
// Code runs it only once the workspace is trusted.
const HelperSetting = "apiKeyHelper"

// CredentialHook: Claude Code runs apiKeyHelper, one command line for the shell.
// Claude Code is an agents.CredentialCommander.
func (agent) CredentialHook() agents.CredentialHook {
	return agents.CredentialHook{Setting: HelperSetting, Shell: true}
}

// helperLine is the apiKeyHelper gw writes into the settings src for d: gw's credential command, for this
// system's shell; "" to write the local token instead, as without d.Credential, or when the user has an
// apiKeyHelper of their own, which gw leaves alone.
func helperLine(src []byte, d agents.Declaration) string {
	if d.Credential == nil {
		return ""
	}
	if top, err := jsonc.ReadTop(src, dialect); err == nil && top != nil {
		if h := jsonc.Member(top, HelperSetting); h != nil && !agents.IsCredentialCommand(jsonc.Str(h)) {
			return ""
		}
	}
	return d.Credential.CommandLine(runtime.GOOS)
}

// inspectHelper reads apiKeyHelper into in, when no key in "env" wins over it.
func inspectHelper(top *hujson.Object, in *agents.Inspection) {
	line := jsonc.Str(jsonc.Member(top, HelperSetting))
	if line == "" || in.KeyKind != agents.KeyNone {
		return
	}
	in.KeyKind, in.KeyCommand, in.GwCommand = agents.KeyCommand, line, agents.IsCredentialCommand(line)
}

var _ agents.CredentialCommander = agent{}
