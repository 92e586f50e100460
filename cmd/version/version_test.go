package version

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelgateway/gw/cmd/build"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/tui"
)

func TestNewCmdVersion(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantJSON bool
		wantErr  string
	}{
		{name: "no flags", args: []string{}},
		{name: "json", args: []string{"--json"}, wantJSON: true},
		{name: "an argument", args: []string{"extra"}, wantErr: `unknown command "extra" for "version"`},
		{name: "unknown flag", args: []string{"--short"}, wantErr: "unknown flag: --short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := tui.Test()
			f := &cmdutil.Factory{IOStreams: ios, DefaultBaseURL: "https://gateway.example.com/v1"}
			var got *VersionOptions
			cmd := NewCmdVersion(f, func(o *VersionOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			_, err := cmd.ExecuteC()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got.JSON != tt.wantJSON {
				t.Errorf("JSON = %v, want %v", got.JSON, tt.wantJSON)
			}
			// The base URL shown is the one the factory gives every other command.
			if d := got.Info(); d.DefaultBaseURL != "https://gateway.example.com/v1" {
				t.Errorf("Info().DefaultBaseURL = %q, want the factory's", d.DefaultBaseURL)
			}
		})
	}
}

func TestVersionRun(t *testing.T) {
	release := build.Details{
		Version:        "1.2.3",
		Commit:         "abc1234def567890abc1234def567890abc1234d",
		Date:           "2026-11-21T10:00:00Z",
		DefaultBaseURL: "https://gateway.example.com/v1",
		GoVersion:      "go1.26.8",
		Platform:       "linux/amd64",
	}
	goInstall := build.Details{Version: "1.4.0", GoVersion: "go1.26.8", Platform: "darwin/arm64"}

	tests := []struct {
		name string
		info build.Details
		json bool
		want string
	}{
		{
			name: "release build",
			info: release,
			want: "gw version 1.2.3 (commit abc1234, built 2026-11-21)\n" +
				"default base URL: https://gateway.example.com/v1\n",
		},
		{
			name: "go install build without a default",
			info: goInstall,
			want: "gw version 1.4.0\n" +
				"default base URL: none (set one with gw auth login --base-url URL)\n",
		},
		{
			name: "json",
			info: release,
			json: true,
			want: `{
  "version": "1.2.3",
  "commit": "abc1234def567890abc1234def567890abc1234d",
  "date": "2026-11-21T10:00:00Z",
  "default_base_url": "https://gateway.example.com/v1",
  "go_version": "go1.26.8",
  "platform": "linux/amd64"
}
`,
		},
		{
			name: "json without a default keeps the field, empty",
			info: goInstall,
			json: true,
			want: `{
  "version": "1.4.0",
  "commit": "",
  "date": "",
  "default_base_url": "",
  "go_version": "go1.26.8",
  "platform": "darwin/arm64"
}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, stdout, stderr := tui.Test()
			err := versionRun(&VersionOptions{IO: ios, Info: func() build.Details { return tt.info }, JSON: tt.json})
			if err != nil {
				t.Fatal(err)
			}
			if stdout.String() != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tt.want)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr: %q, want nothing", stderr)
			}
			if tt.json && !json.Valid(stdout.Bytes()) {
				t.Errorf("--json output is not valid JSON")
			}
		})
	}
}
