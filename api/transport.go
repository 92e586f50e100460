package api

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
	"weak"

	"github.com/modelgateway/gw/internal/defaults"
	"github.com/modelgateway/gw/internal/remedy"
)

// Defaults are generous: reasoning models may think for minutes before the
// first header of a streamed answer.
const (
	DefaultDialTimeout           = 10 * time.Second
	DefaultTLSHandshakeTimeout   = 10 * time.Second
	DefaultResponseHeaderTimeout = 5 * time.Minute
	DefaultMaxIdleConnsPerHost   = 64
	// DefaultIdleConnTimeout keeps an unused connection to the service past
	// the pauses of a user who reads and thinks between an agent's turns
	// (a new connection costs the TCP and TLS handshakes: two round trips).
	// gw serve stops opening connections ahead of need a minute sooner after
	// the agents' last request (proxy/warm.go), so its idle connections end
	// within this time-out of it.
	DefaultIdleConnTimeout = 15 * time.Minute
	// DefaultPingInterval: an HTTP/2 connection that received nothing for
	// this long is sent a PING, which keeps NAT entries and middleboxes
	// from dropping it silently and finds out when they did (no answer in
	// DefaultPingTimeout closes it, so the next request opens a new one
	// instead of waiting on a dead one).
	DefaultPingInterval = 30 * time.Second
	DefaultPingTimeout  = 15 * time.Second
)

// TransportOptions tunes NewTransport. Zero values take the defaults above.
type TransportOptions struct {
	DialTimeout, TLSHandshakeTimeout, ResponseHeaderTimeout time.Duration
	MaxIdleConnsPerHost                                     int
	RootCAs                                                 *x509.CertPool // nil: the OS trust store
	// Proxy chooses the proxy per request; nil: HTTPS_PROXY/HTTP_PROXY/NO_PROXY
	// from the environment.
	Proxy func(*http.Request) (*url.URL, error)
	// Resolver resolves host names; nil: the system's.
	Resolver *net.Resolver
}

// ProxyError is a refusal by the HTTP proxy in front of the service (the
// answer to CONNECT was not 200).
type ProxyError struct {
	Proxy  string // the proxy's address, without credentials
	Status int
}

func (e *ProxyError) Error() string {
	return fmt.Sprintf("proxy %s answered CONNECT with %d %s", e.Proxy, e.Status, http.StatusText(e.Status))
}

// NewTransport returns the transport every request to the service goes
// through: proxy from the environment, HTTP/2 attempted (with PINGs on an
// idle connection), time-outs per phase, idle connections kept across an
// agent's pauses, and no compression so that streamed events are never
// held back. Its Conns counts its connections, and can prepare one ahead of
// need (Conns.Prepare): it opens its TLS connections itself (prepare.go).
func NewTransport(o TransportOptions) *Transport {
	o.DialTimeout = defaults.Positive(o.DialTimeout, DefaultDialTimeout)
	o.TLSHandshakeTimeout = defaults.Positive(o.TLSHandshakeTimeout, DefaultTLSHandshakeTimeout)
	o.ResponseHeaderTimeout = defaults.Positive(o.ResponseHeaderTimeout, DefaultResponseHeaderTimeout)
	o.MaxIdleConnsPerHost = defaults.Positive(o.MaxIdleConnsPerHost, DefaultMaxIdleConnsPerHost)
	if o.Proxy == nil {
		o.Proxy = http.ProxyFromEnvironment
	}
	d := &net.Dialer{Timeout: o.DialTimeout, KeepAlive: 30 * time.Second, Resolver: o.Resolver}
	c := &Conns{}
	t := &http.Transport{
		Proxy:                 o.Proxy,
		DialContext:           c.dial(d.DialContext),
		ForceAttemptHTTP2:     true,
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   o.TLSHandshakeTimeout,
		ResponseHeaderTimeout: o.ResponseHeaderTimeout,
		MaxIdleConns:          max(100, o.MaxIdleConnsPerHost),
		MaxIdleConnsPerHost:   o.MaxIdleConnsPerHost,
		IdleConnTimeout:       DefaultIdleConnTimeout,
		HTTP2:                 &http.HTTP2Config{SendPingTimeout: DefaultPingInterval, PingTimeout: DefaultPingTimeout},
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		OnProxyConnectResponse: func(_ context.Context, proxy *url.URL, _ *http.Request, res *http.Response) error {
			if res.StatusCode != http.StatusOK {
				return &ProxyError{Proxy: proxy.Redacted(), Status: res.StatusCode}
			}
			return nil
		},
	}
	t.DialTLSContext = c.dialTLS(t)
	c.tr = weak.Make(t)
	return &Transport{Transport: t, Conns: c}
}

// Transport is the transport NewTransport makes: an http.Transport (its
// fields and methods are Transport's) with the count of its connections.
type Transport struct {
	*http.Transport
	Conns *Conns
}

