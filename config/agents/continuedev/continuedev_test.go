package continuedev

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

// continueModel mirrors the model block of Continue's config schema
// (@continuedev/config-yaml, zod) for the fields gw writes.
type continueModel struct {
	Name         string   `yaml:"name"`
	Provider     string   `yaml:"provider"`
	Model        string   `yaml:"model"`
	APIBase      string   `yaml:"apiBase"`
	APIKey       string   `yaml:"apiKey"`
	Roles        []string `yaml:"roles"`
	Capabilities []string `yaml:"capabilities"`
	Options      struct {
		ContextLength int  `yaml:"contextLength"`
		MaxTokens     int  `yaml:"maxTokens"`
		Reasoning     bool `yaml:"reasoning"`
	} `yaml:"defaultCompletionOptions"`
}

type continueConfig struct {
	Name    string          `yaml:"name"`
	Version string          `yaml:"version"`
	Models  []continueModel `yaml:"models"`
}

func TestMergeCorpus(t *testing.T) {
	agentstest.Corpus(t, Merge, nil, func(t *testing.T, src []byte, res agents.Result) {
		var c continueConfig
		if err := yaml.Unmarshal([]byte(strings.TrimPrefix(string(res.Data), "\uFEFF")), &c); err != nil {
			t.Fatal(err)
		}
		if c.Name == "" || c.Version == "" {
			t.Errorf("name/version missing: Continue requires both")
		}
		d := agentstest.Decl()
		n := 0
		for _, m := range c.Models {
			if m.APIKey != d.Token {
				continue
			}
			n++
			if m.Provider != "openai" || m.APIBase != d.BaseURL || m.Options.ContextLength == 0 || m.Options.MaxTokens == 0 || !contains(m.Capabilities, "tool_use") {
				t.Errorf("%+v", m)
			}
		}
		if n != 3 {
			t.Errorf("%d of gw's models", n)
		}
		kept(t, src, res.Data)
	})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// kept: every line of the source outside gw's entries is in the output, in
// order. An entry is a "- " line and the more indented lines after it.
func kept(t *testing.T, src, out []byte) {
	t.Helper()
	src, out = bytes.TrimPrefix(src, []byte("\uFEFF")), bytes.TrimPrefix(out, []byte("\uFEFF"))
	lines := strings.SplitAfter(string(src), "\n")
	skip := make([]bool, len(lines))
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "- ") {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" && indent(lines[j]) > indent(lines[i]) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "- ") {
			j++
		}
		block := strings.Join(lines[i:j], "")
		if strings.Contains(block, "gw-local-") || strings.Contains(block, "secrets.GW_API_KEY") {
			for k := i; k < j; k++ {
				skip[k] = true
			}
		}
	}
	rest := string(out)
	for i, line := range lines {
		l := strings.TrimSpace(line)
		if skip[i] || l == "" || l == "models: []" || l == "models:" {
			continue
		}
		k := strings.Index(rest, strings.TrimRight(line, "\r\n"))
		if k < 0 {
			t.Errorf("line %q of the source is missing or out of order in:\n%s", line, out)
			return
		}
		rest = rest[k:]
	}
}

func TestDirectModeUsesSecret(t *testing.T) {
	res, err := Merge(nil, agentstest.DirectDecl())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Data), "apiKey: ${{ secrets.GW_API_KEY }}") {
		t.Errorf("%s", res.Data)
	}
	in, _ := Inspect(res.Data)
	if in.KeyKind != agents.KeyEnvRef || in.KeyRef != "GW_API_KEY" || len(in.Models) != 3 {
		t.Errorf("%+v", in)
	}
}

// The name a user gave gw's entry survives a refresh.
func TestUserNameKept(t *testing.T) {
	src := []byte("name: x\nversion: 1.0.0\nmodels:\n  - name: My Opus\n    provider: openai\n    model: vendor-a/model-a-opus-4.6\n    apiBase: http://127.0.0.1:1/v1\n    apiKey: gw-local-ff\n")
	res, err := agentstest.MergeOnce(t, Merge, src, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Data), "- name: My Opus\n") || strings.Contains(string(res.Data), "127.0.0.1:1/") {
		t.Errorf("%s", res.Data)
	}
}

func TestNoProjectScopeNoRun(t *testing.T) {
	if _, err := Path(agents.Project, agents.Place{Getenv: func(string) string { return "" }}); err == nil {
		t.Error("Continue has no project config")
	}
	if _, ok := Agent().(agents.Runner); ok || Agent().Info().NoRun == "" {
		t.Error("no run route")
	}
}
