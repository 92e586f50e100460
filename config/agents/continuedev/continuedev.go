// Package continuedev writes gw into Continue's config.yaml (the Continue
// CLI, cn, and the IDE extensions share it): one entry per model under
// "models" with provider openai, apiBase, apiKey, roles, capabilities
// [tool_use] — without it Continue never offers tools to the model — and
// defaultCompletionOptions with the context length and output limit.
//
// Checked against the Continue CLI 1.5.47 (@continuedev/cli): it reads
// $CONTINUE_GLOBAL_DIR/config.yaml (default ~/.continue/config.yaml), or a
// file given with --config; there is no project config file for models.
// "${{ secrets.NAME }}" in a local config resolves from the environment
// (then ~/.continue/.env, .continue/.env, .env), which direct mode uses for
// the key. The file must have "name" and "version" (Continue's schema).
// gw's entries are those whose apiKey is a local token or the secret
// GW_API_KEY; they are rewritten whole when they change.
package continuedev

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/yamledit"
)

const (
	displayName   = "Continue"
	testedVersion = "1.5.47 (cn)"
)

// Agent describes Continue for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: Merge, InspectFile: Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "continue", Display: displayName, Binary: "cn", Version: testedVersion,
		UserAgents: []string{"continue"},
		Install:    "npm install -g @continuedev/cli", Entry: `gw's entries in "models"`,
		Protocol: agents.ChatCompletions,
		NoRun:    "Continue takes its models only from a config file",
	}
}

// ChoosesOwn: it starts with the first chat model (its merge warns when that is not gw's default).
func (agent) ChoosesOwn() (def, small bool) { return true, false }

// Path is config.yaml; Continue has no project config for models.
func Path(s agents.Scope, e agents.Place) (string, error) {
	switch s {
	case agents.Global:
		return e.HomeOr("CONTINUE_GLOBAL_DIR", ".continue", "config.yaml")
	case agents.Project:
		return "", errors.New("Continue reads its models from ~/.continue/config.yaml only; run without --project")
	}
	return "", fmt.Errorf("unknown scope %q", s)
}

var secretRef = regexp.MustCompile(`^\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$`)

func apiKey(d agents.Declaration) string {
	if d.Mode == agents.Direct {
		return "${{ secrets." + d.KeyVar() + " }}"
	}
	return d.Token
}

// ours: an entry gw wrote (its key is a local token or the GW_API_KEY secret).
func ours(n *yaml.Node) bool {
	k := strings.TrimSpace(yamledit.Get(n, "apiKey"))
	if strings.HasPrefix(k, config.LocalTokenPrefix) {
		return true
	}
	m := secretRef.FindStringSubmatch(k)
	return m != nil && m[1] == agents.DefaultKeyEnv
}

func modelID(n *yaml.Node) string { return yamledit.Get(n, "model") }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func num(n int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(n)}
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

func list(vals ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vals {
		n.Content = append(n.Content, str(v))
	}
	return n
}

