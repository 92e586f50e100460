package all

import (
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/config/opencode"
)

// OpenCode describes OpenCode through config/opencode, so that gw run and
// doctor can treat it like the other agents. gw init agent keeps using
// config/opencode directly for its OpenCode-only notes (the sibling file).
func OpenCode() agents.Agent {
	return agents.Agent{
		Name: "opencode", Display: "OpenCode", Binary: "opencode", Version: "1.18",
		Install: "npm install -g opencode-ai", Entry: `provider "gw"`,
		Protocol: agents.ChatCompletions,
		Files: func(s agents.Scope, e agents.Env) ([]string, error) {
			sc := opencode.Global
			if s == agents.Project {
				sc = opencode.Project
			}
			loc, err := opencode.Find(sc, e.Getenv, e.WorkDir)
			return []string{loc.Path}, err
		},
		Merge: func(srcs [][]byte, d agents.Declaration) ([]agents.Result, error) {
			if err := d.Validate(); err != nil {
				return nil, err
			}
			r, err := opencode.Merge(srcs[0], openCodeProvider(d, false), opencode.MergeOptions{Model: d.Default, SmallModel: d.Small})
			if err != nil {
				return nil, err
			}
			return []agents.Result{{Data: r.Data, Changed: r.Changed, Created: r.Created, Added: r.Added, Removed: r.Removed, Updated: r.Updated, Warnings: r.Warnings}}, nil
		},
		Inspect: func(srcs [][]byte) (agents.Inspection, error) { return inspectOpenCode(srcs[0]) },
		Run: func(d agents.Declaration) (agents.RunSpec, error) {
			if err := d.Validate(); err != nil {
				return agents.RunSpec{}, err
			}
			b, err := opencode.Content(openCodeProvider(d, true), opencode.MergeOptions{Model: d.Default, SmallModel: d.Small})
			if err != nil {
				return agents.RunSpec{}, err
			}
			spec := agents.RunSpec{Env: []string{"OPENCODE_CONFIG_CONTENT=" + string(b)}}
			if d.Mode == agents.Proxy {
				spec.Env = append(spec.Env, agents.TokenEnv+"="+d.Token)
			}
			return spec, nil
		},
	}
}

// openCodeProvider: run puts the local token in GW_LOCAL_TOKEN and refers
// to it, so that the config content holds no secret either.
func openCodeProvider(d agents.Declaration, run bool) opencode.Provider {
	p := opencode.Provider{ID: agents.ProviderID, Name: agents.ProviderName, BaseURL: d.BaseURL, APIKey: d.Token}
	switch {
	case d.Mode == agents.Direct:
		p.APIKey = "{env:" + d.Env() + "}"
	case run:
		p.APIKey = "{env:" + agents.TokenEnv + "}"
	}
	for _, m := range d.Models {
		p.Models = append(p.Models, opencode.Model{ID: m.ID, Name: m.Name, Context: m.Context, Output: m.Output, Reasoning: m.Reasoning, Attachment: m.Attachment})
	}
	return p
}

func inspectOpenCode(src []byte) (agents.Inspection, error) {
	sum, err := opencode.ReadModels(src)
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
		case opencode.KeyLocalToken:
			in.KeyKind = agents.KeyLocalToken
			var v struct {
				Provider map[string]struct {
					Options struct {
						APIKey string `json:"apiKey"`
					} `json:"options"`
				} `json:"provider"`
			}
			if jsonc.Decode(src, &v) == nil {
				in.LocalToken = v.Provider[agents.ProviderID].Options.APIKey
			}
		case opencode.KeyEnv:
			in.KeyKind, in.KeyRef = agents.KeyEnvRef, p.KeyRef
		case opencode.KeyLiteral, opencode.KeyFile:
			in.KeyKind = agents.KeyLiteral
		default:
			in.KeyKind = agents.KeyNone
		}
	}
	return in, nil
}
