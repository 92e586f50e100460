package doctor

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
	for _, p := range sum.Providers {
		ap := agentProvider{Path: path, Name: p.ID, BaseURL: p.BaseURL, Models: slices.Clone(p.Models),
			LiteralKey: p.KeyKind == opencode.KeyLiteral, Disabled: slices.Contains(sum.Disabled, p.ID),
			DeclaredIDs: slices.Clone(p.Models)}
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
	other, otherWins, ok := opencode.Sibling(path)
	if !ok {
		return "", "", ""
	}
	data, exists, err := opencode.Read(other)
	if err != nil || !exists {
		return other, "", "" // nothing there, or unreadable: the check of that file, if asked for, says so
	}
	refs, err := opencode.References(data, opencode.ProviderID)
	if err != nil || len(refs) == 0 {
		return other, "", ""
	}
	shared := fmt.Sprintf("%s also sets %s; OpenCode reads opencode.json, then opencode.jsonc, and merges them key by key", other, strings.Join(refs, " and "))
	if otherWins {
		warning = shared + ", so what " + filepath.Base(other) + " sets overrides " + path
		fix = fmt.Sprintf("keep provider %q in one file: remove it from %s or from %s, or merge the two files into one", opencode.ProviderID, path, other)
	} else {
		warning = shared + ", so what only " + filepath.Base(other) + ` sets (more models, headers, "model") still applies`
		fix = fmt.Sprintf("remove the %q provider (and \"model\"/\"small_model\" naming it) from %s, or merge the two files into one", opencode.ProviderID, other)
	}
	return other, warning, fix
}
