package secret

import "testing"

func TestLooks(t *testing.T) {
	for m, want := range map[string]bool{
		"sk-gw-demo-full":                  true, // the service's prefix: a key even when it reads as words
		"sk-proj-Ab3dE5gH7jK9mN1pQ3sT":     true,
		"gw-local-0123456789abcdef":        true,
		"pk_live_51HqLyjWDarjtT1zdp7dc":    true,
		"api_key_invalid":                  false, // an error code
		"key_model_access_denied":          false,
		"insufficient_user_quota":          false,
		"sk-short":                         false,
		"AKIAIOSFODNN7EXAMPLE1234":         true,
		"/v1/chat/completions/abcdef12345": false, // a path
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaa":     false, // no digits: a word, not a key
	} {
		if got := Looks(m); got != want {
			t.Errorf("Looks(%q) = %v, want %v", m, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	got := Redact("Incorrect API key provided: sk-gw-demo-full; token gw-local-0123456789abcdef; code api_key_invalid; mine XYZ", "XYZ", "[x]")
	if want := "Incorrect API key provided: [x]; token [x]; code api_key_invalid; mine [x]"; got != want {
		t.Errorf("Redact:\n got %q\nwant %q", got, want)
	}
}
