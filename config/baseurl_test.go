package config

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateBaseURL_Valid(t *testing.T) {
	for _, in := range []string{
		"https://gateway.example.com/v1",
		"http://127.0.0.1:8080/v1",
		"https://openrouter.ai/api/v1",
		"http://[::1]:9/v1",
	} {
		got, err := ValidateBaseURL(in)
		if err != nil || got != in {
			t.Errorf("ValidateBaseURL(%q) = %q, %v; want it unchanged", in, got, err)
		}
	}
}

func TestValidateBaseURL_Problems(t *testing.T) {
	tests := []struct {
		in, problem, fixed string
	}{
		{"https://x.io/v1/", "has a trailing slash", "https://x.io/v1"},
		{" https://x.io/v1\n", "has whitespace around it", "https://x.io/v1"},
		{"https://x.io", "does not end in /v1", "https://x.io/v1"},
		{"https://x.io/", "has a trailing slash and does not end in /v1", "https://x.io/v1"},
		{"https://x.io/api", "does not end in /v1", "https://x.io/api/v1"},
		{"https://x.io/v1/chat/completions", "ends in the endpoint path /chat/completions; the base URL stops before it", "https://x.io/v1"},
		{"https://x.io/v1/models", "ends in the endpoint path /models", "https://x.io/v1"},
		{"https://x.io/v1/completions", "ends in the endpoint path /completions;", "https://x.io/v1"},
		{"https://x.io/v1/responses", "ends in the endpoint path /responses", "https://x.io/v1"},
		{"https://x.io/v1/chat/completions/", "has a trailing slash and ends in the endpoint path /chat/completions", "https://x.io/v1"},
		{"x.io/v1", "has no scheme", "https://x.io/v1"},
		{"ftp://x.io/v1", `uses the scheme "ftp"`, "https://x.io/v1"},
		{"https://x.io/v1?key=1", "has a query string", "https://x.io/v1"},
		{"https://x.io/v1#frag", "has a fragment", "https://x.io/v1"},
		{"https://x.io/v2", "ends in /v2", "https://x.io/v1"},
		{"http://127.0.0.1:18080/V1", "ends in /V1; the path is case-sensitive", "http://127.0.0.1:18080/v1"},
		{"https://x.io/V1/chat/completions", "ends in /V1", "https://x.io/v1"},
		{"https://x.io/V2", "ends in /V2", "https://x.io/v1"},
		{"https://u:secret@x.io/v1", "contains a user name or password", "https://x.io/v1"},
		{"\u200bhttps://x.io/v1", "has whitespace around it", "https://x.io/v1"},
		{"https:///v1", "has no host name", ""},
		{"https://", "has no host name", ""},
		{"", "is empty", ""},
		{"   ", "is empty", ""},
		{"https://x.io/ v1", "contains whitespace", ""},
		{"https://x.io:port/v1", "is not a valid URL", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ValidateBaseURL(tt.in)
			var p *BaseURLProblem
			if !errors.As(err, &p) {
				t.Fatalf("ValidateBaseURL(%q) = %q, %v; want a *BaseURLProblem", tt.in, got, err)
			}
			if got != "" {
				t.Errorf("returned %q alongside an error", got)
			}
			if !strings.Contains(p.Problem, tt.problem) {
				t.Errorf("problem %q, want it to contain %q", p.Problem, tt.problem)
			}
			if p.Fixed != tt.fixed {
				t.Errorf("fixed %q, want %q", p.Fixed, tt.fixed)
			}
			if p.Input != tt.in {
				t.Errorf("input %q, want %q", p.Input, tt.in)
			}
			if tt.fixed != "" {
				if _, err := ValidateBaseURL(tt.fixed); err != nil {
					t.Errorf("the suggested fix is itself rejected: %v", err)
				}
			}
		})
	}
}

func TestBaseURLProblem_Message(t *testing.T) {
	_, err := ValidateBaseURL("https://x/v1/")
	if got, want := err.Error(), `base URL "https://x/v1/" has a trailing slash; use https://x/v1`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	_, err = ValidateBaseURL("https://me:sk-secret@x/v1?api_key=sk-other")
	if strings.Contains(err.Error(), "sk-secret") || strings.Contains(err.Error(), "sk-other") {
		t.Errorf("message repeats a secret from the URL: %s", err)
	}
}

func TestCheckScheme(t *testing.T) {
	err := CheckScheme("https://gw.example.com/v1", "http://gw.example.com/v1")
	var p *BaseURLProblem
	if !errors.As(err, &p) || p.Fixed != "https://gw.example.com/v1" || !strings.Contains(p.Problem, "uses http") {
		t.Errorf("downgrade: %v", err)
	}
	for _, c := range [][2]string{
		{"https://gw.example.com/v1", "https://gw.example.com/v1"},
		{"https://gw.example.com/v1", "http://127.0.0.1:8080/v1"},
		{"http://gw.example.com/v1", "http://gw.example.com/v1"},
		{"", "http://gw.example.com/v1"},
	} {
		if err := CheckScheme(c[0], c[1]); err != nil {
			t.Errorf("CheckScheme(%q, %q) = %v, want nil", c[0], c[1], err)
		}
	}
}

func TestResolveBaseURL(t *testing.T) {
	tests := []struct {
		flag, env, file, def string
		want                 string
		src                  Source
	}{
		{"f", "e", "c", "d", "f", SourceFlag},
		{"", "e", "c", "d", "e", SourceEnv},
		{"", "", "c", "d", "c", SourceConfig},
		{"", "", "", "d", "d", SourceDefault},
		{"", "", "", "", "", ""},
	}
	for _, tt := range tests {
		got, src := ResolveBaseURL(tt.flag, tt.env, tt.file, tt.def)
		if got != tt.want || src != tt.src {
			t.Errorf("ResolveBaseURL(%q,%q,%q,%q) = %q,%q; want %q,%q", tt.flag, tt.env, tt.file, tt.def, got, src, tt.want, tt.src)
		}
	}
}

// Sources are named the one way every message names them.
func TestSourceFrom(t *testing.T) {
	for src, want := range map[Source]string{SourceFlag: "from --base-url", SourceEnv: "from GW_BASE_URL",
		SourceConfig: "from the config file", SourceDefault: "built into gw", "": "given"} {
		if got := src.From(); got != want {
			t.Errorf("%q.From() = %q, want %q", src, got, want)
		}
	}
}
