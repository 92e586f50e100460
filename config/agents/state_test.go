package agents_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
)

const tok = "gw-local-0123456789abcdef0123456789abcdef"

func TestFindings(t *testing.T) {
	e := agents.Expect{ProxyPort: 8787, LocalToken: tok, ServiceURLs: []string{"https://api.example.com/v1", "http://127.0.0.1:5000/v1"}, Subscribed: []string{"a/one", "a/two"}}
	for _, tt := range []struct {
		name  string
		in    agents.Inspection
		kinds []agents.FindingKind
		state string
	}{
		{"not configured", agents.Inspection{}, nil, "not configured"},
		{"as gw writes it", agents.Inspection{Configured: true, BaseURL: "http://127.0.0.1:8787/v1", KeyKind: agents.KeyLocalToken, LocalToken: tok, Models: []string{"a/one"}}, nil, "configured (1 model)"},
		{"Claude Code's origin", agents.Inspection{Configured: true, BaseURL: "http://127.0.0.1:8787", KeyKind: agents.KeyLocalToken, LocalToken: tok, Models: []string{"a/one", "a/two"}}, nil, "configured (2 models)"},
		{"direct", agents.Inspection{Configured: true, BaseURL: "https://api.example.com/v1/", KeyKind: agents.KeyEnvRef, KeyRef: "GW_API_KEY", Models: []string{"a/one"}}, nil, "configured (1 model)"},
		{"other port", agents.Inspection{Configured: true, BaseURL: "http://localhost:9000/v1", KeyKind: agents.KeyLocalToken, LocalToken: tok}, []agents.FindingKind{agents.FindOtherPort}, "configured: other port"},
		{"stale token and models", agents.Inspection{Configured: true, BaseURL: "http://127.0.0.1:8787/v1", KeyKind: agents.KeyLocalToken, LocalToken: "gw-local-old", Models: []string{"a/one", "a/gone"}},
			[]agents.FindingKind{agents.FindStaleToken, agents.FindStaleModels}, "configured: stale token, stale models"},
		{"no token for gw serve", agents.Inspection{Configured: true, BaseURL: "http://127.0.0.1:8787/v1", KeyKind: agents.KeyNone}, []agents.FindingKind{agents.FindStaleToken}, "configured: stale token"},
		{"plain key elsewhere", agents.Inspection{Configured: true, BaseURL: "https://other.example/v1", KeyKind: agents.KeyLiteral, Notes: []string{"x"}},
			[]agents.FindingKind{agents.FindOtherURL, agents.FindPlainKey, agents.FindNote}, "configured: other URL, plain key, setting to check"},
		{"the service on loopback", agents.Inspection{Configured: true, BaseURL: "http://127.0.0.1:5000/v1", KeyKind: agents.KeyEnvRef, KeyRef: "GW_API_KEY"}, nil, "configured (0 models)"},
		{"plain key, not gw's", agents.Inspection{KeyKind: agents.KeyLiteral}, []agents.FindingKind{agents.FindPlainKey}, "not configured, plain key"},
	} {
		var kinds []agents.FindingKind
		for _, f := range tt.in.Findings(e) {
			kinds = append(kinds, f.Kind)
			if f.Text == "" {
				t.Errorf("%s: finding %s has no text", tt.name, f.Kind)
			}
		}
		if !slices.Equal(kinds, tt.kinds) {
			t.Errorf("%s: findings %q, want %q", tt.name, kinds, tt.kinds)
		}
		if got := tt.in.State(e); got != tt.state {
			t.Errorf("%s: state %q, want %q", tt.name, got, tt.state)
		}
	}
	// A subscription not known: no model finding.
	in := agents.Inspection{Configured: true, BaseURL: "http://127.0.0.1:8787/v1", KeyKind: agents.KeyLocalToken, LocalToken: tok, Models: []string{"x/y"}}
	if f := in.Findings(agents.Expect{ProxyPort: 8787, LocalToken: tok}); len(f) != 0 {
		t.Errorf("findings without a subscription: %+v", f)
	}
}

// TestFindings_CredentialCommand: gw's credential command is a key setting doctor is content with; another
// command is named.
func TestFindings_CredentialCommand(t *testing.T) {
	e := agents.Expect{ProxyPort: 8787, LocalToken: "gw-local-x"}
	gw := agents.Inspection{Configured: true, BaseURL: "http://127.0.0.1:8787/v1", KeyKind: agents.KeyCommand, KeyCommand: "/bin/gw auth token --serve", GwCommand: true}
	if f := gw.Findings(e); len(f) != 0 {
		t.Errorf("gw's command: findings %+v", f)
	}
	other := gw
	other.KeyCommand, other.GwCommand = "~/key.sh", false
	if f := other.Findings(e); len(f) != 1 || !strings.Contains(f[0].Text, `"~/key.sh"`) {
		t.Errorf("another command: findings %+v", f)
	}
}
