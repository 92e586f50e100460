package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

func TestMergeSettingsCorpus(t *testing.T) {
	agentstest.Corpus(t, MergeSettings, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, "/security", "/model")
		in, err := InspectSettings(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		if d := agentstest.Decl(); !in.Configured || in.Default != d.Default {
			t.Errorf("read back %+v", in)
		}
	})
}

func TestMergeEnvCorpus(t *testing.T) {
	agentstest.CorpusIn(t, "env", MergeEnv, nil, func(t *testing.T, src []byte, res agents.Result) {
		vars := readEnv(res.Data)
		d := agentstest.Decl()
		if vars[EnvBaseURL] != d.Origin() || vars[EnvAPIKey] != d.Token {
			t.Errorf("read back %q", vars)
		}
		// Every line that sets none of gw's variables is kept, in order.
		var kept, had []string
		for _, l := range strings.SplitAfter(string(src), "\n") {
			if k, _ := envKey(l); k != EnvBaseURL && k != EnvAPIKey && l != "" {
				had = append(had, strings.TrimRight(l, "\r\n"))
			}
		}
		for _, l := range strings.SplitAfter(string(res.Data), "\n") {
			if k, _ := envKey(l); k != EnvBaseURL && k != EnvAPIKey && l != "" {
				kept = append(kept, strings.TrimRight(l, "\r\n"))
			}
		}
		if strings.Join(kept, "\n") != strings.Join(had, "\n") {
			t.Errorf("other lines not kept:\n%q\n---\n%q", had, kept)
		}
	})
}

// The user's other settings (and comments) stay; a Google login is replaced
// by the API key route, which is what makes GOOGLE_GEMINI_BASE_URL count.
func TestMergeSettingsReplacesLogin(t *testing.T) {
	src := []byte("{\n  // mine\n  \"security\": { \"auth\": { \"selectedType\": \"oauth-personal\" }, \"folderTrust\": { \"enabled\": true } }\n}\n")
	res, err := agentstest.MergeOnce(t, MergeSettings, src, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	s := string(res.Data)
	if !strings.Contains(s, "// mine") || !strings.Contains(s, `"folderTrust": { "enabled": true }`) || !strings.Contains(s, `"selectedType": "gemini-api-key"`) {
		t.Errorf("got\n%s", s)
	}
	before, _ := InspectSettings(src)
	if before.Configured || len(before.Notes) == 0 || !strings.Contains(before.Notes[0], "oauth-personal") {
		t.Errorf("a Google login read as %+v", before)
	}
}

func TestDirectModeRefused(t *testing.T) {
	_, err := Merge([][]byte{nil, nil}, agentstest.DirectDecl())
	if !errors.Is(err, agents.ErrDirectRefused) || !strings.Contains(err.Error(), "Gemini API") {
		t.Fatalf("got %v", err)
	}
	if _, err := Run(agentstest.DirectDecl()); !errors.Is(err, agents.ErrDirectRefused) {
		t.Fatalf("Run: got %v", err)
	}
}

// gw run: the environment only, the base URL without /v1 (@google/genai
// adds /v1beta itself), the token in GEMINI_API_KEY and in no argument.
func TestRunEnvironmentOnly(t *testing.T) {
	d := agentstest.Decl()
	spec, err := Run(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Args) != 0 {
		t.Errorf("args %q", spec.Args)
	}
	env := strings.Join(spec.Env, "\n")
	for _, w := range []string{"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787\n", "GEMINI_API_KEY=" + d.Token + "\n", "GEMINI_MODEL=" + d.Default + "\n",
		"GEMINI_DEFAULT_AUTH_TYPE=gemini-api-key"} {
		if !strings.Contains(env, w) {
			t.Errorf("env lacks %q: %q", w, spec.Env)
		}
	}

}

func TestPaths(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, _ := Paths(agents.Global, agents.Env{Getenv: env(map[string]string{"HOME": "/h"})})
	if strings.Join(p, " ") != "/h/.gemini/settings.json /h/.gemini/.env" {
		t.Error(p)
	}
	p, _ = Paths(agents.Global, agents.Env{Getenv: env(map[string]string{"HOME": "/h", "GEMINI_CLI_HOME": "/g"})})
	if strings.Join(p, " ") != "/g/.gemini/settings.json /g/.gemini/.env" {
		t.Error(p)
	}
	p, _ = Paths(agents.Project, agents.Env{Getenv: env(nil), WorkDir: "/w"})
	if strings.Join(p, " ") != "/w/.gemini/settings.json /w/.gemini/.env" {
		t.Error(p)
	}
}
