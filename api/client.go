package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/modelgateway/gw/internal/remedy"
)

// maxListBody caps how much of a model list is read.
const maxListBody = 4 << 20

// maxErrorBody caps how much of any other answer (an error, a redirect) is read and classified: far more than
// any error message, and little enough that a hostile or broken server sending megabytes costs nothing. The
// rest is never read; the connection is closed rather than drained.
const maxErrorBody = 64 << 10

// Client talks to the hosted service. Its zero Version sends "gw/dev".
type Client struct {
	BaseURL string // {base_url}, ending in /v1, used as given
	Key     string // "" sends no Authorization header
	HTTP    *http.Client
	// Version goes into the User-Agent as gw/<Version>.
	Version string
	// Canonical is the service's published base URL, when known; failures
	// that mean "wrong base URL" then name it in their fix.
	Canonical string
}

// NewClient returns a client of the service at baseURL. hc nil gets a client
// with NewTransport's defaults. Whatever hc does with redirects, the client
// never follows one (see do).
func NewClient(baseURL, key string, hc *http.Client) *Client {
	if hc == nil {
		hc = NewHTTPClient(NewTransport(TransportOptions{}), 0)
	}
	return &Client{BaseURL: baseURL, Key: key, HTTP: hc}
}

// NewHTTPClient is the http.Client for requests to the service: on rt, with an
// overall time-out (0: none), and refusing every redirect (the response is the
// 3xx itself). The service does not redirect API requests; following one would
// send the key wherever it points, in clear text if that is http://.
func NewHTTPClient(rt http.RoundTripper, timeout time.Duration) *http.Client {
	return &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: refuseRedirect}
}

func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// do sends req without following redirects, whichever http.Client c.HTTP is: a
// 3xx answer is returned as the *Error that names where it pointed, its body
// unread. Every other answer is returned as it is; its body is the caller's.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	hc := http.Client{}
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	hc.CheckRedirect = refuseRedirect
	res, err := hc.Do(req)
	if err != nil {
		return nil, c.transportError(err)
	}
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		res.Body.Close()
		return nil, c.redirectError(res)
	}
	return res, nil
}

// readBody reads at most limit bytes of res's body (limit+1, so that the
// caller can tell it was cut). An answer that is not a success is read no
// further than maxErrorBody: it is classified on that much.
func readBody(res *http.Response, limit int) ([]byte, error) {
	if res.StatusCode < 200 || res.StatusCode >= 300 {
		limit = min(limit, maxErrorBody)
	}
	return io.ReadAll(io.LimitReader(res.Body, int64(limit)+1))
}

// Model is one entry of the service's model list.
type Model struct {
	ID            string
	Name          string // from the service, if it gives one
	ContextLength int    // from the service, 0 if not given
	OwnedBy       string
	Created       int64 // Unix seconds, from the service; 0 if not given
}

// UserAgent is the User-Agent header the client sends.
func (c *Client) UserAgent() string {
	return "gw/" + cmp.Or(c.Version, "dev")
}

// newRequest builds a request to {base}/path with the key, Accept and
// User-Agent set. path starts with "/".
func (c *Client) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	u := c.BaseURL + path
	if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return nil, &Error{
			Condition: ServiceUnreachable, Kind: KindBaseURL,
			Cause: fmt.Sprintf("the base URL %q is not an http(s) address", c.BaseURL),
			Fix:   remedy.Remedy{Do: remedy.SetBaseURL, Value: c.Canonical},
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, ClassifyTransport(err)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.UserAgent())
	return req, nil
}

// classifyResponse is the package's ClassifyResponse that also scrubs this
// client's key from the service's words, knows a missing key for what it is
// and names the canonical base URL in fixes.
func (c *Client) classifyResponse(status int, header http.Header, body []byte, model string) *Error {
	e := classify(status, header, body, model, c.Key, c.Canonical)
	if e != nil && c.Key == "" && e.Condition == KeyRejected && e.Kind != KindNoBalance {
		e.Kind = KindWrongKey
		e.Cause = fmt.Sprintf("no API key was sent and the service requires one (%d)", e.Status)
		e.Fix = remedy.Remedy{Do: remedy.Login}
	}
	return c.noteCanonical(e)
}

// Models lists the models the key may use: GET {base}/models. Every error is
// an *Error.
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	req, err := c.newRequest(ctx, http.MethodGet, "/models", nil)
	if err != nil {
		return nil, err
	}
	res, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := readBody(res, maxListBody)
	if err != nil {
		return nil, c.transportError(err)
	}
	if res.StatusCode < 200 || res.StatusCode >= 300 {
		return nil, c.classifyResponse(res.StatusCode, res.Header, body, "")
	}
	if len(body) > maxListBody {
		return nil, &Error{
			Condition: ServiceUnreachable, Kind: KindBadResponse, Status: res.StatusCode,
			Cause: fmt.Sprintf("the model list is larger than %d MiB, which no model list is: the base URL likely points at something else", maxListBody>>20),
			Fix:   remedy.Remedy{Do: remedy.SetBaseURL, Value: c.Canonical},
		}
	}
	models, perr := parseModels(body)
	if perr == nil {
		return models, nil
	}
	// Some gateways answer 200 with an error body.
	if e := c.classifyResponse(res.StatusCode, res.Header, body, ""); e != nil {
		return nil, e
	}
	return nil, c.noteCanonical(&Error{
		Condition: ServiceUnreachable, Kind: KindBadResponse, Status: res.StatusCode,
		// perr quotes the start of the body, which may echo the request back: scrub the key.
		Cause: redact(fmt.Sprintf("GET %s/models answered %d with %s, not a model list: the base URL likely points at something other than the API", c.BaseURL, res.StatusCode, perr), c.Key),
		Fix:   remedy.Remedy{Do: remedy.SetBaseURL, Value: c.Canonical},
	})
}

