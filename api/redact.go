package api

import (
	"regexp"
	"strings"
	"unicode"
)

const redacted = "[redacted]"

// secretLike matches runs that look like credentials: a key-ish prefix, or a
// long run of mixed letters and digits (checked further in looksSecret).
var secretLike = regexp.MustCompile(`(?i)\b(?:sk|pk|rk|key|api|gw-local)[-_][A-Za-z0-9_\-*.]{8,}|[A-Za-z0-9_\-+/=]{20,}`)

// redact removes the key (when known) and anything that looks like a secret
// from s. Services echo keys back in error messages ("Incorrect API key
// provided: sk-…"), and proxies sometimes quote headers.
func redact(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, redacted)
	}
	return secretLike.ReplaceAllStringFunc(s, func(m string) string {
		if looksSecret(m) {
			return redacted
		}
		return m
	})
}

func looksSecret(m string) bool {
	lower := strings.ToLower(m)
	for _, p := range []string{"sk-", "sk_", "pk-", "pk_", "rk-", "rk_", "key-", "key_", "api-", "api_", "gw-local-"} {
		if strings.HasPrefix(lower, p) && len(m) >= len(p)+8 {
			// "api_key_invalid", "key_model_access_denied": words, not secrets.
			return !isWordy(m[len(p):])
		}
	}
	if len(m) < 20 || strings.HasPrefix(m, "/") {
		return false
	}
	var letters, digits int
	for _, r := range m {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return digits >= 4 && letters >= 4
}

// isWordy reports whether s is made of lower-case words joined by _ or -
// (an error code), rather than random characters.
func isWordy(s string) bool {
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		for _, r := range part {
			if !unicode.IsLower(r) {
				return false
			}
		}
	}
	return true
}

// tidy collapses white space and clips a service message for display.
func tidy(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), 300)
}
