package proxy

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
)

// refusal is why the filter turned a request away.
type refusal struct {
	status  int
	code    string
	message string
}

// filter holds the rules a request must pass before it is forwarded. As in
// kubectl proxy, every rule rejects; nothing here grants more than the rules
// before it. The order matters only for which reason is reported: browser
// signs first (they are the attack gw serve exists to stop), then the Host
// (DNS rebinding), then the local token, then the path.
type filter struct {
	localToken  string
	acceptHosts map[string]bool // lower-case host names without port
}

func newFilter(localToken string, extraHosts []string) *filter {
	f := &filter{localToken: localToken, acceptHosts: map[string]bool{
		"127.0.0.1": true, "localhost": true, "::1": true,
	}}
	for _, h := range extraHosts {
		h = strings.ToLower(strings.Trim(h, "[]"))
		if h != "" {
			f.acceptHosts[h] = true
		}
	}
	return f
}

func (f *filter) check(r *http.Request, rt *route) *refusal {
	if ref := f.checkSender(r, rt.bare); ref != nil {
		return ref
	}
	if ref := f.checkToken(r); ref != nil {
		return ref
	}
	if !strings.HasPrefix(r.URL.Path, "/v1/") && rt.proto == nil {
		return &refusal{http.StatusNotFound, CodeNotFound, fmt.Sprintf(
			"not found: gw serve forwards only /v1/… paths, not %s; set the client's base URL to http://%s/v1",
			quoteShort(r.URL.Path), r.Host)}
	}
	if why := unsafePath(r.URL.Path); why != "" {
		return &refusal{http.StatusNotFound, CodeNotFound, fmt.Sprintf(
			"not found: gw serve does not forward %s: it %s, which could reach past /v1 on the service",
			quoteShort(r.URL.EscapedPath()), why)}
	}
	return nil
}

// checkSender refuses what a web page sent, and a Host that is not this
// listener's: the rules before the token.
func (f *filter) checkSender(r *http.Request, bare bool) *refusal {
	if o := r.Header.Values("Origin"); len(o) > 0 {
		return &refusal{http.StatusForbidden, CodeOriginRefused, fmt.Sprintf(
			"%s: request refused: it carries an Origin header (%s), so it comes from a web page; "+
				"gw serve only accepts local tools, and a page must not spend your balance", api.KeyRejected.Message(), quoteShort(o[0]))}
	}
	if strings.EqualFold(strings.TrimSpace(r.Header.Get("Sec-Fetch-Site")), "cross-site") {
		return &refusal{http.StatusForbidden, CodeCrossSiteRefused,
			api.KeyRejected.Message() + ": request refused: Sec-Fetch-Site is cross-site, so a web page sent it; gw serve only accepts local tools"}
	}
	return f.checkHost(r, bare)
}

func (f *filter) checkHost(r *http.Request, bare bool) *refusal {
	port := localPort(r)
	host, hostPort, err := net.SplitHostPort(r.Host)
	if err == nil && port > 0 && portIs(hostPort, port) && f.acceptsHost(host) {
		return nil
	}
	want := "127.0.0.1, localhost or [::1]"
	portText := ""
	if port > 0 {
		portText = strconv.Itoa(port)
		want += " with port " + portText
	}
	base := "http://127.0.0.1:" + portText + "/v1"
	if bare {
		base = strings.TrimSuffix(base, "/v1") // Claude Code adds /v1/messages itself, @google/genai /v1beta
	}
	return &refusal{http.StatusForbidden, CodeHostRefused, fmt.Sprintf(
		"%s: request refused: Host %s is not %s (protection against DNS rebinding); "+
			"point the client at %s", api.ServiceUnreachable.Message(), quoteShort(r.Host), want, base)}
}

// portIs compares the port of a Host header with the listener's, as text
// ("08787" is not 8787) and without allocating.
func portIs(s string, port int) bool {
	var buf [8]byte
	return s == string(strconv.AppendInt(buf[:0], int64(port), 10))
}

// acceptsHost looks host up without lower-casing a copy of it when it is
// lower case already, as clients send it.
func (f *filter) acceptsHost(host string) bool {
	for i := 0; i < len(host); i++ {
		if 'A' <= host[i] && host[i] <= 'Z' {
			return f.acceptHosts[strings.ToLower(host)]
		}
	}
	return f.acceptHosts[host]
}

