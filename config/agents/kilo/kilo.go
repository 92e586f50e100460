// Package kilo writes gw into Kilo's config. Kilo is a fork of OpenCode and
// keeps its config format (provider.<id> with npm @ai-sdk/openai-compatible,
// options.baseURL/apiKey, models with limits), so the merge is
// opencodefmt's, with Kilo's schema; but Kilo reads its own files and
// not OpenCode's: ~/.config/kilo/kilo.jsonc globally and .kilo/kilo.jsonc in
// a project.
//
// Checked against Kilo 7.7.9 (kilo debug config prints the resolved
// config): globally it reads, in $XDG_CONFIG_HOME/kilo (default
// ~/.config/kilo), config.json, kilo.json, kilo.jsonc, opencode.json and
// opencode.jsonc, later files winning key by key; in a project kilo.json,
// kilo.jsonc, opencode.json(c) at the root, then .kilo/kilo.jsonc,
// .kilo/kilo.json, .kilo/opencode.jsonc, .kilo/opencode.json. It does not read
// ~/.config/opencode. KILO_CONFIG_CONTENT holds a whole config (gw run).
package kilo

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/opencodefmt"
)

// Schema is written into a new Kilo config.
const Schema = "https://app.kilo.ai/config.json"

const (
	displayName   = "Kilo"
	testedVersion = "7.7.9"
	// ContentEnv holds a whole config that Kilo merges over its files.
	ContentEnv = "KILO_CONFIG_CONTENT"
)

// Agent describes Kilo for gw.
func Agent() agents.Agent {
	return agent{agents.OneFile{File: Path, MergeFile: Merge, InspectFile: Inspect}}
}

type agent struct{ agents.OneFile }

func (agent) Info() agents.Info {
	return agents.Info{
		Name: "kilo", Display: displayName, Binary: "kilo", Version: testedVersion,
		UserAgents: []string{"kilo-code", "kilocode", "kilo"},
		Install:    "npm install -g @kilocode/cli", Entry: `provider "gw"`,
		Protocol:  agents.ChatCompletions,
		FileNames: []string{"kilo.jsonc", "kilo.json"},
	}
}

func (agent) PlainKeysRemoved(old, new []byte) string { return opencodefmt.PlainKeysRemoved(old, new) }

// Path is Kilo's config file for scope: kilo.jsonc in
// $XDG_CONFIG_HOME/kilo (or ~/.config/kilo), or in the project's .kilo —
// or kilo.json there when only that exists.
func Path(s agents.Scope, e agents.Place) (string, error) {
	var dir string
	switch s {
	case agents.Global:
		var err error
		if dir, err = e.XDGConfig("kilo"); err != nil {
			return "", err
		}
	case agents.Project:
		if e.WorkDir == "" {
			return "", errors.New("no working directory for the project config")
		}
		dir = filepath.Join(e.WorkDir, ".kilo")
	default:
		return "", fmt.Errorf("unknown scope %q", s)
	}
	return agents.EitherFile(filepath.Join(dir, "kilo.jsonc"), filepath.Join(dir, "kilo.json")), nil
}

var format = opencodefmt.Format{Schema: Schema, ContentEnv: ContentEnv}

// Merge writes d into the Kilo config src (nil or empty: a new file).
func Merge(src []byte, d agents.Declaration) (agents.Result, error) { return format.Merge(src, d) }

// Inspect reads gw's provider back from a Kilo config.
func Inspect(src []byte) (agents.Inspection, error) {
	in, err := format.Inspect(src)
	if err != nil {
		return agents.Inspection{}, err
	}
	sum, _ := opencodefmt.ReadModels(src)
	for _, id := range sum.Disabled {
		if id == agents.ProviderID {
			in.Notes = append(in.Notes, `"disabled_providers" lists "gw", so Kilo ignores it`)
		}
	}
	return in, nil
}

// Run is gw run's route: the provider as KILO_CONFIG_CONTENT, whose apiKey
// refers to GW_LOCAL_TOKEN, set beside it. Nothing in the arguments.
func (agent) Run(d agents.Declaration) (agents.RunSpec, error) { return format.Run(d) }
