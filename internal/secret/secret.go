// Package secret finds what looks like a credential in text, so that gw never repeats one: a service that
// echoes the key in an error, a proxy that quotes a header, a key pasted where a flag was expected.
package secret

import (
	"regexp"
	"strings"
	"unicode"
)

// like matches runs that may be credentials: a key-ish prefix, or a long run of mixed letters and digits
// (checked further in Looks).
var like = regexp.MustCompile(`(?i)\b(?:sk|pk|rk|key|api|gw-local)[-_][A-Za-z0-9_\-*.]{8,}|[A-Za-z0-9_\-+/=]{20,}`)

// Redact replaces key (when known, wherever it is) and every run that looks like a credential in s with
// replacement.
func Redact(s, key, replacement string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, replacement)
	}
	return like.ReplaceAllStringFunc(s, func(m string) string {
		if Looks(m) {
			return replacement
		}
		return m
	})
}

// Looks reports whether m, one run of characters without spaces, looks like a credential: the service's key
// prefix "sk-" or gw's "gw-local-" and 8 characters more; another key-ish prefix ("pk_", "api-", …) followed
// by more than words; or 20 characters and more mixing letters and digits. Error codes ("api_key_invalid",
// "insufficient_user_quota") and paths are not.
func Looks(m string) bool {
	lower := strings.ToLower(m)
	// The service's keys and gw's local tokens start so, words or not ("sk-gw-demo-full" is a key).
	for _, p := range []string{"sk-", "gw-local-"} {
		if strings.HasPrefix(lower, p) && len(m) >= len(p)+8 {
			return true
		}
	}
	for _, p := range []string{"sk_", "pk-", "pk_", "rk-", "rk_", "key-", "key_", "api-", "api_"} {
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

// isWordy reports whether s is made of lower-case words joined by _ or - (an error code), rather than
// random characters.
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
