package opencodefmt

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/config/textedit"
)

// KeyKind says what a provider's apiKey setting holds, without its text.
type KeyKind string

const (
	KeyNone       KeyKind = "none"        // no apiKey
	KeyLocalToken KeyKind = "local token" // gw serve's per-install token
	KeyEnv        KeyKind = "env"         // {env:VAR}
	KeyFile       KeyKind = "file"        // {file:path}
	KeyLiteral    KeyKind = "literal"     // a key written into the file
)

// ProviderInfo describes one OpenAI-compatible provider in a config.
type ProviderInfo struct {
	ID      string
	Name    string
	BaseURL string  // as written, possibly "{env:...}"
	KeyKind KeyKind // never the key itself
	// KeyRef is the variable of {env:VAR} or the path of {file:path};
	// empty for other kinds so that a literal key is never carried.
	KeyRef string
	// LocalToken is the local token written as the key, to compare with
	// gw serve's ("" for other kinds).
	LocalToken string
	Models     []string // ids in file order
}

// Summary is what `gw doctor` needs from an OpenCode config.
type Summary struct {
	Providers  []ProviderInfo // only providers using NPM (@ai-sdk/openai-compatible)
	Model      string         // "model", as written ("provider/model-id")
	SmallModel string         // "small_model"
	Disabled   []string       // "disabled_providers"
	Enabled    []string       // "enabled_providers"; nil when absent
}

var substRef = regexp.MustCompile(`^\{(env|file):([^}]+)\}$`)

// ReadModels lists the OpenAI-compatible providers of an OpenCode config,
// with their base URL, the kind of API key setting and the model ids. An
// unparsable config is a *ParseError with line and column.
func ReadModels(src []byte) (Summary, error) {
	body := textedit.Open(src).Body
	if hujson.Extra(body).IsValid() {
		return Summary{}, nil // empty or only comments: nothing configured
	}
	root, _, _, err := jsonc.ParseValue(body, "\n")
	if err != nil {
		return Summary{}, err
	}
	// Names are matched exactly, as OpenCode (JavaScript) does; a
	// duplicated name counts by its last occurrence, as in JavaScript.
	top, _ := root.Value.(*hujson.Object)
	sum := Summary{
		Model:      jsonc.Str(jsonc.Member(top, "model")),
		SmallModel: jsonc.Str(jsonc.Member(top, "small_model")),
		Disabled:   jsonc.Strs(jsonc.Member(top, "disabled_providers")),
		Enabled:    jsonc.Strs(jsonc.Member(top, "enabled_providers")),
	}
	provs := jsonc.ObjOf(jsonc.Member(top, "provider"))
	if provs == nil {
		return sum, nil
	}
	var seen []string
	for _, m := range provs.Members {
		id := jsonc.MemberName(m)
		if slices.Contains(seen, id) {
			continue
		}
		seen = append(seen, id)
		p := jsonc.ObjOf(jsonc.Member(provs, id))
		if p == nil || jsonc.Str(jsonc.Member(p, "npm")) != NPM {
			continue
		}
		opts := jsonc.ObjOf(jsonc.Member(p, "options"))
		info := ProviderInfo{ID: id, Name: jsonc.Str(jsonc.Member(p, "name")), BaseURL: jsonc.Str(jsonc.Member(opts, "baseURL"))}
		key := jsonc.Str(jsonc.Member(opts, "apiKey"))
		info.KeyKind, info.KeyRef = classifyKey(key)
		if info.KeyKind == KeyLocalToken {
			info.LocalToken = key
		}
		if models := jsonc.ObjOf(jsonc.Member(p, "models")); models != nil {
			for _, mm := range models.Members {
				if name := jsonc.MemberName(mm); !slices.Contains(info.Models, name) {
					info.Models = append(info.Models, name)
				}
			}
		}
		sum.Providers = append(sum.Providers, info)
	}
	return sum, nil
}

func classifyKey(key string) (KeyKind, string) {
	switch {
	case strings.TrimSpace(key) == "":
		return KeyNone, ""
	case strings.HasPrefix(key, config.LocalTokenPrefix):
		return KeyLocalToken, ""
	}
	if m := substRef.FindStringSubmatch(strings.TrimSpace(key)); m != nil {
		if m[1] == "env" {
			return KeyEnv, m[2]
		}
		return KeyFile, m[2]
	}
	return KeyLiteral, ""
}

// References lists, for the user to read, what src sets for the provider
// id, whatever its npm package: `provider "gw"`, `"model" is "gw/…"`,
// `"small_model" is "gw/…"`. Empty when it sets none of them; an
// unparsable config is a *ParseError.
func References(src []byte, id string) ([]string, error) {
	body := textedit.Open(src).Body
	if hujson.Extra(body).IsValid() {
		return nil, nil
	}
	root, _, _, err := jsonc.ParseValue(body, "\n")
	if err != nil {
		return nil, err
	}
	top, _ := root.Value.(*hujson.Object)
	var refs []string
	if jsonc.Member(jsonc.ObjOf(jsonc.Member(top, "provider")), id) != nil {
		refs = append(refs, fmt.Sprintf("provider %q", id))
	}
	for _, k := range []string{"model", "small_model"} {
		if v := jsonc.Str(jsonc.Member(top, k)); strings.HasPrefix(v, id+"/") {
			refs = append(refs, fmt.Sprintf("%q is %q", k, v))
		}
	}
	return refs, nil
}
