package textedit_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
	"github.com/modelgateway/gw/config/agents/claudecode"
	"github.com/modelgateway/gw/config/agents/codex"
	"github.com/modelgateway/gw/config/agents/continuedev"
	"github.com/modelgateway/gw/config/agents/crush"
	"github.com/modelgateway/gw/config/agents/kilo"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/config/textedit"
	"github.com/modelgateway/gw/config/tomledit"
	"github.com/modelgateway/gw/config/yamledit"
)

// A file each editor parses and writes back without an edit comes out byte-identical: its byte-order
// mark, its CRLF line endings, a last line without a newline, its comments.
func TestUneditedRoundTripIsByteIdentical(t *testing.T) {
	jsonFiles := []string{
		textedit.BOM + "{\r\n  // keep me\r\n  \"a\": [1, 2,],\r\n}\r\n",
		textedit.BOM + "{\"a\": 1} // last line without a newline",
		"{\r\n  \"a\": 1\r\n}",
		textedit.BOM + "// only a comment\r\n",
	}
	for _, src := range jsonFiles {
		f, err := jsonc.Parse([]byte(src), jsonc.HuJSON)
		if err != nil {
			t.Fatalf("JSON %q: %v", src, err)
		}
		got := string(f.Pack())
		if f.Fresh {
			// Only comments: a new object follows them, in the file's line ending.
			if want := src + "{}\r\n"; got != want {
				t.Errorf("JSON %q came back as %q, want %q", src, got, want)
			}
		} else if got != src {
			t.Errorf("JSON %q came back as %q", src, got)
		}
	}
	for _, src := range []string{
		textedit.BOM + "# keep me\r\nname: x\r\nmodels:\r\n  - id: a # mine\r\n",
		textedit.BOM + "a: 1",
		"a: 1\r\nb: 2",
	} {
		d, err := yamledit.Parse([]byte(src), "X")
		if err != nil {
			t.Fatalf("YAML %q: %v", src, err)
		}
		if got, err := d.Bytes(); err != nil || string(got) != src {
			t.Errorf("YAML %q came back as %q (%v)", src, got, err)
		}
	}
	for _, src := range []string{
		"# keep me\r\nmodel = 'x' # mine\r\n\r\n[t]\r\nk = 1\r\n",
		"a = 1\r\nb = 2",
	} {
		d, err := tomledit.Parse([]byte(src))
		if err != nil {
			t.Fatalf("TOML %q: %v", src, err)
		}
		if got, err := d.Bytes(); err != nil || string(got) != src {
			t.Errorf("TOML %q came back as %q (%v)", src, got, err)
		}
	}
}

// Merging gw's settings into a file with a byte-order mark and CRLF line endings keeps the mark (once)
// and writes every added line with CRLF, in each format; every line of the user's is still there, and a
// second merge changes nothing.
func TestMergeKeepsBOMAndCRLF(t *testing.T) {
	for _, c := range []struct {
		name  string
		merge agentstest.Merger
		src   string
	}{
		{"JSON (Claude Code)", claudecode.Merge, textedit.BOM + "{\r\n  \"theme\": \"dark\",\r\n  \"env\": {\r\n    \"MINE\": \"1\"\r\n  }\r\n}\r\n"},
		{"JSONC (Kilo)", kilo.Merge, textedit.BOM + "{\r\n  // my theme\r\n  \"theme\": \"dark\",\r\n}\r\n"},
		{"YAML (Continue)", continuedev.Merge, textedit.BOM + "# my config\r\nname: mine\r\nmodels:\r\n  - name: local\r\n    provider: ollama\r\n    model: llama3\r\n"},
		{"TOML (Codex)", codex.Merge, "# my config\r\napproval_policy = \"never\" # keep\r\n\r\n[profiles.fast]\r\nmodel = \"o4-mini\"\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := agentstest.MergeOnce(t, c.merge, []byte(c.src), agentstest.Decl())
			if err != nil {
				t.Fatal(err)
			}
			out := string(res.Data)
			hadBOM := strings.HasPrefix(c.src, textedit.BOM)
			if strings.HasPrefix(out, textedit.BOM) != hadBOM || strings.HasPrefix(out, textedit.BOM+textedit.BOM) {
				t.Errorf("byte-order mark not kept as it was:\n%q", out)
			}
			if n := strings.Count(out, "\n"); n == strings.Count(c.src, "\n") || n != strings.Count(out, "\r\n") {
				t.Errorf("not every line ends with CRLF, or nothing was added:\n%q", out)
			}
			for _, line := range strings.Split(strings.TrimPrefix(c.src, textedit.BOM), "\r\n") {
				if !strings.Contains(out, line) {
					t.Errorf("the user's line %q is gone:\n%s", line, out)
				}
			}
		})
	}
}