// ClassifyTransport explains a failure to get any HTTP answer (condition:
// service unreachable), naming the phase and the party at fault. It returns
// nil for a nil error.
func ClassifyTransport(err error) *Error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		return already
	}
	e := &Error{Condition: ServiceUnreachable, Err: err}
	target := "the service"
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			target = u.Host
		}
	}

	var (
		pe       *ProxyError
		dnsErr   *net.DNSError
		opErr    *net.OpError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		recErr   tls.RecordHeaderError
		alertErr tls.AlertError
		sysRoots x509.SystemRootsError
	)
	isProxy := errors.As(err, &opErr) && opErr.Op == "proxyconnect"
	opErr = addrOpError(err, opErr)
	// Without a URL (a bare dial, as doctor makes), name the address dialled.
	if ue == nil && opErr != nil && opErr.Addr != nil {
		target = opErr.Addr.String()
	}

	switch {
	case errors.Is(err, context.Canceled):
		e.Condition, e.Kind = "", KindCanceled
		e.Cause = "the request was cancelled before " + target + " answered"
		e.Fix = remedy.Remedy{Do: remedy.RunAgain}

	case errors.As(err, &pe):
		e.Kind = KindProxy
		e.Cause = fmt.Sprintf("the HTTP proxy %s refused to connect to %s (%d %s)", pe.Proxy, target, pe.Status, http.StatusText(pe.Status))
		if pe.Status == http.StatusProxyAuthRequired {
			e.Fix = remedy.Remedy{Do: remedy.ProxyCredentials}
		} else {
			e.Fix = remedy.Remedy{Do: remedy.AllowThroughProxy, Value: target}
		}

	case errors.As(err, &dnsErr):
		e.Kind = KindDNS
		name := dnsErr.Name
		if isProxy {
			e.Kind = KindProxy
			e.Cause = fmt.Sprintf("the HTTP proxy's host name %q could not be resolved", name)
			e.Fix = remedy.Remedy{Do: remedy.FixProxySetting}
			break
		}
		if dnsErr.IsNotFound {
			e.Cause = fmt.Sprintf("the host name %q does not exist (DNS answered: no such host)", name)
			e.Fix = remedy.Remedy{Do: remedy.CheckHostName}
		} else {
			e.Cause = fmt.Sprintf("the host name %q could not be looked up (%s): no network connection or the DNS server is unreachable", name, dnsErr.Err)
			e.Fix = remedy.Remedy{Do: remedy.CheckNetwork}
		}

	case errors.As(err, &hostErr):
		e.Kind = KindTLS
		e.Cause = fmt.Sprintf("the TLS certificate presented by %s is for %s, not for %q", target, certNames(hostErr.Certificate), hostErr.Host)
		if hostErr.Certificate != nil {
			e.Cause += " (issued by " + issuer(hostErr.Certificate) + ")"
		}
		e.Fix = remedy.Remedy{Do: remedy.CheckCertHost}

	case errors.As(err, &unknown):
		e.Kind = KindTLS
		who := "an unknown authority"
		if errors.As(err, &verify) && len(verify.UnverifiedCertificates) > 0 {
			who = issuer(verify.UnverifiedCertificates[len(verify.UnverifiedCertificates)-1])
		} else if unknown.Cert != nil {
			who = issuer(unknown.Cert)
		}
		e.Cause = fmt.Sprintf("the TLS certificate presented by %s is issued by %s, which this machine does not trust", target, who)
		e.Fix = remedy.Remedy{Do: remedy.TrustRoot, Value: who}

	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		e.Kind = KindTLS
		c := invalid.Cert
		e.Cause = fmt.Sprintf("the TLS certificate presented by %s is not valid now", target)
		if c != nil {
			e.Cause = fmt.Sprintf("the TLS certificate presented by %s is valid only from %s to %s (now %s), issued by %s",
				target, c.NotBefore.UTC().Format(time.DateOnly), c.NotAfter.UTC().Format(time.DateOnly), time.Now().UTC().Format(time.DateOnly), issuer(c))
		}
		e.Fix = remedy.Remedy{Do: remedy.CheckClock}

	case errors.As(err, &invalid), errors.As(err, &verify), errors.As(err, &sysRoots):
		e.Kind = KindTLS
		e.Cause = fmt.Sprintf("the TLS certificate presented by %s was rejected: %s", target, strings.TrimPrefix(innermost(err), "x509: "))
		e.Fix = remedy.Remedy{Do: remedy.TrustRoot}

	case errors.As(err, &recErr):
		e.Kind = KindTLS
		e.Cause = fmt.Sprintf("%s does not speak TLS on that port (it answered in plain text)", target)
		e.Fix = remedy.Remedy{Do: remedy.CheckScheme}

	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		e.Kind = KindTLS
		e.Cause = fmt.Sprintf("%s does not speak TLS: it answered in plain HTTP to an https:// request", target)
		e.Fix = remedy.Remedy{Do: remedy.CheckScheme}

	case errors.As(err, &alertErr):
		e.Kind = KindTLS
		e.Cause = fmt.Sprintf("the TLS handshake with %s failed: the server sent %q", target, alertErr.Error())
		e.Fix = remedy.Remedy{Do: remedy.CheckTLSPath}

	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind = KindRefused
		addr := target
		if opErr != nil && opErr.Addr != nil {
			addr = opErr.Addr.String()
		}
		if isProxy {
			e.Kind = KindProxy
			e.Cause = fmt.Sprintf("the HTTP proxy at %s refused the connection: nothing is listening there", addr)
			e.Fix = remedy.Remedy{Do: remedy.StartProxy}
			break
		}
		e.Cause = fmt.Sprintf("the connection to %s was refused: nothing is listening on that port", addr)
		e.Fix = remedy.Remedy{Do: remedy.CheckHostPort}

	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.EADDRNOTAVAIL):
		e.Kind = KindNetwork
		e.Cause = fmt.Sprintf("there is no route to %s: this machine is not connected to a network that reaches it", target)
		e.Fix = remedy.Remedy{Do: remedy.CheckNetwork}

	case isTimeout(err):
		e.Kind = KindTimeout
		e.Cause = timeoutCause(err, target, opErr)
		if isProxy {
			e.Kind = KindProxy
			e.Cause = "the HTTP proxy did not answer in time: " + e.Cause
		}
		e.Fix = remedy.Remedy{Do: remedy.RetryNetwork}

	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE):
		e.Kind = KindReset
		e.Cause = fmt.Sprintf("the connection to %s was closed before it answered", target)
		if isProxy {
			e.Kind = KindProxy
			e.Cause = "the HTTP proxy closed the connection to " + target + " before it answered"
		}
		e.Fix = remedy.Remedy{Do: remedy.RetryCut}

	case isProxy:
		e.Kind = KindProxy
		e.Cause = fmt.Sprintf("the HTTP proxy could not connect to %s", target)
		e.Fix = remedy.Remedy{Do: remedy.CheckProxyEnv}

	case ue != nil && strings.Contains(ue.Err.Error(), "unsupported protocol scheme"):
		e.Kind = KindBaseURL
		e.Cause = "the base URL does not start with https:// (or http://)"
		e.Fix = remedy.Remedy{Do: remedy.SetBaseURL}

	default:
		e.Kind = KindOther
		e.Cause = fmt.Sprintf("the request to %s failed: %s", target, innermost(err))
		e.Fix = remedy.Remedy{Do: remedy.RunDoctor}
	}
	return e
}

