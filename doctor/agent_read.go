package doctor

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/modelgateway/gw/config/opencode"
	"github.com/tailscale/hujson"
)

// readAgentConfig lists the openai-compatible providers of one OpenCode config (JSON with comments and
// trailing commas). exists is false when the file is not there.
func readAgentConfig(path string) (provs []agentProvider, exists bool, err error) {
	data, exists, err := opencode.Read(path)
	if err != nil || !exists {
		return nil, exists, err
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, true, fmt.Errorf("%s does not parse: %v", path, err)
	}
	var doc struct {
		Model    string `json:"model"`
		Provider map[string]struct {
			NPM     string `json:"npm"`
			Options struct {
				BaseURL string `json:"baseURL"`
			} `json:"options"`
			Models map[string]json.RawMessage `json:"models"`
		} `json:"provider"`
	}
	if err := json.Unmarshal(std, &doc); err != nil {
		return nil, true, fmt.Errorf("%s: %v", path, err)
	}
	names := make([]string, 0, len(doc.Provider))
	for n := range doc.Provider {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := doc.Provider[n]
		ap := agentProvider{Path: path, Name: n, BaseURL: p.Options.BaseURL}
		for id := range p.Models {
			ap.Models = append(ap.Models, id)
		}
		sort.Strings(ap.Models)
		if m, ok := strings.CutPrefix(doc.Model, n+"/"); ok && m != "" && !slices.Contains(ap.Models, m) {
			ap.Models = append(ap.Models, m)
		}
		provs = append(provs, ap)
	}
	return provs, true, nil
}
