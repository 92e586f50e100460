package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
)

// redirectError is a 3xx answer from the base URL. The service does not redirect API requests, so one means
// a wrong base URL or something in between (a proxy, a captive portal, a website at that address). gw never
// follows it: the request carries the key, and the Location may point anywhere, plain http included.
func (c *Client) redirectError(res *http.Response) *Error {
	var from *url.URL
	if res.Request != nil {
		from = res.Request.URL
	}
	loc := res.Header.Get("Location")
	if u, err := res.Location(); err == nil { // resolved against the request's URL
		loc = u.String()
	}
	e := redirect(res.StatusCode, from, loc, c.Key, c.Canonical)
	if c.Canonical != "" && c.BaseURL == c.Canonical {
		// The service's own address redirected: not a setting the user can correct.
		e.Fix = remedy.Remedy{Do: remedy.NetworkPortal}
		return e
	}
	return c.noteCanonical(e)
}

// redirect describes a redirect to loc (as the Location header gave it, or resolved) answered to a request
// for from (nil when not known).
func redirect(status int, from *url.URL, loc, key, canonical string) *Error {
	e := &Error{Condition: ServiceUnreachable, Kind: KindBaseURL, Status: status}
	where := describeLocation(loc, key)
	who := "the server"
	if from != nil {
		who = redact(stripURL(from).String(), key)
	}
	what := fmt.Sprintf("%s answered %d", who, status)
	if t := http.StatusText(status); t != "" {
		what += " " + t
	}
	e.Cause = fmt.Sprintf("%s, redirecting to %s: the service does not redirect API requests, so the base URL is not the API's address (or something in between is answering for it); gw did not follow the redirect, so the key was not sent there",
		what, where)
	if to, err := url.Parse(loc); err == nil && from != nil && from.Scheme == "https" && to.Scheme == "http" {
		e.Cause += " (it pointed from https to plain http, where the key would travel unencrypted)"
	}
	e.Fix = remedy.Remedy{Do: remedy.CheckRedirect, Value: canonical}
	return e
}

// describeLocation names a Location for a message: without its query string and fragment (they may hold
// tokens) and without credentials, clipped; the key and anything secret-looking are scrubbed.
func describeLocation(loc, key string) string {
	loc = strings.TrimSpace(loc)
	if loc == "" {
		return "no location (the answer has no Location header)"
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "a Location that is not a URL"
	}
	// Cut before scrubbing (a header may be megabytes), with room enough that a key is not cut in two
	// before the scrub and then shown in part.
	shown := stripURL(u).String()
	shown = shown[:min(len(shown), 2<<10)]
	return clip(redact(shown, key), 200)
}

// stripURL is u without credentials, query or fragment; a query becomes "?…" so that the reader knows one
// was there.
func stripURL(u *url.URL) *url.URL {
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	c.ForceQuery = false
	if c.RawQuery != "" {
		c.RawQuery = "…"
	}
	return &c
}