// A file that does not parse, or that gw will not edit, reaches the user as the one *agents.ParseError
// (or *agents.ConflictError) whatever its format, with the words each editor has always used.
func TestRefusalsReachTheUserInTheSameWords(t *testing.T) {
	for _, c := range []struct {
		name    string
		merge   agentstest.Merger
		src     string
		parse   bool // a *agents.ParseError, else a *agents.ConflictError
		want    string
		line    int
		column  int
		inspect func([]byte) error // nil, or the agent's Inspect, which refuses it the same way (doctor's words)
	}{
		{"JSON: a mark Crush cannot read", crush.Merge, textedit.BOM + "{}\n", true,
			"line 1, column 1: the file starts with a byte-order mark, which Crush cannot read; save it as UTF-8 without one", 1, 1, inspectWith(crush.Inspect)},
		{"JSON: a comment Crush does not accept", crush.Merge, "{\r\n  // mine\r\n  \"a\": 1\r\n}\r\n", true,
			"line 2, column 3: a // comment, which Crush does not accept", 2, 3, inspectWith(crush.Inspect)},
		{"JSON: a missing comma", claudecode.Merge, textedit.BOM + "{\r\n  \"a\": 1\r\n  \"b\": 2\r\n}\r\n", true,
			"line 3, column 3: invalid character '\"' after object value (expecting ',' or '}')", 3, 3, inspectWith(claudecode.Inspect)},
		{"JSON: a key twice", claudecode.Merge, "{\"env\": {}, \"env\": {}}", false,
			`"env" appears twice in the top-level object (line 1, column 2 and line 1, column 13); remove one of them`, 0, 0, nil},
		{"TOML: a mark", codex.Merge, textedit.BOM + "model = \"x\"\n", true,
			"line 1, column 1: the file starts with a byte-order mark, which TOML does not allow; save it as UTF-8 without one", 1, 1, inspectWith(codex.Inspect)},
		{"TOML: a missing value", codex.Merge, "# mine\r\nmodel = \r\n", true,
			"line 2, column 9: toml: unexpected character U+000D at start of value", 2, 9, inspectWith(codex.Inspect)},
		{"TOML: a key twice", codex.Merge, "model = \"a\"\nmodel = \"b\"\n", true,
			"line 2, column 1: toml: key model is already defined", 2, 1, inspectWith(codex.Inspect)},
		{"TOML: a table gw edits written inline", codex.Merge, "model_providers = { gw = { name = \"x\" } }\n", false,
			"model_providers is written as a value (line 1, column 1); gw edits a [model_providers.gw] table only, so rewrite it as one or remove it", 0, 0, nil},
		{"YAML: a lone carriage return", continuedev.Merge, textedit.BOM + "name: a\rmodels: []\n", true,
			"line 1, column 8: a carriage return without a line feed; save the file with LF or CRLF line endings", 1, 8, inspectWith(continuedev.Inspect)},
		{"YAML: an unclosed list", continuedev.Merge, "name: a\r\nmodels: [\r\n", true,
			"line 2, column 1: did not find expected node content", 2, 1, inspectWith(continuedev.Inspect)},
		{"YAML: a key twice", continuedev.Merge, "name: a\nname: b\n", true,
			`line 2, column 1: mapping key "name" already defined at line 1`, 2, 1, inspectWith(continuedev.Inspect)},
		{"YAML: a flow mapping", continuedev.Merge, "{name: a}\n", false,
			"the config is written as one {…} flow mapping; gw edits block YAML only, so rewrite it with one key per line", 0, 0, inspectWith(continuedev.Inspect)},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.src)
			_, err := agentstest.MergeOnce(t, c.merge, src, agentstest.Decl())
			check := func(what string, err error) {
				t.Helper()
				var pe *agents.ParseError
				var ce *agents.ConflictError
				switch {
				case err == nil:
					t.Fatalf("%s: accepted", what)
				case c.parse && !errors.As(err, &pe):
					t.Fatalf("%s: %T %v, want a *agents.ParseError", what, err, err)
				case !c.parse && !errors.As(err, &ce):
					t.Fatalf("%s: %T %v, want a *agents.ConflictError", what, err, err)
				}
				t.Logf("%s: %q", what, err.Error())
				if err.Error() != c.want {
					t.Errorf("%s:\ngot  %q\nwant %q", what, err.Error(), c.want)
				}
				if pe != nil && (pe.Line != c.line || pe.Column != c.column) {
					t.Errorf("%s: at line %d, column %d, want %d, %d", what, pe.Line, pe.Column, c.line, c.column)
				}
			}
			check("merge", err)
			if c.inspect != nil {
				check("inspect", c.inspect(src))
			}
			if !bytes.Equal(src, []byte(c.src)) {
				t.Error("the input was changed")
			}
		})
	}
}

func inspectWith[T any](f func([]byte) (T, error)) func([]byte) error {
	return func(src []byte) error { _, err := f(src); return err }
}
