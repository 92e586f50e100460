// Package config holds where gw keeps its files, the config file itself, the
// base-URL rules and the per-install local token.
package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/adrg/xdg"
)

// Environment variables that move gw's directories.
const (
	EnvConfigDir = "GW_CONFIG_DIR"
	EnvStateDir  = "GW_STATE_DIR"
)

// Paths are the directories gw reads and writes.
type Paths struct {
	ConfigDir string // config.json, credentials.json, key-changed
	StateDir  string // logs and other state that may be lost
}

// File is the path of the config file.
func (p Paths) File() string { return filepath.Join(p.ConfigDir, "config.json") }

// CredentialsFile is the path of the insecure key store (only used after --insecure-storage).
func (p Paths) CredentialsFile() string { return filepath.Join(p.ConfigDir, "credentials.json") }

// ResolvePaths finds the config and state directories:
// config: GW_CONFIG_DIR › $XDG_CONFIG_HOME/gw › platform default (~/.config/gw on Linux);
// state:  GW_STATE_DIR › $XDG_STATE_HOME/gw › platform default (~/.local/state/gw on Linux).
//
// Everything the caller's environment says is read through getenv, so tests and
// the CLI see the same answer. adrg/xdg reads the process environment once at
// start-up, so it is consulted only for the platform defaults (macOS, Windows)
// or when getenv knows no home directory.
func ResolvePaths(getenv func(string) string) (Paths, error) {
	cfg, err := dir(getenv, EnvConfigDir, "XDG_CONFIG_HOME", ".config", xdg.ConfigHome)
	if err != nil {
		return Paths{}, err
	}
	state, err := dir(getenv, EnvStateDir, "XDG_STATE_HOME", filepath.Join(".local", "state"), xdg.StateHome)
	if err != nil {
		return Paths{}, err
	}
	return Paths{ConfigDir: cfg, StateDir: state}, nil
}

func dir(getenv func(string) string, override, xdgVar, homeRel, platform string) (string, error) {
	if v := getenv(override); v != "" {
		abs, err := filepath.Abs(v)
		if err != nil {
			return "", fmt.Errorf("%s=%q: %w", override, v, err)
		}
		return abs, nil
	}
	// The XDG spec says relative values are invalid and must be ignored.
	if v := getenv(xdgVar); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "gw"), nil
	}
	switch runtime.GOOS {
	case "darwin", "windows", "plan9", "ios":
		// Platform conventions (e.g. ~/Library/Application Support) belong to xdg.
	default:
		if home := getenv("HOME"); home != "" && filepath.IsAbs(home) {
			return filepath.Join(home, homeRel, "gw"), nil
		}
	}
	if platform == "" {
		return "", errors.New("cannot find a home directory for gw's files; set " + override + " or HOME")
	}
	return filepath.Join(platform, "gw"), nil
}
