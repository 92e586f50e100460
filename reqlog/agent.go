package reqlog

import "strings"

// maxProductLen bounds the product looked up: longer ones are no agent's.
const maxProductLen = 32

// Product is the first product of a User-Agent header, lower-case and
// without its version ("claude-cli" of "claude-cli/2.1.3 (external, cli)"):
// what names the agent behind a request (config/agents' UserAgents). ""
// when ua has none or a longer one than any agent sends.
func Product(ua string) string {
	product := ua
	if i := strings.IndexAny(product, "/ "); i >= 0 {
		product = product[:i]
	}
	if len(product) > maxProductLen {
		return ""
	}
	return strings.ToLower(product)
}
