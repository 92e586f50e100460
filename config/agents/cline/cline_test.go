package cline

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// providersMerge merges providers.json (models.json absent).
func providersMerge(src []byte, d agents.Declaration) (agents.Result, error) {
	rs, err := MergeAt(src, nil, d, now)
	if err != nil {
		return agents.Result{}, err
	}
	return rs[0], nil
}

// modelsMerge merges models.json (providers.json absent).
func modelsMerge(src []byte, d agents.Declaration) (agents.Result, error) {
	rs, err := MergeAt(nil, src, d, now)
	if err != nil {
		return agents.Result{}, err
	}
	return rs[1], nil
}

// storedSettings mirrors Cline's StoredProviderSettingsSchema (zod, SDK
// 0.0.86) for the fields gw writes: a file that fails it is read as empty.
type storedSettings struct {
	Version          int             `json:"version"`
	LastUsedProvider string          `json:"lastUsedProvider"`
	Modes            json.RawMessage `json:"modes"`
	Providers        map[string]struct {
		Settings struct {
			Provider string `json:"provider"`
			APIKey   string `json:"apiKey"`
			Model    string `json:"model"`
			BaseURL  string `json:"baseUrl"`
		} `json:"settings"`
		UpdatedAt   string `json:"updatedAt"`
		TokenSource string `json:"tokenSource"`
	} `json:"providers"`
}

func TestMergeProvidersCorpus(t *testing.T) {
	agentstest.Corpus(t, providersMerge, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, "/providers/openai-compatible", "/lastUsedProvider", "/version", "/modes")
		var s storedSettings
		if err := json.Unmarshal(res.Data, &s); err != nil {
			t.Fatalf("JSON.parse would fail: %v", err)
		}
		p := s.Providers[ProviderID]
		if s.Version != 1 || s.LastUsedProvider != ProviderID || p.Settings.Provider != ProviderID || p.Settings.APIKey != agentstest.Token || p.TokenSource != "manual" {
			t.Errorf("%+v", s)
		}
		if _, err := time.Parse(time.RFC3339, p.UpdatedAt); err != nil {
			t.Errorf("updatedAt %q is not a datetime: %v", p.UpdatedAt, err)
		}
	})
}

func TestMergeModelsCorpus(t *testing.T) {
	agentstest.CorpusIn(t, "models", modelsMerge, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, "/providers/openai-compatible", "/version")
		var m struct {
			Version   int `json:"version"`
			Providers map[string]struct {
				Models map[string]struct {
					ID            string `json:"id"`
					ContextWindow int    `json:"contextWindow"`
					MaxTokens     int    `json:"maxTokens"`
				} `json:"models"`
			} `json:"providers"`
		}
		if err := json.Unmarshal(res.Data, &m); err != nil {
			t.Fatal(err)
		}
		ms := m.Providers[ProviderID].Models
		if m.Version != 1 || len(ms) != 3 || ms["vendor-a/model-a-opus-4.6"].ContextWindow != 200000 || ms["vendor-a/model-a-opus-4.6"].MaxTokens != 32000 {
			t.Errorf("%+v", m)
		}
	})
}

// updatedAt changes only when gw's settings do: a second run is a no-op.
func TestUpdatedAtOnlyOnChange(t *testing.T) {
	rs, err := MergeAt(nil, nil, agentstest.Decl(), now)
	if err != nil {
		t.Fatal(err)
	}
	again, err := MergeAt(rs[0].Data, rs[1].Data, agentstest.Decl(), now.Add(time.Hour))
	if err != nil || again[0].Changed || again[1].Changed {
		t.Fatalf("second run changed something: %v", err)
	}
	d := agentstest.Decl()
	d.BaseURL = "http://127.0.0.1:9000/v1"
	moved, err := MergeAt(rs[0].Data, rs[1].Data, d, now.Add(time.Hour))
	if err != nil || !strings.Contains(string(moved[0].Data), `"updatedAt": "2026-11-24T13:00:00.000Z"`) {
		t.Fatalf("%v\n%s", err, moved[0].Data)
	}
}

func TestPaths(t *testing.T) {
	env := func(m map[string]string) agents.Place {
		return agents.Place{Getenv: func(k string) string { return m[k] }}
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.cline/data/settings/providers.json"},
		{map[string]string{"HOME": "/h", "CLINE_DIR": "/c"}, "/c/data/settings/providers.json"},
		{map[string]string{"HOME": "/h", "CLINE_DATA_DIR": "/d"}, "/d/settings/providers.json"},
		{map[string]string{"CLINE_PROVIDER_SETTINGS_PATH": "/x/p.json"}, "/x/p.json"},
	} {
		ps, err := agent{}.Files(agents.Global, env(c.env))
		if err != nil || ps[0] != c.want || !strings.HasSuffix(ps[1], "/models.json") {
			t.Errorf("%v: %q %v", c.env, ps, err)
		}
	}
	if _, err := (agent{}).Files(agents.Project, env(nil)); err == nil {
		t.Error("Cline has no project settings")
	}
}
