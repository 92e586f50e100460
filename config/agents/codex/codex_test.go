package codex

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

// codexConfig mirrors the keys of Codex's ConfigToml (codex-rs) that gw
// writes, with their TOML types.
type codexConfig struct {
	Model              string `toml:"model"`
	ModelProvider      string `toml:"model_provider"`
	ModelContextWindow int64  `toml:"model_context_window"`
	ModelProviders     map[string]struct {
		Name                    string `toml:"name"`
		BaseURL                 string `toml:"base_url"`
		WireAPI                 string `toml:"wire_api"`
		ExperimentalBearerToken string `toml:"experimental_bearer_token"`
		EnvKey                  string `toml:"env_key"`
		SupportsWebsockets      *bool  `toml:"supports_websockets"`
		ModelCatalogURL         string `toml:"model_catalog_url"`
	} `toml:"model_providers"`
}

func TestMergeCorpus(t *testing.T) {
	agentstest.Corpus(t, Merge, nil, func(t *testing.T, src []byte, res agents.Result) {
		var c codexConfig
		if err := toml.Unmarshal(res.Data, &c); err != nil {
			t.Fatalf("not valid TOML: %v\n%s", err, res.Data)
		}
		d := agentstest.Decl()
		gw := c.ModelProviders["gw"]
		if c.Model != d.Default || c.ModelProvider != "gw" || c.ModelContextWindow != 200000 ||
			gw.BaseURL != d.BaseURL || gw.WireAPI != "responses" || gw.ExperimentalBearerToken != d.Token || gw.EnvKey != "" ||
			gw.SupportsWebsockets == nil || *gw.SupportsWebsockets || gw.ModelCatalogURL != "http://127.0.0.1:8787/v1/codex/models" {
			t.Errorf("%+v", c)
		}
		kept(t, src, res.Data)
	})
}

var ownedKey = regexp.MustCompile(`^["']?(model|model_provider|model_context_window|name|base_url|wire_api|experimental_bearer_token|env_key|supports_websockets|model_catalog_url)["']?\s*=`)

// kept: every line of the source that is not one of gw's keys is in the
// output, in order (comments, blank lines, other tables).
func kept(t *testing.T, src, out []byte) {
	t.Helper()
	rest := string(out)
	for _, line := range strings.SplitAfter(string(src), "\n") {
		l := strings.TrimSpace(line)
		skip := l == "" || ownedKey.MatchString(l)
		if skip {
			continue
		}
		i := strings.Index(rest, strings.TrimRight(line, "\r\n"))
		if i < 0 {
			t.Errorf("line %q of the source is missing or out of order in:\n%s", line, out)
			return
		}
		rest = rest[i:]
	}
}

// A value gw would write anyway keeps its spelling (quotes, underscores).
func TestUnchangedValuesKeepSpelling(t *testing.T) {
	src := []byte("model = 'vendor-a/model-a-opus-4.6'\nmodel_provider = 'gw'\nmodel_context_window = 200_000\n\n[model_providers.gw]\nname = 'x'\nbase_url = 'http://127.0.0.1:8787/v1'\nwire_api = 'responses'\nexperimental_bearer_token = '" + agentstest.Token + "'\nsupports_websockets = false\nmodel_catalog_url = 'http://127.0.0.1:8787/v1/codex/models'\n")
	res, err := Merge(src, agentstest.Decl())
	if err != nil || res.Changed {
		t.Fatalf("changed: %v %v\n%s", res.Changed, err, res.Data)
	}
}

func TestParseErrorHasPosition(t *testing.T) {
	_, err := Merge([]byte("[tui]\nx = 1\nmodel = \n"), agentstest.Decl())
	var pe *agents.ParseError
	if !errors.As(err, &pe) || pe.Line != 3 {
		t.Fatalf("got %v", err)
	}
}

func TestRunTokenOnlyInEnv(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(spec.Args, " "), d.Token) {
		t.Fatal("token in the arguments")
	}
	if len(spec.Env) != 1 || spec.Env[0] != "GW_LOCAL_TOKEN="+d.Token {
		t.Errorf("env %q", spec.Env)
	}
	joined := strings.Join(spec.Args, " ")
	// A provider of gw run's own: the user's [model_providers.gw] may hold gw's credential command, which
	// Codex refuses to combine with env_key.
	for _, want := range []string{`-c model_providers.gw-run.base_url="http://127.0.0.1:8787/v1"`, `-c model_providers.gw-run.wire_api="responses"`, `-c model_providers.gw-run.env_key="GW_LOCAL_TOKEN"`, `-c model_provider="gw-run"`,
		`-c model_providers.gw-run.supports_websockets=false`, `-c model_providers.gw-run.model_catalog_url="http://127.0.0.1:8787/v1/codex/models"`,
		// Codex 0.171 writes its shell's exported variables, the token among them, to
		// ~/.codex/shell_snapshots and leaves the file when a run fails.
		`-c features.shell_snapshot=false`} {
		if !strings.Contains(joined, want) {
			t.Errorf("args lack %s: %s", want, joined)
		}
	}
	// each -c value is TOML
	for i := 1; i < len(spec.Args); i += 2 {
		if err := toml.Unmarshal([]byte(spec.Args[i]), new(map[string]any)); err != nil {
			t.Errorf("%q: %v", spec.Args[i], err)
		}
	}
}

func TestNoProjectScope(t *testing.T) {
	_, err := Path(agents.Project, agents.Place{Getenv: func(string) string { return "" }, WorkDir: "/w"})
	if err == nil || !strings.Contains(err.Error(), "ignores") {
		t.Fatalf("got %v", err)
	}
	p, _ := Path(agents.Global, agents.Place{Getenv: func(k string) string { return map[string]string{"HOME": "/h"}[k] }})
	if p != "/h/.codex/config.toml" {
		t.Error(p)
	}
}

// A provider written before gw served Codex's catalog is a finding doctor reports (its fix, gw init agent, is
// doctor's remedy for every finding: the note names no command); once merged, it is not.
func TestInspectNotesAnOldProvider(t *testing.T) {
	old := []byte("model = 'vendor-a/model-a-opus-4.6'\nmodel_provider = 'gw'\n\n[model_providers.gw]\nbase_url = 'http://127.0.0.1:8787/v1'\nwire_api = 'responses'\nexperimental_bearer_token = '" + agentstest.Token + "'\n")
	in, err := Inspect(old)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(in.Notes, "\n")
	if !strings.Contains(notes, `model_catalog_url = "http://127.0.0.1:8787/v1/codex/models"`) || !strings.Contains(notes, "apply_patch") ||
		strings.Contains(notes, "gw init agent") || !strings.Contains(notes, "supports_websockets = false") {
		t.Errorf("notes:\n%s", notes)
	}
	res, err := Merge(old, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := Inspect(res.Data); len(in.Notes) != 0 {
		t.Errorf("after the merge: %q", in.Notes)
	}
}
