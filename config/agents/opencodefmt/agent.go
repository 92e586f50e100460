package opencodefmt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/config/agents"
)

// Format is one agent's use of the format: OpenCode's, or Kilo's (a fork of OpenCode that kept it). What
// differs between them is only the schema of a new file and the variable gw run puts a whole config in; the
// merge, the reading back and gw run's route are the same and are built here.
type Format struct {
	// Schema is the "$schema" of a new file; "": OpenCode's.
	Schema string
	// ContentEnv is the variable that holds a whole config the agent merges over its files
	// (OPENCODE_CONFIG_CONTENT, KILO_CONFIG_CONTENT).
	ContentEnv string
}

// Provider is gw's provider for d. run: gw run puts the local token in GW_LOCAL_TOKEN and the config refers
// to it, so that the config content holds no secret either.
func (f Format) Provider(d agents.Declaration, run bool) Provider {
	p := Provider{ID: agents.ProviderID, Name: agents.ProviderName, BaseURL: d.BaseURL, APIKey: d.Token, Models: slices.Clone(d.Models)}
	switch {
	case d.Mode == agents.Direct:
		p.APIKey = "{env:" + d.KeyVar() + "}"
	case run:
		p.APIKey = "{env:" + agents.TokenEnv + "}"
	}
	return p
}

func (f Format) options(d agents.Declaration) MergeOptions {
	return MergeOptions{Model: d.Default, SmallModel: d.Small, Schema: f.Schema}
}

// Merge writes d into the config src (nil or empty: a new file).
func (f Format) Merge(src []byte, d agents.Declaration) (agents.Result, error) {
	if err := d.Validate(); err != nil {
		return agents.Result{}, err
	}
	return Merge(src, f.Provider(d, false), f.options(d))
}

// Inspect reads gw's provider back from a config.
func (f Format) Inspect(src []byte) (agents.Inspection, error) {
	sum, err := ReadModels(src)
	if err != nil {
		return agents.Inspection{}, err
	}
	in := agents.Inspection{Default: sum.Model, Small: sum.SmallModel}
	for _, p := range sum.Providers {
		if p.ID != agents.ProviderID {
			continue
		}
		in.Configured, in.BaseURL, in.Models = true, p.BaseURL, p.Models
		switch p.KeyKind {
		case KeyLocalToken:
			in.KeyKind, in.LocalToken = agents.KeyLocalToken, p.LocalToken
		case KeyEnv:
			in.KeyKind, in.KeyRef = agents.KeyEnvRef, p.KeyRef
		case KeyLiteral, KeyFile:
			in.KeyKind = agents.KeyLiteral
		default:
			in.KeyKind = agents.KeyNone
		}
	}
	return in, nil
}

// Run is gw run's route: the provider as a whole config in ContentEnv, whose apiKey refers to
// GW_LOCAL_TOKEN, set beside it. Nothing in the arguments.
func (f Format) Run(d agents.Declaration) (agents.RunSpec, error) {
	if err := d.Validate(); err != nil {
		return agents.RunSpec{}, err
	}
	b, err := Content(f.Provider(d, true), f.options(d))
	if err != nil {
		return agents.RunSpec{}, err
	}
	spec := agents.RunSpec{Env: []string{f.ContentEnv + "=" + string(b)}}
	if d.Mode == agents.Proxy {
		spec.Env = append(spec.Env, agents.TokenEnv+"="+d.Token)
	}
	return spec, nil
}

// PlainKeysRemoved names the providers whose API key was written into the old config and no longer is in
// the new one (gw's or another one the merge did not touch): the key then lives on only in the backup,
// which the user should delete. "" when none.
func PlainKeysRemoved(old, new []byte) string {
	before, err := ReadModels(old)
	if err != nil {
		return ""
	}
	after, _ := ReadModels(new)
	var ids []string
	for _, p := range before.Providers {
		if p.KeyKind != KeyLiteral {
			continue
		}
		still := slices.ContainsFunc(after.Providers, func(q ProviderInfo) bool {
			return q.ID == p.ID && q.KeyKind == KeyLiteral
		})
		if !still {
			ids = append(ids, strconv.Quote(p.ID))
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return "the API key of provider " + strings.Join(ids, ", ")
}

// Providers lists the OpenAI-compatible providers of a config for gw doctor, with the "model" and
// "small_model" settings that name each one.
func Providers(src []byte) ([]agents.Provider, error) {
	sum, err := ReadModels(src)
	if err != nil {
		return nil, err
	}
	var out []agents.Provider
	for _, p := range sum.Providers {
		ap := agents.Provider{Name: p.ID, BaseURL: p.BaseURL, Models: slices.Clone(p.Models), Declared: slices.Clone(p.Models),
			LiteralKey: p.KeyKind == KeyLiteral, LocalToken: p.LocalToken, Disabled: slices.Contains(sum.Disabled, p.ID)}
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
		out = append(out, ap)
	}
	return out, nil
}
