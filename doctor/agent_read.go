package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/config/opencode"
)

// readAgentConfig lists the openai-compatible providers of one OpenCode config. exists is false when the
// file is not there.
func readAgentConfig(path string) (provs []agentProvider, exists bool, err error) {
	data, exists, err := opencode.Read(path)
	if err != nil || !exists {
		return nil, exists, err
	}
	sum, err := opencode.ReadModels(data)
	if err != nil {
		return nil, true, fmt.Errorf("%s does not parse: %v", path, err)
	}
	var keys struct {
		Provider map[string]struct {
			Options struct {
				APIKey string `json:"apiKey"`
			} `json:"options"`
		} `json:"provider"`
	}
	_ = jsonc.Decode(data, &keys)
	for _, p := range sum.Providers {
		ap := agentProvider{Path: path, Name: p.ID, BaseURL: p.BaseURL, Models: slices.Clone(p.Models),
			LiteralKey: p.KeyKind == opencode.KeyLiteral, Disabled: slices.Contains(sum.Disabled, p.ID),
			DeclaredIDs: slices.Clone(p.Models)}
		if p.KeyKind == opencode.KeyLocalToken {
			ap.LocalToken = keys.Provider[p.ID].Options.APIKey
		}
		// "model" and "small_model" name "<provider>/<model id>"; the id itself contains a slash.
		for _, kv := range [][2]string{{"model", sum.Model}, {"small_model", sum.SmallModel}} {
			id, ok := strings.CutPrefix(kv[1], p.ID+"/")
			if !ok || id == "" {
				continue
			}
			if !slices.Contains(p.Models, id) {
				ap.Undeclared = append(ap.Undeclared, fmt.Sprintf("%q is %q", kv[0], kv[1]))
			}
			if !slices.Contains(ap.Models, id) {
				ap.Models = append(ap.Models, id)
			}
		}
		provs = append(provs, ap)
	}
	return provs, true, nil
}

// shadowingSibling: when path has a sibling OpenCode also reads (opencode.json beside opencode.jsonc) and
// that sibling configures provider "gw", the warning and the fix; OpenCode deep-merges the two, so settings
// of the stale one still apply. other is the sibling's path, so a pair is reported once.
func shadowingSibling(path string) (other, warning, fix string) {
	o, ok := opencode.ReadOther(path, opencode.ProviderID)
	if !ok {
		return "", "", ""
	}
	// Unreadable: the check of that file, if asked for, says so.
	return o.Path, o.Problem(), o.Fix()
}
