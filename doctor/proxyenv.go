package doctor

import (
	"fmt"
	"net/url"

	"golang.org/x/net/http/httpproxy"
)

// envAny is the first non-empty of the named variables (upper case first, as Go's HTTP client reads them).
func envAny(getenv func(string) string, names ...string) (name, value string) {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// proxyConfig reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY through getenv, exactly as net/http does from the
// process environment, so what doctor reports is what every gw command does.
func proxyConfig(getenv func(string) string) *httpproxy.Config {
	_, hp := envAny(getenv, "HTTP_PROXY", "http_proxy")
	_, hsp := envAny(getenv, "HTTPS_PROXY", "https_proxy")
	_, np := envAny(getenv, "NO_PROXY", "no_proxy")
	return &httpproxy.Config{HTTPProxy: hp, HTTPSProxy: hsp, NoProxy: np}
}

// proxyFor is the proxy a request to u goes through, nil for a direct connection.
func proxyFor(getenv func(string) string, u *url.URL) (*url.URL, error) {
	return proxyConfig(getenv).ProxyFunc()(u)
}

// proxyNote says how the proxy variables affect the connection to u; "" when none is set.
func proxyNote(getenv func(string) string, u *url.URL) string {
	pvar, pval := envAny(getenv, "HTTPS_PROXY", "https_proxy")
	if u.Scheme == "http" {
		pvar, pval = envAny(getenv, "HTTP_PROXY", "http_proxy")
	}
	nvar, nval := envAny(getenv, "NO_PROXY", "no_proxy")
	if pval == "" && nval == "" {
		return ""
	}
	p, err := proxyFor(getenv, u)
	switch {
	case err != nil:
		return fmt.Sprintf("%s=%q is not a valid proxy URL: %v", pvar, pval, err)
	case p != nil:
		return fmt.Sprintf("through the proxy %s (from %s)", p.Redacted(), pvar)
	case pval != "" && nval == "":
		return fmt.Sprintf("direct: %s is set, but a loopback address never goes through a proxy", pvar)
	case pval != "":
		return fmt.Sprintf("direct: %s=%s excludes %s from %s", nvar, nval, u.Hostname(), pvar)
	default:
		return fmt.Sprintf("direct (%s=%s is set, no proxy for %s)", nvar, nval, u.Scheme)
	}
}
