package api

import (
	"strings"

	"github.com/modelgateway/gw/internal/secret"
)

const redacted = "[redacted]"

// redact removes the key (when known) and anything that looks like a secret
// from s. Services echo keys back in error messages ("Incorrect API key
// provided: sk-…"), and proxies sometimes quote headers.
func redact(s, key string) string { return secret.Redact(s, key, redacted) }

// tidy collapses white space and clips a service message for display.
func tidy(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), 300)
}
