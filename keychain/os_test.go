package keychain

import "testing"

// A key from GW_API_KEY overrides the stored one: a fix that says to store a new key says to change or unset
// the variable instead; fixes about the base URL, and keys from elsewhere, are left alone.
func TestFixForKeySource(t *testing.T) {
	wrong := "create a new key on the dashboard and run: gw auth login (if the key is right, check the balance)"
	cases := []struct {
		fix  string
		src  Source
		want string
	}{
		{wrong, SourceEnv, "create a new key on the dashboard and set GW_API_KEY to it, or run: unset GW_API_KEY (gw then uses the stored key) (if the key is right, check the balance)"},
		{wrong, SourceKeychain, wrong},
		{wrong, SourceFile, wrong},
		{"run: gw auth login --base-url https://x.io/v1", SourceEnv, "run: gw auth login --base-url https://x.io/v1"},
		{"run: gw auth login (or set GW_API_KEY)", SourceEnv, "set GW_API_KEY to it, or run: unset GW_API_KEY (gw then uses the stored key)"},
	}
	for _, c := range cases {
		if got := FixForKeySource(c.fix, c.src); got != c.want {
			t.Errorf("FixForKeySource(%q, %s)\n got %q\nwant %q", c.fix, c.src, got, c.want)
		}
	}
}
