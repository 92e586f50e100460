package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/modelgateway/gw/internal/remedy"
)

// BaseURLProblem is a base URL gw will not use as given. Fixed is the value to
// use instead ("" when there is no safe guess).
type BaseURLProblem struct {
	Input   string
	Problem string // e.g. "has a trailing slash"
	Fixed   string
}

func (p *BaseURLProblem) Error() string {
	if p.Fixed == "" {
		return fmt.Sprintf("base URL %q %s", redact(p.Input), p.Problem)
	}
	return fmt.Sprintf("base URL %q %s; use %s", redact(p.Input), p.Problem, p.Fixed)
}

// redact hides what could be a secret in a pasted URL (a password, a query
// string) before it is printed.
func redact(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.User == nil && u.RawQuery == "") {
		return s
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if u.RawQuery != "" {
		u.RawQuery = "xxxxx"
	}
	return u.String()
}

// Endpoint paths people paste by mistake after /v1.
var endpoints = []string{"/chat/completions", "/completions", "/models", "/responses", "/embeddings"}

var otherVersion = regexp.MustCompile(`(?i)^v[0-9]+[a-z0-9]*$`)

// ValidateBaseURL returns raw unchanged when it is a usable base URL: http or
// https, a host, a path ending in /v1, no trailing slash, no query or
// fragment, no surrounding whitespace. Otherwise it returns a
// *BaseURLProblem naming every problem found and the corrected value; nothing
// is normalised silently.
func ValidateBaseURL(raw string) (string, error) {
	var problems []string
	s := raw
	fail := func(problem string) (string, error) {
		problems = append(problems, problem)
		return "", &BaseURLProblem{Input: raw, Problem: join(problems)}
	}

	if strings.TrimSpace(s) == "" {
		return fail("is empty; set it with --base-url or GW_BASE_URL, e.g. https://gateway.example.com/v1")
	}
	if t := strings.TrimFunc(s, isSpaceOrInvisible); t != s {
		problems = append(problems, "has whitespace around it")
		s = t
	}
	if i := strings.IndexFunc(s, isSpaceOrInvisible); i >= 0 {
		return fail("contains whitespace or an invisible character inside it")
	}
	if !strings.Contains(s, "://") {
		problems = append(problems, "has no scheme")
		s = "https://" + strings.TrimPrefix(s, "//")
	}
	u, err := url.Parse(s)
	if err != nil {
		return fail("is not a valid URL (" + unwrapURLError(err) + ")")
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http":
	default:
		problems = append(problems, fmt.Sprintf("uses the scheme %q; only https (or http for a local service) works", u.Scheme))
		u.Scheme = "https"
	}
	if u.Host == "" || u.Hostname() == "" {
		return fail("has no host name")
	}
	if u.User != nil {
		problems = append(problems, "contains a user name or password; the API key goes in gw's keychain, not in the URL")
		u.User = nil
	}
	if u.RawQuery != "" || u.ForceQuery {
		problems = append(problems, "has a query string (?…), which a base URL cannot have")
		u.RawQuery, u.ForceQuery = "", false
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		problems = append(problems, "has a fragment (#…), which a base URL cannot have")
		u.Fragment, u.RawFragment = "", ""
	}

	path := u.EscapedPath()
	if strings.HasSuffix(path, "/") && path != "/" || path == "/" {
		problems = append(problems, "has a trailing slash")
		path = strings.TrimRight(path, "/")
	}
	for _, ep := range endpoints {
		if strings.HasSuffix(path, ep) {
			problems = append(problems, fmt.Sprintf("ends in the endpoint path %s; the base URL stops before it", ep))
			path = strings.TrimSuffix(path, ep)
			break
		}
	}
	if !strings.HasSuffix(path, "/v1") {
		last := path[strings.LastIndex(path, "/")+1:]
		if last == "V1" {
			// Paths are case-sensitive: the service answers /v1 only.
			problems = append(problems, "ends in /V1; the path is case-sensitive: /v1")
			path = strings.TrimSuffix(path, last) + "v1"
		} else if otherVersion.MatchString(last) {
			problems = append(problems, fmt.Sprintf("ends in /%s; gw speaks the service's /v1 API", last))
			path = strings.TrimSuffix(path, last) + "v1"
		} else {
			problems = append(problems, "does not end in /v1")
			path += "/v1"
		}
	}

	if len(problems) == 0 {
		return raw, nil
	}
	fixed := u.Scheme + "://" + u.Host + path
	return "", &BaseURLProblem{Input: raw, Problem: join(problems), Fixed: fixed}
}

