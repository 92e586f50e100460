package config

import (
	"path/filepath"
	"runtime"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolvePaths_Precedence(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the HOME fallback is Linux/BSD layout; other platforms use adrg/xdg defaults")
	}
	tests := []struct {
		name              string
		env               map[string]string
		wantCfg, wantStat string
	}{
		{"GW_CONFIG_DIR wins", map[string]string{"GW_CONFIG_DIR": "/c", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/c", "/h/.local/state/gw"},
		{"XDG dirs", map[string]string{"XDG_CONFIG_HOME": "/x", "XDG_STATE_HOME": "/s", "HOME": "/h"}, "/x/gw", "/s/gw"},
		{"HOME only", map[string]string{"HOME": "/h"}, "/h/.config/gw", "/h/.local/state/gw"},
		{"relative XDG is ignored per spec", map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, "/h/.config/gw", "/h/.local/state/gw"},
		{"GW_STATE_DIR wins", map[string]string{"GW_STATE_DIR": "/st", "XDG_STATE_HOME": "/s", "HOME": "/h"}, "/h/.config/gw", "/st"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ResolvePaths(env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if p.ConfigDir != tt.wantCfg || p.StateDir != tt.wantStat {
				t.Errorf("got config %q state %q, want %q %q", p.ConfigDir, p.StateDir, tt.wantCfg, tt.wantStat)
			}
			if p.File() != filepath.Join(tt.wantCfg, "config.json") {
				t.Errorf("File() = %q", p.File())
			}
			if p.CredentialsFile() != filepath.Join(tt.wantCfg, "credentials.json") {
				t.Errorf("CredentialsFile() = %q", p.CredentialsFile())
			}
		})
	}
}

func TestResolvePaths_RelativeOverrideBecomesAbsolute(t *testing.T) {
	p, err := ResolvePaths(env(map[string]string{"GW_CONFIG_DIR": "cfg", "GW_STATE_DIR": "st"}))
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p.ConfigDir) || filepath.Base(p.ConfigDir) != "cfg" || !filepath.IsAbs(p.StateDir) {
		t.Errorf("got %+v, want absolute paths ending in cfg and st", p)
	}
}
