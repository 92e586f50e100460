package build

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name   string
		linker Details
		bi     *debug.BuildInfo
		want   Details
		line   string
	}{
		{
			name:   "release build: linker values win over build info",
			linker: Details{Version: "1.2.3", Commit: "abc1234def5678", Date: "2026-11-21T10:00:00Z", DefaultBaseURL: "https://gateway.example.com/v1"},
			bi:     &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "ffffffffffff", "vcs.time", "2020-01-01T00:00:00Z")},
			want:   Details{Version: "1.2.3", Commit: "abc1234def5678", Date: "2026-11-21T10:00:00Z", DefaultBaseURL: "https://gateway.example.com/v1"},
			line:   "1.2.3 (commit abc1234, built 2026-11-21)",
		},
		{
			name: "go install module@v1.4.0: module version without the v",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			want: Details{Version: "1.4.0"},
			line: "1.4.0",
		},
		{
			name: "go install module@main: commit and time from the pseudo-version",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261121093000-0123456789ab"}},
			want: Details{Version: "0.0.0-20261121093000-0123456789ab", Commit: "0123456789ab", Date: "2026-11-21T09:30:00Z"},
			line: "0.0.0-20261121093000-0123456789ab (commit 0123456, built 2026-11-21)",
		},
		{
			name: "pseudo-version after a tag",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20261121093000-0123456789ab"}},
			want: Details{Version: "1.2.4-0.20261121093000-0123456789ab", Commit: "0123456789ab", Date: "2026-11-21T09:30:00Z"},
			line: "1.2.4-0.20261121093000-0123456789ab (commit 0123456, built 2026-11-21)",
		},
		{
			name: "go build in a checkout: vcs settings, full revision kept",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261121093000-0123456789ab"},
				Settings: vcs("vcs.revision", "0123456789abcdef0123456789abcdef01234567", "vcs.time", "2026-11-21T09:30:00Z", "vcs.modified", "false")},
			want: Details{Version: "0.0.0-20261121093000-0123456789ab", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-21T09:30:00Z"},
			line: "0.0.0-20261121093000-0123456789ab (commit 0123456, built 2026-11-21)",
		},
		{
			name: "uncommitted changes are marked dirty once",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"},
				Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.modified", "true")},
			want: Details{Version: "1.2.3+dirty", Commit: "0123456789abcdef"},
			line: "1.2.3+dirty (commit 0123456)",
		},
		{
			name: "Go already stamped +dirty",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261121093000-0123456789ab+dirty"},
				Settings: vcs("vcs.modified", "true")},
			want: Details{Version: "0.0.0-20261121093000-0123456789ab+dirty", Commit: "0123456789ab", Date: "2026-11-21T09:30:00Z"},
			line: "0.0.0-20261121093000-0123456789ab+dirty (commit 0123456, built 2026-11-21)",
		},
		{
			name: "devel build without vcs: dev",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.modified", "true")},
			want: Details{Version: "dev"},
			line: "dev",
		},
		{
			name: "no build info at all",
			want: Details{Version: "dev"},
			line: "dev",
		},
		{
			name:   "goreleaser without git information: commit none falls back to the build info",
			linker: Details{Version: "0.0.1-next", Commit: "none", Date: "2026-11-21T10:00:00Z"},
			bi:     &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "0123456789abcdef")},
			want:   Details{Version: "0.0.1-next", Commit: "0123456789abcdef", Date: "2026-11-21T10:00:00Z"},
			line:   "0.0.1-next (commit 0123456, built 2026-11-21)",
		},
		{
			name:   "date only",
			linker: Details{Version: "2.0.0", Date: "2026-01-02T03:04:05Z"},
			want:   Details{Version: "2.0.0", Date: "2026-01-02T03:04:05Z"},
			line:   "2.0.0 (built 2026-01-02)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(tt.linker, tt.bi)
			if got != tt.want {
				t.Errorf("resolve() = %+v\nwant %+v", got, tt.want)
			}
			if s := got.String(); s != tt.line {
				t.Errorf("String() = %q, want %q", s, tt.line)
			}
		})
	}
}

// The test binary has real build info; Info must always name a version and the platform.
func TestInfo_TestBinary(t *testing.T) {
	d := Info()
	if d.Version == "" {
		t.Error("Info().Version is empty; want a version or \"dev\"")
	}
	if d.GoVersion == "" || d.Platform == "" {
		t.Errorf("Info() = %+v; want GoVersion and Platform set", d)
	}
}
