package opencode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
)

func TestSibling(t *testing.T) {
	dir := filepath.Join("a", "b")
	other, wins, ok := Sibling(filepath.Join(dir, "opencode.jsonc"))
	if !ok || wins || other != filepath.Join(dir, "opencode.json") {
		t.Errorf("Sibling(opencode.jsonc) = %q, %v, %v; want opencode.json, read first", other, wins, ok)
	}
	other, wins, ok = Sibling(filepath.Join(dir, "opencode.json"))
	if !ok || !wins || other != filepath.Join(dir, "opencode.jsonc") {
		t.Errorf("Sibling(opencode.json) = %q, %v, %v; want opencode.jsonc, read last", other, wins, ok)
	}
	if _, _, ok := Sibling(filepath.Join(dir, "custom.json")); ok {
		t.Error("Sibling(custom.json) has a sibling; OpenCode pairs only opencode.json and opencode.jsonc")
	}
}

// The other file OpenCode reads beside a config, said one way for gw init agent and gw doctor.
func TestReadOther(t *testing.T) {
	dir := t.TempDir()
	json, jsonc := filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := ReadOther(jsonc, agents.ProviderID); ok {
		t.Fatal("ReadOther found an opencode.json that does not exist")
	}
	if _, ok := ReadOther(filepath.Join(dir, "custom.json"), agents.ProviderID); ok {
		t.Fatal("ReadOther paired custom.json")
	}

	write(json, `{"provider": {"gw": {}}, "model": "gw/vendor-a/m"}`)
	o, ok := ReadOther(jsonc, agents.ProviderID)
	if !ok || o.Path != json || o.Wins || o.Err != nil {
		t.Fatalf("ReadOther(opencode.jsonc) = %+v, %v", o, ok)
	}
	wantProblem := json + ` also sets provider "gw" and "model" is "gw/vendor-a/m"; OpenCode reads opencode.json, then opencode.jsonc, and merges them key by key, so what only opencode.json sets (more models, headers, "model") still applies`
	if o.Problem() != wantProblem {
		t.Errorf("Problem = %q\nwant      %q", o.Problem(), wantProblem)
	}
	if want := `remove the "gw" provider (and "model"/"small_model" naming it) from ` + json + `, or merge the two files into one`; o.Fix() != want {
		t.Errorf("Fix = %q\nwant  %q", o.Fix(), want)
	}

	// Beside opencode.json, opencode.jsonc is read last and wins.
	write(jsonc, `{"provider": {"gw": {}}}`)
	o, _ = ReadOther(json, agents.ProviderID)
	if !o.Wins || !strings.HasSuffix(o.Problem(), "so what opencode.jsonc sets overrides "+json) {
		t.Errorf("ReadOther(opencode.json) = %+v; Problem %q", o, o.Problem())
	}

	// Nothing for gw: no problem, a note naming which file wins.
	write(jsonc, `{"theme": "light"}`)
	o, _ = ReadOther(json, agents.ProviderID)
	if o.Problem() != "" || o.Fix() != "" || o.Note() != "OpenCode also reads "+jsonc+" and merges it with "+json+" (where both set a key, opencode.jsonc wins)" {
		t.Errorf("Problem %q, Fix %q, Note %q", o.Problem(), o.Fix(), o.Note())
	}

	// Broken: the note says where.
	write(jsonc, "{\n  \"theme\": \n")
	o, _ = ReadOther(json, agents.ProviderID)
	var pe *agents.ParseError
	if !errors.As(o.Err, &pe) || !strings.HasPrefix(o.Note(), "OpenCode also reads "+jsonc+", which does not parse (3:") {
		t.Errorf("Err %v, Note %q", o.Err, o.Note())
	}
}
