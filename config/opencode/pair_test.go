package opencode

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

func TestSibling(t *testing.T) {
	dir := filepath.Join("a", "b")
	other, wins, ok := Sibling(filepath.Join(dir, "opencode.jsonc"))
	if !ok || wins || other != filepath.Join(dir, "opencode.json") {
		t.Errorf("Sibling(opencode.jsonc) = %q, %v, %v; want opencode.json, read first", other, wins, ok)
	}
	other, wins, ok = Sibling(filepath.Join(dir, "opencode.json"))
	if !ok || !wins || other != filepath.Join(dir, "opencode.jsonc") {
		t.Errorf("Sibling(opencode.json) = %q, %v, %v; want opencode.jsonc, read last", other, wins, ok)
	}
	if _, _, ok := Sibling(filepath.Join(dir, "custom.json")); ok {
		t.Error("Sibling(custom.json) has a sibling; OpenCode pairs only opencode.json and opencode.jsonc")
	}
}

func TestReferences(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"empty", "", nil},
		{"comments only", "// nothing\n", nil},
		// No npm: OpenCode still merges it into ours, so it counts.
		{"provider without npm", `{"provider":{"gw":{"options":{"baseURL":"https://old.example/v1"}}}}`, []string{`provider "gw"`}},
		{"defaults only", "\ufeff{\n  // c\n  \"model\": \"gw/vendor-a/m\", \"small_model\": \"gw/vendor-a/s\"}",
			[]string{`"model" is "gw/vendor-a/m"`, `"small_model" is "gw/vendor-a/s"`}},
		{"other provider", `{"provider":{"gwx":{}},"model":"gwx/m","theme":"light"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := References([]byte(tc.src), ProviderID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("References = %q, want %q", got, tc.want)
			}
		})
	}
	var pe *ParseError
	if _, err := References([]byte(`{"provider": `), ProviderID); !errors.As(err, &pe) {
		t.Errorf("References(broken) error = %v, want a *ParseError", err)
	}
}
