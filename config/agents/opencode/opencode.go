// Package opencode is OpenCode for gw: where its config files are (opencode.jsonc or opencode.json, in
// $XDG_CONFIG_HOME/opencode or the project), the second file it merges with the one gw writes (Other), and
// the agent as gw init agent, gw run and gw doctor use it. The format, provider and models under
// "provider", is opencodefmt's, shared with Kilo.
package opencode

import (
	"slices"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/opencodefmt"
)

const (
	displayName   = "OpenCode"
	testedVersion = "1.18"
	// ContentEnv holds a whole config that OpenCode merges over its files (gw run).
	ContentEnv = "OPENCODE_CONFIG_CONTENT"
)

var format = opencodefmt.Format{ContentEnv: ContentEnv}

// Agent describes OpenCode for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: format.Merge, InspectFile: format.Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "opencode", Display: displayName, Binary: "opencode", Version: testedVersion,
		UserAgents: []string{"opencode"},
		Install:    "npm install -g opencode-ai", Entry: `provider "gw"`,
		Protocol:  agents.ChatCompletions,
		FileNames: slices.Clone(fileNames[:]),
	}
}

func (agent) Run(d agents.Declaration) (agents.RunSpec, error) { return format.Run(d) }
func (agent) PlainKeysRemoved(old, new []byte) string          { return opencodefmt.PlainKeysRemoved(old, new) }
func (agent) Providers(src []byte) ([]agents.Provider, error)  { return opencodefmt.Providers(src) }

// Path is the config file for scope: the one OpenCode reads there (see Find).
func Path(s agents.Scope, e agents.Place) (string, error) {
	loc, err := Find(s, e.Getenv, e.WorkDir)
	return loc.Path, err
}
