// Package anthropic translates the Anthropic Messages API (what Claude Code
// speaks) onto the service's chat completions, for gw serve.
package anthropic
