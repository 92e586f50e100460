package keychain

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrEmptyKey is Sanitize's error (wrapped) for input with no key in it.
var ErrEmptyKey = errors.New("the API key is empty")

// Sanitize cleans a pasted key: surrounding whitespace and newlines,
// invisible characters, quotes or backticks, an "Authorization:" header name
// and a "Bearer " prefix (any case). It refuses an empty key and one with
// whitespace or control characters inside. Its errors never contain the key.
func Sanitize(raw string) (string, error) {
	s := raw
	for {
		before := s
		s = strings.TrimFunc(s, invisible)
		s = trimQuotes(s)
		s = trimPrefixFold(s, "authorization:")
		s = strings.TrimFunc(s, invisible)
		if t := trimPrefixFold(s, "bearer"); t != s && (t == "" || invisible(firstRune(t))) {
			s = t
		}
		if s == before {
			break
		}
	}
	if s == "" {
		if strings.TrimFunc(raw, invisible) == "" {
			return "", fmt.Errorf("%w; paste the key itself", ErrEmptyKey)
		}
		return "", fmt.Errorf("%w once quotes and the Bearer/Authorization prefix are removed; paste the key itself", ErrEmptyKey)
	}
	pos := 0
	for _, r := range s {
		pos++
		switch {
		case unicode.IsSpace(r):
			return "", fmt.Errorf("the API key contains whitespace at character %d; paste only the key, on one line", pos)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return "", fmt.Errorf("the API key contains an invisible character (U+%04X) at character %d; paste only the key, or type it", r, pos)
		case r == utf8.RuneError:
			return "", fmt.Errorf("the API key is not valid UTF-8 at character %d; paste only the key", pos)
		}
	}
	return s, nil
}

// invisible: whitespace, control and zero-width/format characters (BOM, U+200B).
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func trimQuotes(s string) string {
	for len(s) >= 2 {
		q := s[0]
		if (q != '"' && q != '\'' && q != '`') || s[len(s)-1] != q {
			return s
		}
		s = strings.TrimFunc(s[1:len(s)-1], invisible)
	}
	return s
}

func trimPrefixFold(s, prefix string) string {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}

// Mask shows enough of a key to recognise it: a short known prefix up to the
// first dash ("sk-") and the last four characters, "sk-…abcd". Keys too short
// to hide at least eight characters are masked entirely.
func Mask(key string) string {
	if key == "" {
		return ""
	}
	r := []rune(key)
	prefix := 0
	if i := strings.IndexRune(key, '-'); i > 0 && i <= 4 {
		prefix = utf8.RuneCountInString(key[:i+1])
	}
	const tail, minHidden = 4, 8
	if len(r)-prefix-tail < minHidden {
		return "****"
	}
	return string(r[:prefix]) + "…" + string(r[len(r)-tail:])
}
