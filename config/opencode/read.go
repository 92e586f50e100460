package opencode

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
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

// LocalTokenPrefix starts every local token of gw serve.
const LocalTokenPrefix = "gw-local-"

// ProviderInfo describes one OpenAI-compatible provider in a config.
type ProviderInfo struct {
	ID      string
	Name    string
	BaseURL string  // as written, possibly "{env:...}"
	KeyKind KeyKind // never the key itself
	// KeyRef is the variable of {env:VAR} or the path of {file:path};
	// empty for other kinds so that a literal key is never carried.
	KeyRef string
	Models []string // ids in file order
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
	body := bytes.TrimPrefix(src, []byte(bom))
	if hujson.Extra(body).IsValid() {
		return Summary{}, nil // empty or only comments: nothing configured
	}
	root, _, _, err := parseDoc(bytes.Clone(body), "\n")
	if err != nil {
		return Summary{}, err
	}
	root.Standardize()
	var cfg struct {
		Model      string   `json:"model"`
		SmallModel string   `json:"small_model"`
		Disabled   []string `json:"disabled_providers"`
		Enabled    []string `json:"enabled_providers"`
	}
	var raw struct {
		Provider map[string]json.RawMessage `json:"provider"`
	}
	packed := root.Pack()
	// Type mismatches in fields we do not need are not our concern; decode
	// what we can.
	_ = json.Unmarshal(packed, &cfg)
	_ = json.Unmarshal(packed, &raw)

	sum := Summary{Model: cfg.Model, SmallModel: cfg.SmallModel, Disabled: cfg.Disabled, Enabled: cfg.Enabled}
	for _, id := range providerOrder(root) {
		var pr struct {
			NPM     string `json:"npm"`
			Name    string `json:"name"`
			Options struct {
				BaseURL any `json:"baseURL"`
				APIKey  any `json:"apiKey"`
			} `json:"options"`
		}
		msg, ok := raw.Provider[id]
		if !ok || json.Unmarshal(msg, &pr) != nil || pr.NPM != NPM {
			continue
		}
		info := ProviderInfo{ID: id, Name: pr.Name, Models: modelOrder(msg)}
		info.BaseURL, _ = pr.Options.BaseURL.(string)
		key, _ := pr.Options.APIKey.(string)
		info.KeyKind, info.KeyRef = classifyKey(key)
		sum.Providers = append(sum.Providers, info)
	}
	return sum, nil
}

func classifyKey(key string) (KeyKind, string) {
	switch {
	case strings.TrimSpace(key) == "":
		return KeyNone, ""
	case strings.HasPrefix(key, LocalTokenPrefix):
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

// providerOrder lists provider ids in file order (a Go map would lose it).
func providerOrder(root hujson.Value) []string {
	p := root.Find("/provider")
	if p == nil {
		return nil
	}
	o, ok := p.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	var ids []string
	for _, m := range o.Members {
		// A duplicated id is listed once: OpenCode, like encoding/json,
		// uses the last one.
		if name := memberName(m); !slices.Contains(ids, name) {
			ids = append(ids, name)
		}
	}
	return ids
}

func modelOrder(provider json.RawMessage) []string {
	v, err := hujson.Parse(provider)
	if err != nil {
		return nil
	}
	m := v.Find("/models")
	if m == nil {
		return nil
	}
	o, ok := m.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	ids := make([]string, 0, len(o.Members))
	for _, mem := range o.Members {
		ids = append(ids, memberName(mem))
	}
	return ids
}
