package codex

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// codexRequired are the fields Codex 0.169.0 refuses a catalog entry without ("missing field"), found by
// feeding it entries with one field fewer each time; and base_instructions, which it requires unless the
// entry has an instructions template.
var codexRequired = []string{
	"slug", "display_name", "context_window", "apply_patch_tool_type", "shell_type", "visibility",
	"supported_in_api", "priority", "input_modalities", "supported_reasoning_levels", "truncation_policy",
	"supports_parallel_tool_calls", "support_verbosity", "experimental_supported_tools", "base_instructions",
}

func TestCatalog(t *testing.T) {
	d := agentstest.Decl()
	d.Models[2].Attachment = false
	b, err := Catalog(d.Models)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Models []map[string]any `json:"models"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Models) != len(d.Models) {
		t.Fatalf("%d models, want %d", len(c.Models), len(d.Models))
	}
	for i, e := range c.Models {
		m := d.Models[i]
		for _, f := range codexRequired {
			if _, ok := e[f]; !ok {
				t.Errorf("%s: no %s", m.ID, f)
			}
		}
		if e["slug"] != m.ID || e["context_window"] != float64(m.Context) || e["apply_patch_tool_type"] != "freeform" ||
			e["prefer_websockets"] != false || e["visibility"] != "list" {
			t.Errorf("%s: %v", m.ID, e)
		}
		images := strings.Contains(strings.Join(strs(e["input_modalities"]), ","), "image")
		if images != m.Attachment {
			t.Errorf("%s: input_modalities %v, attachment %v", m.ID, e["input_modalities"], m.Attachment)
		}
		levels, _ := e["supported_reasoning_levels"].([]any)
		if (len(levels) > 0) != m.Reasoning || (e["default_reasoning_level"] != nil) != m.Reasoning {
			t.Errorf("%s: reasoning levels %v default %v, reasoning %v", m.ID, levels, e["default_reasoning_level"], m.Reasoning)
		}
		if in, _ := e["base_instructions"].(string); !strings.Contains(in, "apply_patch") {
			t.Errorf("%s: base instructions do not mention apply_patch: %q", m.ID, in)
		}
	}
	if b, _ := Catalog(nil); string(b) != `{"models":[]}` {
		t.Errorf("no models: %s", b)
	}
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestCatalogURL(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:8787/v1":  "http://127.0.0.1:8787/v1/codex/models",
		"http://127.0.0.1:8787/v1/": "http://127.0.0.1:8787/v1/codex/models",
	} {
		if got := CatalogURL(base); got != want {
			t.Errorf("CatalogURL(%q) = %q", base, got)
		}
	}
}
