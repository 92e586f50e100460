package agents

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/config"
)

// Expect is what gw's entry in an agent's config should hold on this
// machine: what gw init agent's picker and gw doctor compare an Inspection
// with.
type Expect struct {
	ProxyPort  int    // gw serve's port
	LocalToken string // gw serve's local token; "": none yet
	// ServiceURLs are the base URLs a direct-mode entry may name (the
	// configured one, the published one).
	ServiceURLs []string
	// Subscribed are the account's model ids; nil: not known (no check).
	Subscribed []string
}

// FindingKind says what is wrong with gw's entry, most serious first.
type FindingKind string

const (
	FindOtherPort   FindingKind = "other port"       // gw serve's address with another port
	FindOtherURL    FindingKind = "other URL"        // neither gw serve nor the service
	FindStaleToken  FindingKind = "stale token"      // a local token gw serve no longer accepts
	FindPlainKey    FindingKind = "plain key"        // a key written into the file
	FindStaleModels FindingKind = "stale models"     // models the subscription does not have
	FindNote        FindingKind = "setting to check" // Inspection.Notes: a setting that hides gw's entry
)

// Finding is one thing wrong with gw's entry; Text says it in a sentence
// (without the file's name).
type Finding struct {
	Kind FindingKind
	Text string
}

// Findings compares what an agent's config holds with what gw expects. An
// unconfigured agent has no findings; nor has one that is as gw would write it.
func (in Inspection) Findings(e Expect) []Finding {
	var out []Finding
	if !in.Configured {
		if in.KeyKind == KeyLiteral {
			out = append(out, Finding{FindPlainKey, "holds an API key written into the file"})
		}
		return out
	}
	proxy := false
	direct := slices.ContainsFunc(e.ServiceURLs, func(s string) bool { return s != "" && sameURL(s, in.BaseURL) })
	if u, err := url.Parse(strings.TrimSpace(in.BaseURL)); err == nil && !direct && u.Host != "" && config.IsLoopbackHost(u.Hostname()) {
		proxy = true
		if p, _ := strconv.Atoi(u.Port()); p != e.ProxyPort {
			out = append(out, Finding{FindOtherPort, fmt.Sprintf("points at %s, but gw serve listens on port %d", in.BaseURL, e.ProxyPort)})
		}
	} else if !direct {
		want := ""
		if len(e.ServiceURLs) > 0 {
			want = e.ServiceURLs[0]
		}
		out = append(out, Finding{FindOtherURL, fmt.Sprintf("points at %s, which is neither gw serve nor the service (%s)", in.BaseURL, want)})
	}
	switch in.KeyKind {
	case KeyLocalToken:
		if e.LocalToken == "" || in.LocalToken != e.LocalToken {
			out = append(out, Finding{FindStaleToken, "holds a local token that gw serve no longer accepts (gw's config has another one)"})
		}
	case KeyLiteral:
		out = append(out, Finding{FindPlainKey, "holds an API key written into the file"})
	case KeyNone:
		if proxy {
			out = append(out, Finding{FindStaleToken, "sends no local token, so gw serve refuses its requests"})
		}
	case KeyCommand:
		// gw's credential command prints the token gw serve accepts; another command is the user's own.
		if proxy && !in.GwCommand {
			out = append(out, Finding{FindNote, fmt.Sprintf("gets its key from the command %q, not from gw; gw serve refuses anything but its local token", in.KeyCommand)})
		}
	}
	if e.Subscribed != nil {
		var gone []string
		for _, id := range in.Models {
			if !slices.Contains(e.Subscribed, id) {
				gone = append(gone, id)
			}
		}
		if len(gone) > 0 {
			out = append(out, Finding{FindStaleModels, "names models the subscription does not have: " + strings.Join(gone, ", ")})
		}
	}
	for _, n := range in.Notes {
		out = append(out, Finding{FindNote, n})
	}
	return out
}

// sameURL compares base URLs the way an agent would use them: a trailing
// slash does not matter.
func sameURL(a, b string) bool {
	return strings.TrimSuffix(strings.TrimSpace(a), "/") == strings.TrimSuffix(strings.TrimSpace(b), "/")
}

// State is a one-line summary of an agent's config for the agent picker:
// "not configured", "configured", or the most serious finding.
func (in Inspection) State(e Expect) string {
	if !in.Configured {
		if in.KeyKind == KeyLiteral {
			return "not configured, " + string(FindPlainKey)
		}
		return "not configured"
	}
	f := in.Findings(e)
	if len(f) == 0 {
		return fmt.Sprintf("configured (%d %s)", len(in.Models), plural(len(in.Models), "model", "models"))
	}
	kinds := []string{}
	for _, x := range f {
		if k := string(x.Kind); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return "configured: " + strings.Join(kinds, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
