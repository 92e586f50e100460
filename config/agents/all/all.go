// Package all lists the agents gw configures and runs, each from its own
// package under config/agents, OpenCode first. Adding an agent is a package
// there, implementing the interfaces of package agents it supports, and a
// line here: the commands and gw doctor take everything else from it.
package all

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/claudecode"
	"github.com/modelgateway/gw/config/agents/cline"
	"github.com/modelgateway/gw/config/agents/codex"
	"github.com/modelgateway/gw/config/agents/continuedev"
	"github.com/modelgateway/gw/config/agents/copilot"
	"github.com/modelgateway/gw/config/agents/crush"
	"github.com/modelgateway/gw/config/agents/droid"
	"github.com/modelgateway/gw/config/agents/gemini"
	"github.com/modelgateway/gw/config/agents/kilo"
	"github.com/modelgateway/gw/config/agents/opencode"
	"github.com/modelgateway/gw/config/agents/pi"
	"github.com/modelgateway/gw/config/agents/qwencode"
	"github.com/modelgateway/gw/internal/spell"
)

// All returns every supported agent, in the order gw lists them.
func All() []agents.Agent {
	return []agents.Agent{
		opencode.Agent(),
		claudecode.Agent(),
		codex.Agent(),
		qwencode.Agent(),
		continuedev.Agent(),
		cline.Agent(),
		kilo.Agent(),
		crush.Agent(),
		pi.Agent(),
		droid.Agent(),
		copilot.Agent(),
		gemini.Agent(),
	}
}

// Names are the --agent values of as, in order.
func Names(as []agents.Agent) []string { return each(as, func(i agents.Info) string { return i.Name }) }

// Displays are the names of as for people ("Claude Code"), in order.
func Displays(as []agents.Agent) []string {
	return each(as, func(i agents.Info) string { return i.Display })
}

// Listed says as for a help text, each with its --agent value: "OpenCode (opencode), Claude Code
// (claude-code), …".
func Listed(as []agents.Agent) string {
	return strings.Join(each(as, func(i agents.Info) string { return i.Display + " (" + i.Name + ")" }), ", ")
}

func each(as []agents.Agent, f func(agents.Info) string) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = f(a.Info())
	}
	return out
}

// Lookup finds an agent by its --agent name, or by its command's name (claude
// for claude-code, qwen for qwen-code), which is what a user types first.
func Lookup(name string) (agents.Agent, bool) {
	all := All()
	i := slices.IndexFunc(all, func(a agents.Agent) bool { return a.Info().Name == name })
	if i < 0 {
		i = slices.IndexFunc(all, func(a agents.Agent) bool { return a.Info().Binary == name })
	}
	if i < 0 {
		return nil, false
	}
	return all[i], true
}

// Closest is the --agent name of the agent among as that the user most likely
// meant by name (a few typos from its name or its command's, or a start of
// either, in any case); "" when none is close.
func Closest(name string, as []agents.Agent) string {
	name = strings.ToLower(name)
	best, bestD := "", 3 // as cobra's "did you mean": two edits at most
	for _, a := range as {
		for _, n := range []string{a.Info().Name, a.Info().Binary} {
			d := spell.Distance(name, n)
			if len(name) >= 2 && strings.HasPrefix(n, name) {
				d = 0
			}
			if d < bestD {
				best, bestD = a.Info().Name, d
			}
		}
	}
	return best
}

// With are the agents that implement T (agents.Runner, agents.DirectRefuser, …), in order.
func With[T any]() []agents.Agent {
	return slices.DeleteFunc(All(), func(a agents.Agent) bool { _, ok := a.(T); return !ok })
}

// Without are the agents that do not implement T, in order.
func Without[T any]() []agents.Agent {
	return slices.DeleteFunc(All(), func(a agents.Agent) bool { _, ok := a.(T); return ok })
}

// Configurable are the agents gw init agent writes a config for (all but the ones gw only runs).
func Configurable() []agents.Agent { return With[agents.ConfigWriter]() }

// ForFile finds the agent whose config files have path's name (agents.Info.FileNames), for
// gw doctor --agent-config.
func ForFile(path string) (agents.Agent, bool) {
	name := filepath.Base(path)
	for _, a := range All() {
		if slices.Contains(a.Info().FileNames, name) {
			return a, true
		}
	}
	return nil, false
}

// FileNames are the config file names ForFile knows, in order.
func FileNames() []string {
	var out []string
	for _, a := range All() {
		out = append(out, a.Info().FileNames...)
	}
	return out
}

// UserAgentIndex names the agent whose requests carry product, the first
// product of a User-Agent header, lower-case (see agents.Info.UserAgents);
// "" for none. The index is built once: gw serve asks it for every request.
func UserAgentIndex() func(product string) string {
	names := map[string]string{}
	for _, a := range All() {
		for _, p := range a.Info().UserAgents {
			names[p] = a.Info().Name
		}
	}
	return func(product string) string { return names[product] }
}

// ServeRoutes are the paths gw serve answers itself for the agents (agents.ServeRouter).
func ServeRoutes() []agents.ServeRoute {
	var out []agents.ServeRoute
	for _, a := range With[agents.ServeRouter]() {
		out = append(out, a.(agents.ServeRouter).ServeRoutes()...)
	}
	return out
}
