package opencode

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// OpenCode (checked against 1.18.x) reads both opencode.json and
// opencode.jsonc of a directory, in that order, and deep-merges them: a key
// set in opencode.jsonc wins, but a key only opencode.json sets (a header, a
// model, "model") still applies. Find prefers opencode.jsonc for that reason.

// Sibling is the other config file OpenCode reads from path's directory
// (opencode.json for opencode.jsonc and the reverse), and whether it is
// read after path and so wins key by key. ok is false for any other name.
func Sibling(path string) (other string, otherWins, ok bool) {
	dir, base := filepath.Split(path)
	switch base {
	case "opencode.jsonc":
		return filepath.Join(dir, "opencode.json"), false, true
	case "opencode.json":
		return filepath.Join(dir, "opencode.jsonc"), true, true
	}
	return "", false, false
}

// References lists, for the user to read, what src sets for the provider
// id, whatever its npm package: `provider "gw"`, `"model" is "gw/…"`,
// `"small_model" is "gw/…"`. Empty when it sets none of them; an
// unparsable config is a *ParseError.
func References(src []byte, id string) ([]string, error) {
	body := bytes.TrimPrefix(src, []byte(bom))
	if hujson.Extra(body).IsValid() {
		return nil, nil
	}
	root, _, _, err := parseDoc(bytes.Clone(body), "\n")
	if err != nil {
		return nil, err
	}
	top, _ := root.Value.(*hujson.Object)
	var refs []string
	if member(objOf(member(top, "provider")), id) != nil {
		refs = append(refs, fmt.Sprintf("provider %q", id))
	}
	for _, k := range []string{"model", "small_model"} {
		if v := str(member(top, k)); strings.HasPrefix(v, id+"/") {
			refs = append(refs, fmt.Sprintf("%q is %q", k, v))
		}
	}
	return refs, nil
}
