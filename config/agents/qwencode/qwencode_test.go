package qwencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

var owned = []string{"/modelProviders/openai", "/env", "/security", "/model", "/fastModel", "/$version"}

func TestMergeCorpus(t *testing.T) {
	agentstest.Corpus(t, Merge, map[string]agents.Declaration{"ours-direct.json": agentstest.DirectDecl()}, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, owned...)
		in, err := Inspect(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		d := agentstest.Decl()
		if !in.Configured || len(in.Models) != 3 || in.Default != d.Default {
			t.Errorf("read back %+v", in)
		}
	})
}

// The user's own entries of modelProviders.openai stay, in their order;
// gw's stale ones are corrected (a name the user gave kept) or removed.
func TestMergeRefreshesOwnEntriesOnly(t *testing.T) {
	src := []byte(`{
  "modelProviders": {
    "openai": [
      {"id": "mine", "baseUrl": "http://localhost:11434/v1", "envKey": "OLLAMA"},
      {"id": "vendor-a/model-a-opus-4.6", "name": "Renamed", "baseUrl": "http://127.0.0.1:1/v1", "envKey": "GW_LOCAL_TOKEN"},
      {"id": "gone", "envKey": "GW_LOCAL_TOKEN"}
    ]
  }
}
`)
	res, err := agentstest.MergeOnce(t, Merge, src, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Removed, []string{"gone"}) || !slices.Equal(res.Updated, []string{"vendor-a/model-a-opus-4.6"}) || len(res.Added) != 2 {
		t.Errorf("%+v", res)
	}
	s := string(res.Data)
	if !strings.Contains(s, `{"id": "mine", "baseUrl": "http://localhost:11434/v1", "envKey": "OLLAMA"}`) || !strings.Contains(s, `"name": "Renamed"`) || strings.Contains(s, "127.0.0.1:1/") {
		t.Errorf("got\n%s", s)
	}
}

func TestDirectModeNamesTheKeyVariable(t *testing.T) {
	res, err := Merge(nil, agentstest.DirectDecl())
	if err != nil {
		t.Fatal(err)
	}
	in, _ := Inspect(res.Data)
	if in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || strings.Contains(string(res.Data), "GW_LOCAL_TOKEN") {
		t.Errorf("%+v\n%s", in, res.Data)
	}
}

func TestProxyModeTokenInEnvBlock(t *testing.T) {
	res, err := Merge(nil, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	in, _ := Inspect(res.Data)
	if in.KeyKind != agents.KeyLocalToken || in.LocalToken != agentstest.Token {
		t.Errorf("%+v", in)
	}
	if !strings.HasPrefix(string(res.Data), "{\n  \"$version\": 4,") {
		t.Errorf("a new file starts with the settings version:\n%s", res.Data)
	}
}

func TestRun(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"OPENAI_BASE_URL=" + d.BaseURL, "OPENAI_API_KEY=" + d.Token, "OPENAI_MODEL=" + d.Default, "QWEN_CODE_MAX_OUTPUT_TOKENS=32000"}
	if !slices.Equal(spec.Env, want) || !slices.Equal(spec.Args, []string{"--auth-type", "openai", "--model", d.Default, "--openai-base-url", d.BaseURL}) {
		t.Errorf("%+v", spec)
	}
	if _, err := (agent{}).Run(agentstest.DirectDecl()); err == nil {
		t.Error("direct mode has no run route")
	}
}

func TestDuplicateOwnEntryRefused(t *testing.T) {
	_, err := Merge([]byte(`{"modelProviders":{"openai":[{"id":"a","envKey":"GW_LOCAL_TOKEN"},{"id":"a","envKey":"GW_LOCAL_TOKEN"}]}}`), agentstest.Decl())
	var ce *agents.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v", err)
	}
}

// A model that takes images gets generationConfig.modalities.image, without which Qwen Code replaces an
// image with a note; one that does not gets no modalities.
func TestModalities(t *testing.T) {
	d := agentstest.Decl()
	d.Models[1].Attachment = false
	res, err := Merge(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		ModelProviders map[string][]struct {
			ID               string
			GenerationConfig struct {
				Modalities map[string]bool `json:"modalities"`
			} `json:"generationConfig"`
		} `json:"modelProviders"`
	}
	if err := json.Unmarshal(res.Data, &s); err != nil {
		t.Fatal(err)
	}
	entries := s.ModelProviders["openai"]
	if len(entries) != len(d.Models) {
		t.Fatalf("entries %+v", entries)
	}
	for i, e := range entries {
		want := map[string]bool(nil)
		if d.Models[i].Attachment {
			want = map[string]bool{"image": true}
		}
		if !maps.Equal(e.GenerationConfig.Modalities, want) || (want == nil) != (e.GenerationConfig.Modalities == nil) {
			t.Errorf("%s: modalities %v, want %v", e.ID, e.GenerationConfig.Modalities, want)
		}
	}
}

// A settings file that starts with a byte-order mark, which Qwen Code 0.24
// reads past, is merged and keeps its mark.
func TestMergeKeepsByteOrderMark(t *testing.T) {
	src := []byte("\ufeff{\n  \"model\": {\"name\": \"mine\"}\n}\n")
	res, err := agentstest.MergeOnce(t, Merge, src, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(res.Data, []byte("\ufeff{")) || !bytes.Contains(res.Data, []byte("GW_LOCAL_TOKEN")) {
		t.Errorf("got\n%s", res.Data)
	}
}
