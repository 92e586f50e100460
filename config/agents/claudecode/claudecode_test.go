package claudecode

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

func TestMergeCorpus(t *testing.T) {
	agentstest.Corpus(t, Merge, nil, func(t *testing.T, src []byte, res agents.Result) {
		agentstest.JSONKept(t, src, res.Data, "/env")
		in, err := Inspect(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		d := agentstest.Decl()
		if in.BaseURL != "http://127.0.0.1:8787" || in.LocalToken != d.Token || in.Default != d.Default || in.Small != d.Small {
			t.Errorf("read back %+v", in)
		}
	})
}

// The env block's other variables stay, in their order, with their values.
func TestMergeKeepsOtherVariables(t *testing.T) {
	src := []byte("{\n  \"env\": {\n    \"A\": \"1\",\n    \"ANTHROPIC_MODEL\": \"old\",\n    \"B\": \"2\"\n  }\n}\n")
	res, err := agentstest.MergeOnce(t, Merge, src, agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	s := string(res.Data)
	if !(strings.Index(s, `"A": "1"`) < strings.Index(s, `"ANTHROPIC_MODEL": "vendor-a/model-a-opus-4.6"`) &&
		strings.Index(s, `"ANTHROPIC_MODEL"`) < strings.Index(s, `"B": "2"`)) {
		t.Errorf("order not kept:\n%s", s)
	}
}

// A comment is refused at its position: Claude Code would reject the file.
func TestCommentRefusedWithPosition(t *testing.T) {
	_, err := Merge([]byte("{\n  \"env\": {}, // here\n}\n"), agentstest.Decl())
	var pe *agents.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 14 {
		t.Fatalf("got %v", err)
	}
}

func TestRunTokenOnlyInEnv(t *testing.T) {
	d := agentstest.Decl()
	spec, err := agent{}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range spec.Args {
		if strings.Contains(a, d.Token) {
			t.Fatalf("token in an argument: %q", a)
		}
	}
	want := []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:8787", "ANTHROPIC_AUTH_TOKEN=" + d.Token, "ANTHROPIC_MODEL=" + d.Default, "ANTHROPIC_SMALL_FAST_MODEL=" + d.Small}
	for _, w := range want {
		if !strings.Contains(strings.Join(spec.Env, "\n"), w) {
			t.Errorf("env lacks %s: %q", w, spec.Env)
		}
	}
	if len(spec.Args) != 2 || spec.Args[0] != "--settings" || !strings.Contains(spec.Args[1], `"ANTHROPIC_BASE_URL":"http://127.0.0.1:8787"`) {
		t.Errorf("args %q", spec.Args)
	}
}

func TestPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, _ := Path(agents.Global, agents.Place{Getenv: env(map[string]string{"HOME": "/h"})})
	if p != "/h/.claude/settings.json" {
		t.Error(p)
	}
	p, _ = Path(agents.Global, agents.Place{Getenv: env(map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c"})})
	if p != "/c/settings.json" {
		t.Error(p)
	}
	p, _ = Path(agents.Project, agents.Place{Getenv: env(nil), WorkDir: "/w"})
	if p != "/w/.claude/settings.local.json" {
		t.Error(p)
	}
}

// gw's status line is added where the settings have none, and a user's own
// statusLine is kept byte for byte: the file differs from a merge without
// a status line nowhere.
func TestStatusLineOnlyWhereTheUserHasNone(t *testing.T) {
	d := agentstest.Decl()
	d.StatusLine = "gw statusline"
	res, err := Merge([]byte("{\n  \"theme\": \"dark\"\n}\n"), d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Data), `"statusLine": {"type": "command", "command": "gw statusline"}`) {
		t.Errorf("no status line added:\n%s", res.Data)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[len(res.Notes)-1], "gw statusline") {
		t.Errorf("notes %q do not say the status line was added", res.Notes)
	}
	again, err := Merge(res.Data, d)
	if err != nil || again.Changed {
		t.Errorf("a second merge changed the file (%v):\n%s", err, again.Data)
	}

	for _, own := range []string{
		`{"type": "command", "command": "~/.claude/statusline.sh", "padding": 0}`,
		`{"type":"command","command":"bunx ccusage statusline"}`,
		`null`,
		`"not an object"`,
	} {
		src := []byte("{\n  \"statusLine\": " + own + ",\n  \"theme\": \"dark\"\n}\n")
		with, err := Merge(src, d)
		if err != nil {
			t.Fatal(err)
		}
		without, err := Merge(src, agentstest.Decl())
		if err != nil {
			t.Fatal(err)
		}
		if string(with.Data) != string(without.Data) || !strings.Contains(string(with.Data), `"statusLine": `+own+",") {
			t.Errorf("the user's statusLine %s was not kept as it was:\n%s", own, with.Data)
		}
		if strings.Contains(strings.Join(with.Notes, "\n"), "status line") {
			t.Errorf("notes say a status line was added: %q", with.Notes)
		}
	}
}
