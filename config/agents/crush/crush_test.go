package crush

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

var owned = []string{"/providers/gw", "/models/large", "/models/small", "/$schema"}

// crushConfig mirrors the parts of Crush's Config (internal/config) that gw
// writes, with the same JSON names and types: decoding with unknown fields
// disallowed catches a misspelled or mistyped key. Crush itself checks
// json.Valid and then unmarshals the merged files into its Config.
type crushConfig struct {
	Schema    string `json:"$schema"`
	Providers map[string]struct {
		ID           string            `json:"id"`
		Name         string            `json:"name"`
		BaseURL      string            `json:"base_url"`
		Type         string            `json:"type"`
		APIKey       string            `json:"api_key"`
		Disable      bool              `json:"disable"`
		ExtraHeaders map[string]string `json:"extra_headers"`
		Discover     *bool             `json:"discover_models"`
		Models       []struct {
			ID                 string  `json:"id"`
			Name               string  `json:"name"`
			CostPer1MIn        float64 `json:"cost_per_1m_in"`
			CostPer1MOut       float64 `json:"cost_per_1m_out"`
			CostPer1MInCached  float64 `json:"cost_per_1m_in_cached"`
			CostPer1MOutCached float64 `json:"cost_per_1m_out_cached"`
			ContextWindow      int64   `json:"context_window"`
			DefaultMaxTokens   int64   `json:"default_max_tokens"`
			CanReason          bool    `json:"can_reason"`
			SupportsImages     bool    `json:"supports_attachments"`
		} `json:"models"`
	} `json:"providers"`
	Models map[string]struct {
		Model     string `json:"model"`
		Provider  string `json:"provider"`
		MaxTokens int64  `json:"max_tokens"`
	} `json:"models"`
	LSP         json.RawMessage `json:"lsp"`
	Options     json.RawMessage `json:"options"`
	Permissions json.RawMessage `json:"permissions"`
}

func TestMergeCorpus(t *testing.T) {
	agentstest.Corpus(t, Merge, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, owned...)
		if !json.Valid(res.Data) {
			t.Fatal("Crush checks json.Valid; the output is not")
		}
		dec := json.NewDecoder(bytes.NewReader(res.Data))
		dec.DisallowUnknownFields()
		var c crushConfig
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("does not decode like Crush's Config: %v", err)
		}
		gw := c.Providers["gw"]
		d := agentstest.Decl()
		if gw.Type != ProviderType || gw.BaseURL != d.BaseURL || gw.APIKey != d.Token || len(gw.Models) != 3 || gw.Disable {
			t.Errorf("provider %+v", gw)
		}
		for _, m := range gw.Models {
			if m.ContextWindow == 0 || m.DefaultMaxTokens == 0 {
				t.Errorf("model %s lacks its limits", m.ID)
			}
		}
		if c.Models["large"].Model != d.Default || c.Models["small"].Model != d.Small || c.Models["large"].Provider != "gw" {
			t.Errorf("slots %+v", c.Models)
		}
	})
}

func TestDirectModeWritesEnvReference(t *testing.T) {
	res, err := Merge(nil, agentstest.DirectDecl())
	if err != nil {
		t.Fatal(err)
	}
	in, _ := Inspect(res.Data)
	if in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || !strings.Contains(string(res.Data), `"api_key": "$GW_API_KEY"`) {
		t.Errorf("%+v\n%s", in, res.Data)
	}
}

func TestPlainKeyReplacedAndReported(t *testing.T) {
	before, _ := Inspect([]byte(`{"providers":{"gw":{"api_key":"sk-x"}}}`))
	if before.KeyKind != agents.KeyLiteral {
		t.Errorf("%+v", before)
	}
}

func TestRefusals(t *testing.T) {
	for _, src := range []string{"\uFEFF{}", "{\n // c\n}", `{"a":1,}`} {
		_, err := Merge([]byte(src), agentstest.Decl())
		var pe *agents.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v", src, err)
		}
	}
	if _, ok := Agent().(agents.Runner); ok || Agent().Info().NoRun == "" {
		t.Error("Crush has no env route; NoRun says what to do")
	}
}
