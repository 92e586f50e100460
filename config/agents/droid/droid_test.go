package droid

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

var owned = []string{"/customModels", "/sessionDefaultSettings"}

func TestMergeCorpus(t *testing.T) {
	agentstest.Corpus(t, Merge, map[string]agents.Declaration{"ours-direct.json": agentstest.DirectDecl()}, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, owned...)
		in, err := Inspect(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		if !in.Configured || len(in.Models) != 3 || in.Default != agentstest.Decl().Default {
			t.Errorf("read back %+v", in)
		}
	})
}

// The user's own custom models stay, in their order, and so do the other session defaults; gw's stale
// entries are corrected (a display name the user gave kept) or removed.
func TestMergeKeepsTheUsersModels(t *testing.T) {
	src := []byte(`{"customModels": [{"model": "mine", "baseUrl": "http://localhost:1/v1", "provider": "openai"}, {"id": "custom:gw/gone", "model": "gone"}], "sessionDefaultSettings": {"reasoningEffort": "low"}}`)
	res, err := agentstest.MergeOnce(t, Merge, src, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		CustomModels []struct {
			ID, Model, Provider, BaseURL, APIKey string
			MaxContextLimit, MaxOutputTokens     int
			NoImageSupport                       *bool
		}
		SessionDefaultSettings map[string]string
	}
	if err := json.Unmarshal(res.Data, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.CustomModels) != 4 || s.CustomModels[0].Model != "mine" || !slices.Equal(res.Removed, []string{"gone"}) {
		t.Fatalf("%s", res.Data)
	}
	d := agentstest.Decl()
	for i, m := range s.CustomModels[1:] {
		w := d.Models[i]
		if m.ID != "custom:gw/"+w.ID || m.Model != w.ID || m.Provider != "generic-chat-completion-api" || m.BaseURL != d.BaseURL ||
			m.APIKey != d.Token || m.MaxContextLimit != w.Context || m.MaxOutputTokens != w.Output || m.NoImageSupport == nil || *m.NoImageSupport == w.Attachment {
			t.Errorf("entry %d: %+v", i, m)
		}
	}
	if s.SessionDefaultSettings["model"] != "custom:gw/"+d.Default || s.SessionDefaultSettings["reasoningEffort"] != "low" {
		t.Errorf("%v", s.SessionDefaultSettings)
	}
}

func TestDirectModeNamesTheKeyVariable(t *testing.T) {
	res, err := Merge(nil, agentstest.DirectDecl())
	if err != nil {
		t.Fatal(err)
	}
	in, _ := Inspect(res.Data)
	if in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || !strings.Contains(string(res.Data), `"apiKey": "${GW_API_KEY}"`) || len(res.Warnings) == 0 {
		t.Errorf("%+v\n%s", in, res.Data)
	}
}

// gw run: a runtime settings file for --settings whose entries name GW_LOCAL_TOKEN, set beside it.
func TestRun(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	if spec, err = spec.Prepare(spec, agents.RunPlace{Dir: "/run"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(spec.Args, []string{"--settings", "/run/settings.json"}) || !slices.Equal(spec.Env, []string{"GW_LOCAL_TOKEN=" + d.Token}) {
		t.Errorf("%+v", spec)
	}
	in, err := Inspect(spec.Files["settings.json"])
	if err != nil || in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_LOCAL_TOKEN" || len(in.Models) != 3 || in.Default != d.Default {
		t.Errorf("%+v %v", in, err)
	}
	if _, err := (agent{}).Run(agentstest.DirectDecl()); err == nil {
		t.Error("direct mode has no run route")
	}
}