func (c *Client) transportError(err error) *Error {
	e := ClassifyTransport(err)
	e.Cause = redact(e.Cause, c.Key)
	if e.Fix.Value == "" && takesBaseURL(e.Fix.Do) {
		e.Fix.Value = c.Canonical // the service's address, where the classification did not know it
	}
	return c.noteCanonical(e)
}

// takesBaseURL: the remedies whose value is the base URL to use.
func takesBaseURL(a remedy.Action) bool {
	switch a {
	case remedy.SetBaseURL, remedy.CheckHostName, remedy.CheckScheme, remedy.CheckHostPort, remedy.CheckRedirect:
		return true
	}
	return false
}

// noteCanonical adds, to failures that a wrong base URL explains, that the
// configured one is not the service's published address, and makes going back
// to that address the remedy.
func (c *Client) noteCanonical(e *Error) *Error {
	if e == nil || c.Canonical == "" || c.BaseURL == c.Canonical || !e.ExplainedByBaseURL() {
		return e
	}
	e.Cause += fmt.Sprintf("; note that the base URL %s differs from the service's address %s", c.BaseURL, c.Canonical)
	e.Fix = remedy.Remedy{Do: remedy.UseDefaultBaseURL, Value: c.Canonical}
	return e
}

// notList says what a 200 body was instead of a model list.
type notList string

func (n notList) Error() string { return string(n) }

// parseModels accepts {"object":"list","data":[…]}, the same without object,
// {"models":[…]}, a bare array, entries as objects with an id or as strings,
// and ignores fields it does not know.
func parseModels(body []byte) ([]Model, error) {
	b := bytes.TrimSpace(body)
	switch {
	case len(b) == 0:
		return nil, notList("an empty body")
	case looksHTML(b):
		if t := htmlTitle(b[:min(len(b), maxErrorBody)]); t != "" {
			return nil, notList("an HTML page titled " + quoted(tidy(t)))
		}
		return nil, notList("an HTML page")
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, notList("text that is not JSON (" + quoted(clip(strings.Join(strings.Fields(string(b[:min(len(b), 1<<10)])), " "), 60)) + ")")
	}
	var entries []any
	switch t := raw.(type) {
	case []any:
		entries = t
	case map[string]any:
		found := false
		for _, k := range []string{"data", "models"} {
			if l, ok := t[k].([]any); ok {
				entries, found = l, true
				break
			}
		}
		if !found {
			return nil, notList("a JSON object without a \"data\" list")
		}
	default:
		return nil, notList("a JSON value that is not a list")
	}
	models := make([]Model, 0, len(entries))
	seen := map[string]bool{}
	for _, en := range entries {
		var m Model
		switch v := en.(type) {
		case string:
			m.ID = v
		case map[string]any:
			m.ID = str(v["id"])
			if m.ID == "" {
				m.ID = str(v["model"])
			}
			m.Name = firstStr(v, "display_name", "name")
			m.OwnedBy = str(v["owned_by"])
			m.Created = int64(firstInt(v, "created"))
			m.ContextLength = firstInt(v, "context_length", "context_window", "max_context_length", "max_model_len", "input_token_limit")
			if m.ContextLength == 0 {
				if tp, ok := v["top_provider"].(map[string]any); ok {
					m.ContextLength = firstInt(tp, "context_length")
				}
			}
		}
		// What the service names is printed to a terminal and written into
		// agents' configs: no escape sequence or other control character of
		// a hostile answer gets through.
		m.ID, m.Name, m.OwnedBy = printable(strings.TrimSpace(m.ID)), printable(m.Name), printable(m.OwnedBy)
		if m.ID == "" || seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		models = append(models, m)
	}
	if len(models) == 0 && len(entries) > 0 {
		return nil, notList("a list whose entries carry no model id")
	}
	return models, nil
}

// printable replaces control characters (ESC and the other C0 and C1 codes,
// DEL) and the bidirectional-text controls that reorder what a terminal
// shows with U+FFFD.
func printable(s string) string {
	bad := func(r rune) bool {
		return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F
	}
	if strings.IndexFunc(s, bad) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if bad(r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func firstStr(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := strings.TrimSpace(str(m[k])); s != "" {
			return s
		}
	}
	return ""
}

func firstInt(m map[string]any, keys ...string) int {
	for _, k := range keys {
		switch v := m[k].(type) {
		case json.Number:
			if f, err := v.Float64(); err == nil && f > 0 {
				return int(f)
			}
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
