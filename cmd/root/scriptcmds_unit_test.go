package root

import (
	"encoding/json"
	"testing"
)

// The json script command's paths and matching, on the shape of gw doctor --json.
func TestJSONAt(t *testing.T) {
	var doc any
	src := `{"ok": false, "checks": [
		{"id": "key", "status": "fail", "cause": "the key \"x\"", "n": 3},
		{"id": "model:vendor-a/m-4.5", "status": "pass", "ok": true}]}`
	if err := json.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		match      bool
	}{
		{"ok", "false", true},
		{"ok", "true", false},
		{"checks.#", "2", true},
		{"checks[0].id", "key", true},
		{"checks[id=key].cause", `the key "x"`, true},
		{"checks[id=key].n", "3", true},
		{"checks[id=model:vendor-a/m-4.5].status", "pass", true},
		{"checks[id=model:vendor-a/m-4.5].ok", "true", true},
		{"checks[id=key]", `{"status": "fail", "n": 3}`, true},
		{"checks[id=key]", `{"status": "fail", "n": 4}`, false},
		{"checks[id=key]", `{"status": "fail", "fix": null}`, false}, // a field that is not there is not null
	} {
		got, err := jsonAt(doc, tc.path)
		if err != nil {
			t.Errorf("jsonAt(%s): %v", tc.path, err)
			continue
		}
		if ok, why := jsonMatches(got, tc.want, nil); ok != tc.match {
			t.Errorf("jsonMatches(%s, %s) = %v (%s), want %v", tc.path, tc.want, ok, why, tc.match)
		}
	}
	for _, path := range []string{"nope", "checks[2]", "checks[id=none]", "ok.x", "checks[id=key].fix", "checks[0"} {
		if got, err := jsonAt(doc, path); err == nil {
			t.Errorf("jsonAt(%s) = %v, want an error", path, got)
		}
	}
}

// On Windows scrub writes the paths under the work directory with slashes, as the goldens have them; the
// rest of the text keeps its backslashes.
func TestSlashWorkPaths(t *testing.T) {
	got := slashWorkPaths(`Wrote $WORK\home\.config\gw\config.json: ok ('$WORK\a b'), C:\other\x [$WORK\c\d]`)
	want := `Wrote $WORK/home/.config/gw/config.json: ok ('$WORK/a b'), C:\other\x [$WORK/c/d]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