func join(problems []string) string {
	switch len(problems) {
	case 1:
		return problems[0]
	case 2:
		return problems[0] + " and " + problems[1]
	}
	return strings.Join(problems[:len(problems)-1], ", ") + " and " + problems[len(problems)-1]
}

// isSpaceOrInvisible: whitespace, control characters and zero-width/format
// characters (U+200B, BOM) that come along when copying from web pages.
func isSpaceOrInvisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

func unwrapURLError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return err.Error()
}

// CheckScheme reports a base URL that uses plain http for the same host the
// configured base URL reaches over https — a downgrade that would send the
// key unencrypted. Different hosts (e.g. a local test service) are not
// compared. configured or got being empty or unparsable is not a problem here.
func CheckScheme(configured, got string) error {
	c, err1 := url.Parse(strings.TrimSpace(configured))
	g, err2 := url.Parse(strings.TrimSpace(got))
	if err1 != nil || err2 != nil || configured == "" || got == "" {
		return nil
	}
	if !strings.EqualFold(c.Scheme, "https") || !strings.EqualFold(g.Scheme, "http") {
		return nil
	}
	if !strings.EqualFold(c.Hostname(), g.Hostname()) {
		return nil
	}
	fixed := *g
	fixed.Scheme = "https"
	if g.Port() == "" || g.Port() == "80" {
		fixed.Host = c.Host
	}
	return &BaseURLProblem{
		Input:   got,
		Problem: fmt.Sprintf("uses http but the configured base URL %s uses https, so the key would travel unencrypted", c.Redacted()),
		Fixed:   fixed.String(),
	}
}

// EnvBaseURL overrides the base URL of the config file (and --base-url overrides it).
const EnvBaseURL = "GW_BASE_URL"

// Source says where a setting came from.
type Source string

const (
	SourceFlag    Source = "flag"
	SourceEnv     Source = "env"
	SourceConfig  Source = "config"
	SourceDefault Source = "default"
)

// Fix is where the base URL came from as a fix names it (render.Context's BaseURL): the renderer knows
// no config.
func (s Source) Fix() remedy.Source {
	switch s {
	case SourceEnv:
		return remedy.Source{Kind: remedy.FromEnv, Name: EnvBaseURL}
	case SourceFlag:
		return remedy.Source{Kind: remedy.FromFlag, Name: "--base-url"}
	case SourceConfig, SourceDefault:
		return remedy.Source{Kind: remedy.FromStore}
	}
	return remedy.Source{}
}

// From names the source for a message about the base URL: "from --base-url", "from GW_BASE_URL", "from the
// config file", "built into gw".
func (s Source) From() string {
	switch s {
	case SourceFlag:
		return "from --base-url"
	case SourceEnv:
		return "from " + EnvBaseURL
	case SourceConfig:
		return "from the config file"
	case SourceDefault:
		return "built into gw"
	}
	return "given"
}

// ResolveBaseURL picks the first non-empty of the --base-url flag,
// GW_BASE_URL, the config file and the build-time default. It does not
// validate; call ValidateBaseURL on the result. ("", "") when all are empty.
func ResolveBaseURL(flag, env, file, def string) (string, Source) {
	switch {
	case flag != "":
		return flag, SourceFlag
	case env != "":
		return env, SourceEnv
	case file != "":
		return file, SourceConfig
	case def != "":
		return def, SourceDefault
	}
	return "", ""
}
