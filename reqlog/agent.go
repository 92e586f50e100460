package reqlog

import "strings"

// agentsByProduct names the agent behind the first product of a
// User-Agent header (lower-cased, before its "/"), as each agent sends it.
// The names are gw's own (gw init agent --agent NAME).
var agentsByProduct = map[string]string{
	"claude-cli":      "claude-code", // claude-cli/2.1.3 (external, cli)
	"claude-code":     "claude-code",
	"codex_cli_rs":    "codex", // codex_cli_rs/0.46.0 (Linux; x86_64) …
	"codex_exec":      "codex",
	"codex_vscode":    "codex",
	"opencode":        "opencode", // opencode/1.18.0 …
	"geminicli":       "gemini",   // GeminiCLI/0.9.0 (linux; x64)
	"gemini-cli":      "gemini",
	"qwencode":        "qwen-code", // QwenCode/0.1.0 (linux; x64)
	"qwen-code":       "qwen-code",
	"kilo-code":       "kilo", // Kilo sends opencode/… too, for most requests
	"kilocode":        "kilo",
	"kilo":            "kilo",
	"cline":           "cline",
	"crush":           "crush",
	"charm-crush":     "crush",
	"factory-cli":     "droid",
	"droid":           "droid",
	"copilot":         "copilot",
	"githubcopilot":   "copilot",
	"continue":        "continue",
	"pi-coding-agent": "pi",
}

// maxAgentLen bounds the product looked up: longer ones are no agent's.
const maxAgentLen = 32

// AgentOf names the agent that sent a request with User-Agent ua, or ""
// when ua is none of the known agents'.
func AgentOf(ua string) string {
	product := ua
	if i := strings.IndexAny(product, "/ "); i >= 0 {
		product = product[:i]
	}
	if product == "" || len(product) > maxAgentLen {
		return ""
	}
	return agentsByProduct[strings.ToLower(product)]
}
