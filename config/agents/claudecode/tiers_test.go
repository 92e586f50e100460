package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

// decl declares ids as the catalogue describes them, through gw serve.
func decl(t *testing.T, def, small string, ids ...string) agents.Declaration {
	t.Helper()
	d := agents.Declaration{Mode: agents.Proxy, BaseURL: "http://127.0.0.1:8787/v1", Token: agentstest.Token, Default: def, Small: small}
	for _, id := range ids {
		m, known := agents.ModelFor(id, nil)
		if !known {
			t.Fatalf("%s is not in the catalogue", id)
		}
		d.Models = append(d.Models, m)
	}
	return d
}

// slotIDs are the Opus, Sonnet and Haiku slots' model ids and where each was borrowed from.
func slotIDs(d agents.Declaration) [3][2]string {
	var out [3][2]string
	for i, s := range Slots(d) {
		out[i] = [2]string{s.Model.ID, s.From}
	}
	return out
}

const (
	opus46     = "vendor-a/model-a-opus-4.6"
	opus45t    = "vendor-a/model-a-opus-4.5-thinking"
	sonnet46   = "vendor-a/model-a-sonnet-4.6"
	sonnet45   = "vendor-a/model-a-sonnet-4.5"
	sonnet45t  = "vendor-a/model-a-sonnet-4.5-thinking"
	haiku45    = "vendor-a/model-a-haiku-4.5"
	flash      = "vendor-b/model-b-3-flash-preview"
	pro        = "vendor-b/model-b-3-pro-preview"
	fromNone   = ""
	fromDefRun = "default"
)

func TestSlotsHoldTheirClass(t *testing.T) {
	for _, tc := range []struct {
		name      string
		def       string
		ids       []string
		want      [3][2]string
		borrowing bool
	}{
		{"the whole catalogue: the newest plain model of each class", "", api.CatalogIDs(),
			[3][2]string{{opus46, fromNone}, {sonnet46, fromNone}, {haiku45, fromNone}}, false},
		// The bug this fixes: with --models sonnet,haiku the Haiku slot held Sonnet.
		{"sonnet and haiku: Opus borrows Sonnet's", sonnet46, []string{sonnet46, haiku45},
			[3][2]string{{sonnet46, Sonnet}, {sonnet46, fromNone}, {haiku45, fromNone}}, true},
		{"no haiku: Sonnet's before Opus's", opus46, []string{opus46, sonnet45},
			[3][2]string{{opus46, fromNone}, {sonnet45, fromNone}, {sonnet45, Sonnet}}, true},
		{"only opus: every slot", opus46, []string{opus46, flash},
			[3][2]string{{opus46, fromNone}, {opus46, Opus}, {opus46, Opus}}, true},
		{"only haiku: Sonnet borrows it", haiku45, []string{haiku45},
			[3][2]string{{haiku45, Haiku}, {haiku45, Haiku}, {haiku45, fromNone}}, true},
		{"no class at all: the default model", pro, []string{flash, pro},
			[3][2]string{{pro, fromDefRun}, {pro, fromDefRun}, {pro, fromDefRun}}, true},
		{"a thinking model only when it is newer", sonnet45, []string{sonnet45t, sonnet45, opus45t},
			[3][2]string{{opus45t, fromNone}, {sonnet45, fromNone}, {sonnet45, Sonnet}}, true},
		{"the default model holds its own class's slot", sonnet45, []string{sonnet46, sonnet45, haiku45, opus46},
			[3][2]string{{opus46, fromNone}, {sonnet45, fromNone}, {haiku45, fromNone}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decl(t, tc.def, "", tc.ids...)
			if got := slotIDs(d); got != tc.want {
				t.Errorf("slots %v, want %v", got, tc.want)
			}
			spec, err := agent{}.Run(d)
			if err != nil {
				t.Fatal(err)
			}
			if (len(spec.Notes) > 0) != tc.borrowing {
				t.Errorf("gw run's notes %q, want some: %v", spec.Notes, tc.borrowing)
			}
		})
	}
}

