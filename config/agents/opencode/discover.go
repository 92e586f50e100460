package opencode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/modelgateway/gw/config/agents"
)

// Scope says which OpenCode config file is meant.
type Scope = agents.Scope

const (
	// Global is $XDG_CONFIG_HOME/opencode (OpenCode uses ~/.config on every OS).
	Global = agents.Global
	// Project is the config in the working directory.
	Project = agents.Project
)

// Candidate file names, preferred first: OpenCode reads opencode.jsonc after
// opencode.json, so what we write there wins where both exist (see Sibling);
// when neither exists we create opencode.jsonc so comments are welcome.
var fileNames = [...]string{"opencode.jsonc", "opencode.json"}

// Location is the config file chosen for a scope.
type Location struct {
	Scope Scope
	Dir   string
	Path  string
	// Exists reports whether Path is present (a symlink counts, even a
	// dangling one, so that Write can report it instead of replacing it).
	Exists bool
}

// GlobalDir returns OpenCode's global config directory:
// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode. OpenCode uses the XDG
// layout on macOS and Windows too, so there is no per-OS special case.
func GlobalDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		if !filepath.IsAbs(x) {
			return "", fmt.Errorf("XDG_CONFIG_HOME=%q is not an absolute path; set it to an absolute path or unset it", x)
		}
		return filepath.Join(x, "opencode"), nil
	}
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		return "", errors.New("cannot find OpenCode's config directory: neither XDG_CONFIG_HOME nor HOME is set")
	}
	return filepath.Join(home, ".config", "opencode"), nil
}

// Find picks the config file for scope. workDir is used for Project.
func Find(scope Scope, getenv func(string) string, workDir string) (Location, error) {
	var dir string
	switch scope {
	case Global:
		d, err := GlobalDir(getenv)
		if err != nil {
			return Location{}, err
		}
		dir = d
	case Project:
		if workDir == "" {
			return Location{}, errors.New("no working directory for the project config")
		}
		dir = workDir
	default:
		return Location{}, fmt.Errorf("unknown OpenCode config scope %q", scope)
	}
	for _, name := range fileNames {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			return Location{Scope: scope, Dir: dir, Path: p, Exists: true}, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Location{}, fmt.Errorf("cannot inspect %s: %w", p, err)
		}
	}
	return Location{Scope: scope, Dir: dir, Path: filepath.Join(dir, fileNames[0])}, nil
}