// checkToken accepts the local token as a Bearer token, in X-Api-Key
// (where Anthropic's clients send their key) or in X-Goog-Api-Key (where
// Google's do); either one right is enough.
func (f *filter) checkToken(r *http.Request) *refusal {
	auth := r.Header.Get("Authorization")
	xKey := strings.TrimSpace(r.Header.Get("X-Api-Key"))
	if xKey == "" {
		xKey = strings.TrimSpace(r.Header.Get("X-Goog-Api-Key"))
	}
	if auth == "" && xKey == "" {
		return &refusal{http.StatusUnauthorized, CodeLocalTokenMissing, api.KeyRejected.Message() +
			": gw serve needs its local token as the client's key (Authorization: Bearer gw-local-…, or x-api-key: gw-local-…); " +
			localTokenFix()}
	}
	if xKey != "" && f.localToken != "" && equalConstantTime(xKey, f.localToken) {
		return nil
	}
	scheme, token, _ := strings.Cut(auth, " ")
	token = strings.TrimSpace(token)
	if auth == "" {
		scheme, token = "Bearer", xKey // what is wrong is the x-api-key
	}
	if !strings.EqualFold(scheme, "Bearer") || f.localToken == "" || !equalConstantTime(token, f.localToken) {
		hint := ""
		if !strings.HasPrefix(token, "gw-local-") {
			// The commonest mistake: the real key pasted where the local token belongs.
			hint = " (the client sent something that is not a gw local token — the real API key belongs in gw's keychain, not in the client)"
		}
		return &refusal{http.StatusUnauthorized, CodeLocalTokenInvalid, api.KeyRejected.Message() +
			": the client's key is not this install's gw serve local token" + hint +
			"; " + localTokenFix()}
	}
	return nil
}

// localTokenFix is where a client finds the local token, in the renderer's words for gw serve's answer.
func localTokenFix() string {
	return render.Text(remedy.Remedy{Do: remedy.UseLocalToken}, render.Context{Where: render.Serve})
}

// equalConstantTime is subtle.ConstantTimeCompare for strings: the time
// taken does not depend on where they differ, and no []byte copies are made.
func equalConstantTime(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := 0; i < len(a); i++ {
		v |= a[i] ^ b[i]
	}
	return subtle.ConstantTimeByteEq(v, 0) == 1
}

// unsafePath says why path (decoded, under /v1/) must not be forwarded, or
// returns "" when it may be. The service, or something in front of it, may
// read a path more loosely than gw serve: treat "\" as "/" (Windows, IIS),
// decode it once more ("%255c"), decode overlong UTF-8 ("%c0%ae" as "."),
// fold full-width forms ("．．／"), cut at NUL, or drop ";params" from a
// segment ("..;" as ".."). So beyond dot segments, only printable ASCII
// without "\" and "%" passes: API paths (ids of models, files, responses)
// need nothing else. The path is the decoded one, so every encoding of these
// characters ("%5c", "%2e%2e", "%2f..%2f", "%00") is caught as well.
func unsafePath(path string) string {
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\':
			return "holds a backslash"
		case c == '%':
			return "holds a percent sign (a path encoded twice)"
		case c < 0x20 || c == 0x7f:
			return "holds a control character"
		case c >= 0x80:
			return "holds a character other than printable ASCII"
		}
	}
	for rest := path; rest != ""; {
		seg, next, _ := strings.Cut(rest, "/")
		if dotSegment(seg) {
			return "has a dot segment"
		}
		rest = next
	}
	return ""
}

// dotSegment reports whether seg is "." or "..", also as read by servers
// that ignore ";params" or trailing dots and spaces in a segment (Tomcat,
// Windows): "..;x", "...", ". .".
func dotSegment(seg string) bool {
	seg, _, _ = strings.Cut(seg, ";")
	if seg == "" {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] != '.' && seg[i] != ' ' {
			return false
		}
	}
	return true
}

// localPort is the port of the connection the request came in on (0 when
// unknown), so the Host check needs no configuration and works with
// --port 0.
func localPort(r *http.Request) int {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		return a.Port
	case net.Addr:
		_, port, err := net.SplitHostPort(a.String())
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(port)
		return n
	}
	return 0
}

// quoteShort quotes client-provided text for a message, bounded so a hostile
// header cannot blow up a log line or an error body.
func quoteShort(s string) string { return strconv.Quote(clip(s)) }