func TestClassOf(t *testing.T) {
	for id, want := range map[string]string{
		opus45t: Opus, sonnet46: Sonnet, haiku45: Haiku, flash: "", "claude-3-5-haiku-20241022": Haiku,
		"vendor/opusculum-1": "", "vendor-a/model-a-Sonnet-5": Sonnet, "": "", "/": "", "opus/model-x": "",
	} {
		if got := ClassOf(id); got != want {
			t.Errorf("ClassOf(%q) = %q, want %q", id, got, want)
		}
	}
}

// What the settings file gets: the Haiku slot holds Haiku with --models sonnet,haiku, background tasks
// follow it unless a small model is chosen, and the output limit fits every model Claude Code may send it to.
func TestMergeWritesTiers(t *testing.T) {
	env := func(t *testing.T, data []byte) map[string]string {
		t.Helper()
		var s struct{ Env map[string]string }
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		return s.Env
	}
	d := decl(t, sonnet46, "", sonnet46, haiku45)
	res, err := Merge(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	e := env(t, res.Data)
	if e[EnvModel] != sonnet46 || e[EnvHaiku] != haiku45 || e[EnvHaiku+nameSuffix] != "Model A Haiku 4.5" || e[EnvOpus] != sonnet46 || e[EnvSonnet] != sonnet46 {
		t.Errorf("env %v", e)
	}
	if _, ok := e[EnvSmallFast]; ok {
		t.Errorf("%s written without a chosen small model: %v", EnvSmallFast, e)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, w := range []string{"Opus " + sonnet46 + " (no Opus-class model; Sonnet's)", "Haiku " + haiku45, "background tasks: " + haiku45 + " (the Haiku tier"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	in, _ := Inspect(res.Data)
	if in.Default != sonnet46 || in.Small != "" {
		t.Errorf("read back default %q small %q", in.Default, in.Small)
	}

	// A chosen small model: written, read back, and dropped again when a later run chooses none.
	d.Small = haiku45
	res, err = Merge(res.Data, d)
	if err != nil {
		t.Fatal(err)
	}
	if e := env(t, res.Data); e[EnvSmallFast] != haiku45 {
		t.Errorf("env %v", e)
	}
	if in, _ := Inspect(res.Data); in.Small != haiku45 {
		t.Errorf("small read back %q", in.Small)
	}
	d.Small = ""
	res, err = Merge(res.Data, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := env(t, res.Data)[EnvSmallFast]; ok {
		t.Errorf("%s kept:\n%s", EnvSmallFast, res.Data)
	}

	// Opus 4.6 writes 128k, Haiku 64k: the limit sent to both is Haiku's.
	res, err = Merge(nil, decl(t, opus46, "", opus46, haiku45))
	if err != nil {
		t.Fatal(err)
	}
	if e := env(t, res.Data); e[EnvMaxOutput] != "64000" || e[EnvCompact] != "1000000" {
		t.Errorf("limits %s=%s %s=%s", EnvMaxOutput, e[EnvMaxOutput], EnvCompact, e[EnvCompact])
	}
}

// gw run always names the background model, so that its --settings wins over one a settings file names.
func TestRunNamesTheBackgroundModel(t *testing.T) {
	spec, err := agent{}.Run(decl(t, sonnet46, "", sonnet46, haiku45))
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Env map[string]string }
	if err := json.Unmarshal([]byte(spec.Args[1]), &s); err != nil {
		t.Fatal(err)
	}
	if s.Env[EnvSmallFast] != haiku45 || s.Env[EnvHaiku] != haiku45 {
		t.Errorf("--settings %s", spec.Args[1])
	}
	if !strings.Contains(strings.Join(spec.Env, "\n"), EnvSmallFast+"="+haiku45) {
		t.Errorf("env %q", spec.Env)
	}
}
