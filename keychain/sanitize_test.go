package keychain

import (
	"errors"
	"strings"
	"testing"
)

func TestSanitize_Cleans(t *testing.T) {
	const key = "sk-abc123DEF456"
	for _, in := range []string{
		key,
		key + "\n",
		"  " + key + "\r\n",
		"Bearer " + key,
		"bearer " + key,
		"BEARER\t" + key,
		"Authorization: Bearer " + key,
		"authorization:Bearer " + key,
		`"` + key + `"`,
		"'" + key + "'",
		"`" + key + "`",
		`"Bearer ` + key + `"`,
		"Bearer \"" + key + "\"\n",
		"\ufeff" + key + "\u200b",
	} {
		got, err := Sanitize(in)
		if err != nil || got != key {
			t.Errorf("Sanitize(%q) = %q, %v; want %q", in, got, err, key)
		}
	}
}

func TestSanitize_KeepsKeysThatMerelyLookLikePrefixes(t *testing.T) {
	for _, key := range []string{"BearerToken123", "sk-'quoted", "`sk-abc"} {
		if got, err := Sanitize(key); err != nil || got != key {
			t.Errorf("Sanitize(%q) = %q, %v; want it unchanged", key, got, err)
		}
	}
}

func TestSanitize_RefusesWithoutRepeatingTheKey(t *testing.T) {
	const secret = "SECRETPART"
	tests := []struct{ in, want string }{
		{"", "empty"},
		{" \n\t", "empty"},
		{`""`, "empty once quotes"},
		{"Bearer ", "empty"},
		{"Authorization: Bearer", "empty once"},
		{"sk-" + secret + " more", "whitespace at character 14"},
		{"sk-" + secret + "\nline2", "whitespace"},
		{"sk-" + secret + "\x00x", "invisible character (U+0000)"},
		{"sk-" + secret + "\u200bx", "invisible character (U+200B)"},
		{"sk-" + secret + "\xffx", "not valid UTF-8"},
	}
	for _, tt := range tests {
		_, err := Sanitize(tt.in)
		if err == nil {
			t.Errorf("Sanitize(%q) accepted it", tt.in)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Sanitize(%q) error %q, want it to mention %q", tt.in, err, tt.want)
		}
		if empty := strings.Contains(tt.want, "empty"); errors.Is(err, ErrEmptyKey) != empty {
			t.Errorf("Sanitize(%q): errors.Is(err, ErrEmptyKey) = %v, want %v", tt.in, !empty, empty)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error repeats the key: %q", err)
		}
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"sk-abcdefghijklmnop1234", "sk-…1234"},
		{"gw-local-0123456789abcdef", "gw-…cdef"},
		{"abcdefghijklmnopqrstuvwxyz", "…wxyz"},
		{"verylongprefix-abcdefghijkl", "…ijkl"},
		{"sk-short", "****"},
		{"abcdefghijk", "****"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Mask(tt.in); got != tt.want {
			t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
