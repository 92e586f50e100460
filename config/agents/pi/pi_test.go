package pi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
	"github.com/modelgateway/gw/config/jsonc"
)

var ownedModels = []string{"/providers/gw"}

func TestMergeModelsCorpus(t *testing.T) {
	agentstest.Corpus(t, MergeModels, map[string]agents.Declaration{"ours-direct.json": agentstest.DirectDecl()}, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, ownedModels...)
		in, err := inspectModels(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		if !in.Configured || len(in.Models) != 3 {
			t.Errorf("read back %+v", in)
		}
	})
}

func TestMergeSettingsCorpus(t *testing.T) {
	agentstest.CorpusIn(t, "settings", MergeSettings, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, "/defaultProvider", "/defaultModel")
		in, err := inspectSettings(res.Data)
		if err != nil || in.Default != agentstest.Decl().Default {
			t.Errorf("read back %+v %v", in, err)
		}
	})
}

// What pi needs of each model, as its models.json schema names it: the limits, reasoning, and image
// input only for the models that take images; the provider speaks the Messages API at gw serve's origin.
func TestModelsAsPiReadsThem(t *testing.T) {
	d := agentstest.Decl()
	d.Models[1].Attachment = false
	res, err := MergeModels(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Providers map[string]struct {
			BaseURL, API, APIKey string
			Models               []struct {
				ID            string
				Reasoning     bool
				Input         []string
				ContextWindow int
				MaxTokens     int
			}
		}
	}
	if err := json.Unmarshal(res.Data, &f); err != nil {
		t.Fatal(err)
	}
	p := f.Providers["gw"]
	if p.BaseURL != "http://127.0.0.1:8787" || p.API != "anthropic-messages" || p.APIKey != agentstest.Token || len(p.Models) != 3 {
		t.Fatalf("%+v", p)
	}
	for i, m := range p.Models {
		want := d.Models[i]
		input := []string{"text"}
		if want.Attachment {
			input = append(input, "image")
		}
		if m.ID != want.ID || m.Reasoning != want.Reasoning || m.ContextWindow != want.Context || m.MaxTokens != want.Output || !slices.Equal(m.Input, input) {
			t.Errorf("model %d: %+v, want %+v", i, m, want)
		}
	}
}

// Direct mode: chat completions at the service, the key by its variable's name, and a warning saying what
// that costs.
func TestDirectMode(t *testing.T) {
	rs, err := agent{}.Merge(make([][]byte, 2), agentstest.DirectDecl())
	if err != nil {
		t.Fatal(err)
	}
	s := string(rs[0].Data)
	if !strings.Contains(s, `"api": "openai-completions"`) || !strings.Contains(s, `"apiKey": "GW_API_KEY"`) || strings.Contains(s, "gw-local-") {
		t.Errorf("%s", s)
	}
	in, _ := agent{}.Inspect([][]byte{rs[0].Data, rs[1].Data})
	if in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || len(rs[0].Warnings) != 2 || !strings.Contains(rs[0].Warnings[1], "thought signature") {
		t.Errorf("%+v %+v", in, rs[0])
	}
}

// gw run: the extension's provider refers to GW_LOCAL_TOKEN and holds every model with costs (pi's
// registerProvider reads them); the arguments load it and pick gw's default model.
func TestRun(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	if spec, err = spec.Prepare(spec, agents.RunPlace{Dir: "/run"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(spec.Args, []string{"-e", "/run/gw.js", "--provider", "gw", "--model", d.Default}) ||
		!slices.Equal(spec.Env, []string{"GW_LOCAL_TOKEN=" + d.Token}) {
		t.Errorf("%+v", spec)
	}
	ext := string(spec.Files["gw.js"])
	start, end := strings.Index(ext, "{"), strings.LastIndex(ext, "}")
	body := ext[strings.Index(ext[start+1:], "{")+start+1 : strings.LastIndex(ext[:end], ")")]
	var p struct {
		APIKey string
		Models []struct {
			ID   string
			Cost map[string]int
		}
	}
	if err := jsonc.Decode([]byte(body), &p); err != nil {
		t.Fatalf("%v\n%s", err, ext)
	}
	if p.APIKey != "GW_LOCAL_TOKEN" || len(p.Models) != 3 || len(p.Models[0].Cost) != 4 || strings.Contains(ext, d.Token) {
		t.Errorf("%s", ext)
	}
	if _, err := (agent{}).Run(agentstest.DirectDecl()); err == nil {
		t.Error("direct mode has no run route")
	}
}

func TestFiles(t *testing.T) {
	env := func(m map[string]string) agents.Place {
		return agents.Place{Getenv: func(k string) string { return m[k] }, WorkDir: "/src"}
	}
	for _, tt := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.pi/agent/models.json"},
		{map[string]string{"HOME": "/home/u", "PI_CODING_AGENT_DIR": "~/pi"}, "/home/u/pi/models.json"},
		{map[string]string{"HOME": "/home/u", "PI_CODING_AGENT_DIR": "/etc/pi"}, "/etc/pi/models.json"},
	} {
		files, err := agent{}.Files(agents.Global, env(tt.vars))
		if err != nil || files[0] != tt.want || !strings.HasSuffix(files[1], "/settings.json") {
			t.Errorf("%v: %q %v", tt.vars, files, err)
		}
	}
	if _, err := (agent{}).Files(agents.Global, env(map[string]string{"HOME": "/home/u", "PI_CODING_AGENT_DIR": "pi"})); err == nil {
		t.Error("a relative PI_CODING_AGENT_DIR is refused")
	}
}
