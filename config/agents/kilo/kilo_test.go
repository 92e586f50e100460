package kilo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
	"github.com/modelgateway/gw/config/agents/opencodefmt"
)

func TestMergeCorpus(t *testing.T) {
	agentstest.Corpus(t, Merge, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, "/provider/gw", "/model", "/small_model", "/$schema")
		in, err := Inspect(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		d := agentstest.Decl()
		if !in.Configured || in.BaseURL != d.BaseURL || in.LocalToken != d.Token || len(in.Models) != 3 || in.Default != "gw/"+d.Default {
			t.Errorf("read back %+v", in)
		}
	})
}

// A new file gets Kilo's schema, not OpenCode's.
func TestNewFileHasKiloSchema(t *testing.T) {
	res, err := Merge(nil, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Data), `"$schema": "`+Schema+`"`) || strings.Contains(string(res.Data), "opencode.ai") {
		t.Errorf("schema:\n%s", res.Data)
	}
}

func TestDirectModeWritesEnvReference(t *testing.T) {
	res, err := Merge(nil, agentstest.DirectDecl())
	if err != nil {
		t.Fatal(err)
	}
	in, _ := Inspect(res.Data)
	if in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || in.BaseURL != "https://api.example.com/v1" {
		t.Errorf("%+v", in)
	}
}

func TestRunTokenOnlyInEnv(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Args) != 0 {
		t.Errorf("args %q", spec.Args)
	}
	var content string
	for _, e := range spec.Env {
		if v, ok := strings.CutPrefix(e, ContentEnv+"="); ok {
			content = v
		}
	}
	if strings.Contains(content, d.Token) {
		t.Error("the token is in the config content; it belongs in GW_LOCAL_TOKEN only")
	}
	if !json.Valid([]byte(content)) || !strings.Contains(content, `"apiKey":"{env:GW_LOCAL_TOKEN}"`) {
		t.Errorf("content %s", content)
	}
	sum, err := opencodefmt.ReadModels([]byte(content))
	if err != nil || len(sum.Providers) != 1 || sum.Model != "gw/"+d.Default {
		t.Errorf("%+v %v", sum, err)
	}
	if !strings.Contains(strings.Join(spec.Env, "\n"), agents.TokenEnv+"="+d.Token) {
		t.Errorf("env %q", spec.Env)
	}
}

func TestPath(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": dir}[k] }
	p, _ := Path(agents.Global, agents.Place{Getenv: getenv})
	if p != filepath.Join(dir, ".config/kilo/kilo.jsonc") {
		t.Error(p)
	}
	if err := os.MkdirAll(filepath.Join(dir, "w/.kilo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "w/.kilo/kilo.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ = Path(agents.Project, agents.Place{Getenv: getenv, WorkDir: filepath.Join(dir, "w")})
	if p != filepath.Join(dir, "w/.kilo/kilo.json") {
		t.Error(p)
	}
}
