package opencode

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/opencodefmt"
)

// OpenCode (checked against 1.18.x) reads both opencode.json and
// opencode.jsonc of a directory, in that order, and deep-merges them: a key
// set in opencode.jsonc wins, but a key only opencode.json sets (a header, a
// model, "model") still applies. Find prefers opencode.jsonc for that reason.

// Sibling is the other config file OpenCode reads from path's directory
// (opencode.json for opencode.jsonc and the reverse), and whether it is
// read after path and so wins key by key. ok is false for any other name.
func Sibling(path string) (other string, otherWins, ok bool) {
	dir, base := filepath.Split(path)
	switch base {
	case "opencode.jsonc":
		return filepath.Join(dir, "opencode.json"), false, true
	case "opencode.json":
		return filepath.Join(dir, "opencode.jsonc"), true, true
	}
	return "", false, false
}

// Other is the other config file OpenCode reads beside a config (opencode.json beside opencode.jsonc, and
// the reverse), as far as one provider goes. OpenCode deep-merges the two, so what Other sets for the
// provider still applies, or even wins, whatever gw writes into the first. gw init agent and gw doctor
// both describe it with Problem, Fix and Note, so it is said the same way everywhere.
type Other struct {
	Path     string   // the other file
	Of       string   // the config it sits beside
	Provider string   // the provider id asked about
	Wins     bool     // OpenCode reads Path after Of, so what Path sets wins key by key
	Refs     []string // what Path sets for the provider (References); empty: nothing
	Err      error    // Path could not be read, or does not parse (*ParseError)
}

// ReadOther reads the other file OpenCode reads beside path, for provider id. ok is false when path has no
// such sibling (another name) or the sibling does not exist.
func ReadOther(path, id string) (o Other, ok bool) {
	other, wins, ok := Sibling(path)
	if !ok {
		return Other{}, false
	}
	o = Other{Path: other, Of: path, Provider: id, Wins: wins}
	data, exists, err := agentfile.Read(other)
	if err != nil {
		o.Err = err
		return o, true
	}
	if !exists {
		return Other{}, false
	}
	o.Refs, o.Err = opencodefmt.References(data, id)
	return o, true
}

// Problem says why Other matters when it sets something for the provider ("" when it sets nothing).
func (o Other) Problem() string {
	if len(o.Refs) == 0 {
		return ""
	}
	s := fmt.Sprintf("%s also sets %s; OpenCode reads opencode.json, then opencode.jsonc, and merges them key by key, so ",
		o.Path, strings.Join(o.Refs, " and "))
	if o.Wins {
		return s + "what " + filepath.Base(o.Path) + " sets overrides " + o.Of
	}
	return s + "what only " + filepath.Base(o.Path) + ` sets (more models, headers, "model") still applies`
}

// Fix is what to do about Problem: the provider belongs in one file, the one gw writes.
func (o Other) Fix() string {
	if len(o.Refs) == 0 {
		return ""
	}
	return fmt.Sprintf("remove the %q provider (and \"model\"/\"small_model\" naming it) from %s, or merge the two files into one", o.Provider, o.Path)
}

// Note says what Other is when it raises no Problem: a file gw could not read (so it may still set
// something), or one OpenCode merges with the first.
func (o Other) Note() string {
	var pe *agents.ParseError
	switch {
	case errors.As(o.Err, &pe):
		return fmt.Sprintf("OpenCode also reads %s, which does not parse (%d:%d: %s); fix it by hand", o.Path, pe.Line, pe.Column, pe.Msg)
	case o.Err != nil:
		return fmt.Sprintf("OpenCode also reads %s, which gw cannot read: %v", o.Path, o.Err)
	}
	winner := o.Of
	if o.Wins {
		winner = o.Path
	}
	return fmt.Sprintf("OpenCode also reads %s and merges it with %s (where both set a key, %s wins)", o.Path, o.Of, filepath.Base(winner))
}

// Companion is Other as an agents.CompanionReader: gw's provider in the file beside path.
func (agent) Companion(path string) (agents.Companion, bool) {
	o, ok := ReadOther(path, agents.ProviderID)
	if !ok {
		return agents.Companion{}, false
	}
	return agents.Companion{Path: o.Path, Wins: o.Wins, Unreadable: o.Err != nil, Problem: o.Problem(), Fix: o.Fix(), Note: o.Note()}, true
}