// addrOpError finds the innermost *net.OpError that names an address (a
// proxy's wraps the dial's, which does).
func addrOpError(err error, first *net.OpError) *net.OpError {
	found := first
	for err != nil {
		if op, ok := err.(*net.OpError); ok && op.Addr != nil {
			found = op
		}
		err = errors.Unwrap(err)
	}
	return found
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) {
		return true
	}
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func timeoutCause(err error, target string, opErr *net.OpError) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "TLS handshake timeout"):
		return fmt.Sprintf("the TLS handshake with %s timed out (the connection opened but the handshake never finished)", target)
	case strings.Contains(s, "awaiting response headers") || strings.Contains(s, "awaiting headers"):
		return fmt.Sprintf("%s accepted the request but sent no answer in time", target)
	case opErr != nil && opErr.Op == "dial":
		return fmt.Sprintf("connecting to %s timed out: nothing answered (a firewall may be dropping the connection)", target)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s did not answer within the time allowed", target)
	}
	return fmt.Sprintf("the connection to %s timed out", target)
}

func issuer(c *x509.Certificate) string {
	if c == nil {
		return "an unknown authority"
	}
	if c.Issuer.CommonName != "" {
		s := quoted(c.Issuer.CommonName)
		if len(c.Issuer.Organization) > 0 {
			s += " (" + strings.Join(c.Issuer.Organization, ", ") + ")"
		}
		return s
	}
	if len(c.Issuer.Organization) > 0 {
		return quoted(strings.Join(c.Issuer.Organization, ", "))
	}
	if n := c.Issuer.String(); n != "" {
		return quoted(n)
	}
	return "an unnamed authority"
}

func certNames(c *x509.Certificate) string {
	if c == nil {
		return "other names"
	}
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = append(names, c.Subject.CommonName)
	}
	if len(names) == 0 {
		return "no names"
	}
	return strings.Join(names, ", ")
}

// innermost returns the text of the deepest wrapped error, without the URL
// and operation prefixes added on the way up.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
