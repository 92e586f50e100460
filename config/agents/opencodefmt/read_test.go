package opencodefmt

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config"
)

// A token gw itself makes must be recognised as the local token, so doctor
// never reports it as a key written into the file.
func TestReadModels_TokenFromConfigIsLocalToken(t *testing.T) {
	tok, err := config.NewLocalToken()
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ReadModels([]byte(`{"provider": {"gw": {"npm": "` + NPM + `", "options": {"apiKey": "` + tok + `"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Providers) != 1 || sum.Providers[0].KeyKind != KeyLocalToken || sum.Providers[0].KeyRef != "" {
		t.Fatalf("providers = %+v, want one with a local token", sum.Providers)
	}
}

func TestReadModels(t *testing.T) {
	src := []byte(`{
  // two gateways and a non-compatible provider
  "provider": {
    "anthropic": {"options": {"apiKey": "sk-ant-secret-value"}},
    "gw": {
      "npm": "@ai-sdk/openai-compatible",
      "options": {"baseURL": "http://127.0.0.1:8787/v1", "apiKey": "gw-local-0123"},
      "models": {"vendor-b/model-b-3-pro-preview": {}, "vendor-a/model-a-opus-4.6": {},},
    },
    "direct": {
      "npm": "@ai-sdk/openai-compatible",
      "options": {"baseURL": "https://gateway.example.com/v1", "apiKey": "{env:GW_API_KEY}"},
      "models": {"vendor-a/model-a-haiku-4.5": {}}
    },
    "pasted": {
      "npm": "@ai-sdk/openai-compatible",
      "options": {"baseURL": "https://gateway.example.com/v1", "apiKey": "sk-live-abcdefgh12345678"},
      "models": {}
    },
    "filekey": {
      "npm": "@ai-sdk/openai-compatible",
      "options": {"apiKey": "{file:~/.secrets/gw}"}
    }
  },
  "model": "gw/vendor-a/model-a-opus-4.6",
  "disabled_providers": ["pasted"]
}`)
	sum, err := ReadModels(src)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range sum.Providers {
		ids = append(ids, p.ID)
	}
	if !slices.Equal(ids, []string{"gw", "direct", "pasted", "filekey"}) {
		t.Fatalf("providers = %v (anthropic is not openai-compatible; file order kept)", ids)
	}
	gw := sum.Providers[0]
	if gw.BaseURL != "http://127.0.0.1:8787/v1" || gw.KeyKind != KeyLocalToken || gw.KeyRef != "" ||
		!slices.Equal(gw.Models, []string{"vendor-b/model-b-3-pro-preview", "vendor-a/model-a-opus-4.6"}) {
		t.Errorf("gw = %+v", gw)
	}
	if d := sum.Providers[1]; d.KeyKind != KeyEnv || d.KeyRef != "GW_API_KEY" {
		t.Errorf("direct = %+v", d)
	}
	if p := sum.Providers[2]; p.KeyKind != KeyLiteral || p.KeyRef != "" {
		t.Errorf("pasted = %+v", p)
	}
	if f := sum.Providers[3]; f.KeyKind != KeyFile || f.KeyRef != "~/.secrets/gw" || f.BaseURL != "" {
		t.Errorf("filekey = %+v", f)
	}
	if sum.Model != "gw/vendor-a/model-a-opus-4.6" || !slices.Equal(sum.Disabled, []string{"pasted"}) || sum.Enabled != nil {
		t.Errorf("summary = %+v", sum)
	}
	// A literal key's text is never carried in the summary.
	for _, p := range sum.Providers {
		if strings.Contains(p.KeyRef+p.BaseURL+p.Name, "sk-") {
			t.Errorf("provider %s carries key text", p.ID)
		}
	}
}

func TestReadModelsEmptyAndBroken(t *testing.T) {
	for _, src := range []string{"", "  \n", "// nothing\n", "\ufeff"} {
		sum, err := ReadModels([]byte(src))
		if err != nil || len(sum.Providers) != 0 {
			t.Errorf("ReadModels(%q) = %+v, %v", src, sum, err)
		}
	}
	_, err := ReadModels([]byte("{\n  \"provider\": {,}\n}"))
	pe, ok := err.(*ParseError)
	if !ok || pe.Line != 2 {
		t.Fatalf("err = %v, want a ParseError on line 2", err)
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
