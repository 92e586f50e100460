// Package build knows which gw this is: its version, commit, build date and
// the canonical base URL of the hosted service baked in at release time.
package build

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by the release with -ldflags "-X github.com/modelgateway/gw/cmd/build.Version=…".
// These are the only package-level variables gw allows: the linker is the one
// thing that can fill them. Read them through Info(), never directly.
var (
	Version        = ""
	Commit         = ""
	Date           = ""
	DefaultBaseURL = ""
)

// Details describes one gw binary.
type Details struct {
	Version        string `json:"version"`          // "1.2.3", or "dev" when nothing better is known
	Commit         string `json:"commit"`           // full revision, "" when unknown
	Date           string `json:"date"`             // RFC 3339 build (or commit) time, "" when unknown
	DefaultBaseURL string `json:"default_base_url"` // "" when the build has none
	GoVersion      string `json:"go_version"`
	Platform       string `json:"platform"` // GOOS/GOARCH
}

// Info returns what the linker set, falling back to the module's build info
// for binaries made with `go install` or `go build`, which have no -ldflags.
func Info() Details {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return resolve(Details{
		Version:        Version,
		Commit:         Commit,
		Date:           Date,
		DefaultBaseURL: DefaultBaseURL,
		GoVersion:      runtime.Version(),
		Platform:       runtime.GOOS + "/" + runtime.GOARCH,
	}, bi)
}

// resolve fills what the linker left empty from the module build info.
func resolve(d Details, bi *debug.BuildInfo) Details {
	// goreleaser stamps "none" when git cannot tell (a snapshot of a clone without a remote).
	if d.Commit == "none" {
		d.Commit = ""
	}
	if bi != nil {
		if d.Version == "" {
			d.Version = bi.Main.Version
		}
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if d.Commit == "" {
					d.Commit = s.Value
				}
			case "vcs.time":
				if d.Date == "" {
					d.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		// `go install module@version` builds from the module zip: no vcs.* settings,
		// but a pseudo-version still names the commit and its time.
		if m := pseudoVersion.FindStringSubmatch(d.Version); m != nil {
			if d.Commit == "" {
				d.Commit = m[2]
			}
			if d.Date == "" {
				t := m[1]
				d.Date = t[0:4] + "-" + t[4:6] + "-" + t[6:8] + "T" + t[8:10] + ":" + t[10:12] + ":" + t[12:14] + "Z"
			}
		}
		if modified && d.Version != "" && !strings.Contains(d.Version, "+dirty") && d.Version != "(devel)" {
			d.Version += "+dirty"
		}
	}
	switch d.Version {
	case "", "(devel)":
		d.Version = "dev"
	}
	// Module versions carry a "v"; goreleaser's {{.Version}} does not. Show one form.
	d.Version = strings.TrimPrefix(d.Version, "v")
	return d
}

// pseudoVersion matches the tail of a Go pseudo-version: yyyymmddhhmmss-abcdefabcdef.
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(?:\+[0-9A-Za-z.+]*)?$`)

// ShortCommit is the commit cut to the length people paste.
func (d Details) ShortCommit() string {
	if len(d.Commit) > 7 {
		return d.Commit[:7]
	}
	return d.Commit
}

// Day is the build date without the time, or "" when unknown.
func (d Details) Day() string {
	if len(d.Date) >= 10 {
		return d.Date[:10]
	}
	return d.Date
}

// String is the version line without the program name, e.g.
// "1.2.3 (commit abc1234, built 2026-11-21)", so that cobra's --version
// template ("gw version " + this) and `gw version` print the same line.
func (d Details) String() string {
	var extra []string
	if c := d.ShortCommit(); c != "" {
		extra = append(extra, "commit "+c)
	}
	if day := d.Day(); day != "" {
		extra = append(extra, "built "+day)
	}
	if len(extra) == 0 {
		return d.Version
	}
	return d.Version + " (" + strings.Join(extra, ", ") + ")"
}