func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, str(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

// entry is gw's model entry; name keeps a name the user gave it.
func entry(d agents.Declaration, m agents.Model, name string) *yaml.Node {
	if name == "" {
		name = m.Name
	}
	caps := []string{"tool_use"}
	if m.Attachment {
		caps = append(caps, "image_input")
	}
	opts := mapping("contextLength", num(m.Context), "maxTokens", num(m.Output))
	if m.Reasoning {
		opts.Content = append(opts.Content, str("reasoning"), boolean(true))
	}
	return mapping(
		"name", str(name),
		"provider", str("openai"),
		"model", str(m.ID),
		"apiBase", str(d.BaseURL),
		"apiKey", str(apiKey(d)),
		"roles", list("chat", "edit", "apply"),
		"capabilities", list(caps...),
		"defaultCompletionOptions", opts,
	)
}

// Merge writes d into config.yaml src (nil or empty: a new file).
func Merge(src []byte, d agents.Declaration) (agents.Result, error) {
	if err := d.Validate(); err != nil {
		return agents.Result{}, err
	}
	doc, err := yamledit.Parse(src, displayName)
	if err != nil {
		return agents.Result{}, err
	}
	before, err := Inspect(src)
	if err != nil {
		return agents.Result{}, err
	}
	// Names the user gave gw's entries are kept.
	names := map[string]string{}
	if top := doc.Top(); top != nil {
		if models := yamledit.Value(top, "models"); models != nil && models.Kind == yaml.SequenceNode {
			for _, it := range models.Content {
				if it.Kind == yaml.MappingNode && ours(it) {
					names[modelID(it)] = yamledit.Get(it, "name")
				}
			}
		}
	}
	if err := doc.SetTop([]yamledit.Scalar{
		{Key: "name", Val: "Local Config", OnlyIfMissing: true},
		{Key: "version", Val: "1.0.0", OnlyIfMissing: true},
		{Key: "schema", Val: "v1", OnlyIfMissing: true},
	}); err != nil {
		return agents.Result{}, err
	}
	// The default model first: Continue starts with the first chat model.
	order := slices.Clone(d.Models)
	def := d.DefaultModel()
	order = slices.DeleteFunc(order, func(m agents.Model) bool { return m.ID == def.ID })
	order = append([]agents.Model{def}, order...)
	var wants []yamledit.Item
	for _, m := range order {
		wants = append(wants, yamledit.Item{ID: m.ID, Node: entry(d, m, names[m.ID])})
	}
	res := agents.Result{Created: !before.Configured}
	res.Added, res.Removed, res.Updated, err = doc.SyncList("models", ours, modelID, wants)
	if err != nil {
		return agents.Result{}, err
	}
	out, err := doc.Bytes()
	if err != nil {
		return agents.Result{}, err
	}
	res.Data, res.Changed = out, string(out) != string(src)
	after, err := Inspect(out)
	if err := d.CheckMerged("the merged config", after, err); err != nil {
		return agents.Result{}, err
	}
	if w := firstChat(out); w != "" {
		name := names[def.ID]
		if name == "" {
			name = def.Name
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("Continue starts with the first chat model of the list, %q, which is not gw's; pick %q with /model in cn once (it remembers the choice)", w, name))
	}
	if d.Mode == agents.Direct {
		res.Warnings = append(res.Warnings, fmt.Sprintf("Continue reads the key from %s (the environment, or ~/.continue/.env): set it where Continue starts", d.KeyVar()))
	}
	return res, nil
}

// Inspect reads gw's entries back from config.yaml.
func Inspect(src []byte) (agents.Inspection, error) {
	doc, err := yamledit.Parse(src, displayName)
	if err != nil {
		return agents.Inspection{}, err
	}
	var in agents.Inspection
	models := yamledit.Value(doc.Top(), "models")
	if models == nil || models.Kind != yaml.SequenceNode {
		return in, nil
	}
	for _, it := range models.Content {
		if it.Kind != yaml.MappingNode {
			continue
		}
		if !ours(it) {
			continue
		}
		in.Configured = true
		if in.BaseURL == "" {
			in.BaseURL = yamledit.Get(it, "apiBase")
			key := yamledit.Get(it, "apiKey")
			in.SetKey(key, func(k string) string {
				if m := secretRef.FindStringSubmatch(k); m != nil {
					return m[1]
				}
				return ""
			})
			in.Default = modelID(it)
		}
		if id := modelID(it); !slices.Contains(in.Models, id) {
			in.Models = append(in.Models, id)
		}
		if caps := yamledit.Value(it, "capabilities"); caps == nil || !slices.ContainsFunc(caps.Content, func(n *yaml.Node) bool { return n.Value == "tool_use" }) {
			in.Notes = append(in.Notes, fmt.Sprintf("model %q lacks capabilities: [tool_use], so Continue never offers it tools", modelID(it)))
		}
	}
	return in, nil
}

// firstChat is the model Continue starts with when none was chosen before
// (the first with the chat role; no roles means all of them), when it is
// not one of gw's; "" otherwise.
func firstChat(data []byte) string {
	doc, err := yamledit.Parse(data, displayName)
	if err != nil {
		return ""
	}
	models := yamledit.Value(doc.Top(), "models")
	if models == nil || models.Kind != yaml.SequenceNode {
		return ""
	}
	for _, it := range models.Content {
		if it.Kind != yaml.MappingNode {
			continue
		}
		roles := yamledit.Value(it, "roles")
		chat := roles == nil || slices.ContainsFunc(roles.Content, func(n *yaml.Node) bool { return n.Value == "chat" })
		if !chat {
			continue
		}
		if ours(it) {
			return ""
		}
		if n := yamledit.Get(it, "name"); n != "" {
			return n
		}
		return modelID(it)
	}
	return ""
}
