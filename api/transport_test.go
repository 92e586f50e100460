package api

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/api/apitest"
	"golang.org/x/net/dns/dnsmessage"
)

func TestNewTransport_Defaults(t *testing.T) {
	tr := NewTransport(TransportOptions{})
	if !tr.DisableCompression {
		t.Error("compression is on: gzip would buffer streamed events")
	}
	if !tr.ForceAttemptHTTP2 {
		t.Error("HTTP/2 is not attempted")
	}
	if tr.MaxIdleConnsPerHost != 64 || tr.ResponseHeaderTimeout != 5*time.Minute || tr.TLSHandshakeTimeout != 10*time.Second {
		t.Errorf("MaxIdleConnsPerHost=%d ResponseHeaderTimeout=%s TLSHandshakeTimeout=%s", tr.MaxIdleConnsPerHost, tr.ResponseHeaderTimeout, tr.TLSHandshakeTimeout)
	}
	if tr.TLSClientConfig.RootCAs != nil {
		t.Error("RootCAs set: the OS trust store would be ignored")
	}
	if tr.Proxy == nil {
		t.Error("no proxy function: HTTPS_PROXY would be ignored")
	}
	// A user's pause between an agent's turns must not cost a new TLS
	// handshake: idle connections are kept past 10 minutes, and HTTP/2
	// ones are pinged so that a dead one is found before a request uses it.
	if tr.IdleConnTimeout < 10*time.Minute {
		t.Errorf("IdleConnTimeout %s: a 10-minute pause would cost a new handshake", tr.IdleConnTimeout)
	}
	if tr.HTTP2 == nil || tr.HTTP2.SendPingTimeout <= 0 || tr.HTTP2.PingTimeout <= 0 {
		t.Errorf("HTTP/2 config %+v: idle connections are not pinged", tr.HTTP2)
	}
	if ConnsOf(tr) == nil {
		t.Error("ConnsOf does not know the transport")
	}
	if ConnsOf(&http.Transport{}) != nil || ConnsOf(http.DefaultTransport.(*http.Transport).Clone()) != nil {
		t.Error("ConnsOf knows a transport NewTransport did not make")
	}
}

// ConnsOf counts the connections open, and says when one closes: the
// service closing an idle one (as a load balancer does) included.
func TestConnsOf_CountsAndTellsCloses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	tr := NewTransport(TransportOptions{})
	defer tr.CloseIdleConnections()
	c := ConnsOf(tr)
	closed := make(chan struct{}, 10)
	remove := c.OnClose(func() { closed <- struct{}{} })
	defer remove()
	for range 2 {
		res, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if c.Open() != 1 || c.Opened() != 1 {
		t.Fatalf("after two requests one after the other: %d open, %d opened; want 1, 1", c.Open(), c.Opened())
	}
	srv.CloseClientConnections()
	<-closed
	if c.Open() != 0 || c.Opened() != 1 {
		t.Errorf("after the server closed it: %d open, %d opened; want 0, 1", c.Open(), c.Opened())
	}
}

// modelsErr runs GET /models against base with the transport options and
// returns the *Error.
func modelsErr(t *testing.T, base string, o TransportOptions) *Error {
	t.Helper()
	return modelsErrCtx(t, context.Background(), base, o)
}

func modelsErrCtx(t *testing.T, ctx context.Context, base string, o TransportOptions) *Error {
	t.Helper()
	c := NewClient(base, testKey, &http.Client{Transport: NewTransport(o)})
	_, err := c.Models(ctx)
	if err == nil {
		t.Fatal("want an error, got none")
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T, want *Error: %v", err, err)
	}
	assertNoKey(t, e, testKey)
	if e.Cause == "" || e.Fix.IsZero() {
		t.Errorf("missing cause or fix: %+v", e)
	}
	t.Logf("%v\n  fix: %s", e, fixText(e))
	return e
}

func wantKind(t *testing.T, e *Error, cond Condition, kind Kind, causeHas ...string) {
	t.Helper()
	if e.Condition != cond || e.Kind != kind {
		t.Errorf("got %q/%q, want %q/%q: %v (underlying: %v)", e.Condition, e.Kind, cond, kind, e, e.Err)
	}
	for _, s := range causeHas {
		if !strings.Contains(e.Cause, s) {
			t.Errorf("cause %q lacks %q", e.Cause, s)
		}
	}
}

func TestClassifyTransport_Refused(t *testing.T) {
	addr := apitest.ClosedAddr(t)
	e := modelsErr(t, "http://"+addr+"/v1", TransportOptions{})
	wantKind(t, e, ServiceUnreachable, KindRefused, addr, "refused")
	if !strings.HasPrefix(e.Error(), "unable to connect to API: ") {
		t.Errorf("Error() = %q", e.Error())
	}
}

// silentListener accepts connections and never writes to them.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				go io.Copy(io.Discard, c)
				<-done
			}()
		}
	}()
	return ln.Addr().String()
}

func TestClassifyTransport_TimeoutAwaitingHeaders(t *testing.T) {
	addr := silentListener(t)
	e := modelsErr(t, "http://"+addr+"/v1", TransportOptions{ResponseHeaderTimeout: 100 * time.Millisecond})
	wantKind(t, e, ServiceUnreachable, KindTimeout, addr, "sent no answer in time")
}

func TestClassifyTransport_TLSHandshakeTimeout(t *testing.T) {
	addr := silentListener(t)
	e := modelsErr(t, "https://"+addr+"/v1", TransportOptions{TLSHandshakeTimeout: 100 * time.Millisecond})
	wantKind(t, e, ServiceUnreachable, KindTimeout, "TLS handshake", addr)
}

func TestClassifyTransport_ContextDeadline(t *testing.T) {
	addr := silentListener(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	e := modelsErrCtx(t, ctx, "http://"+addr+"/v1", TransportOptions{})
	wantKind(t, e, ServiceUnreachable, KindTimeout, addr)
}

func TestClassifyTransport_Canceled(t *testing.T) {
	addr := silentListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	e := modelsErrCtx(t, ctx, "http://"+addr+"/v1", TransportOptions{})
	wantKind(t, e, "", KindCanceled, "cancelled")
}

func TestClassifyTransport_ConnectionClosedWithoutAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Read the request, then hang up without a word.
			http.ReadRequest(bufio.NewReader(c))
			c.Close()
		}
	}()
	e := modelsErr(t, "http://"+ln.Addr().String()+"/v1", TransportOptions{})
	wantKind(t, e, ServiceUnreachable, KindReset, "closed before it answered")
}

func TestClassifyTransport_UnknownAuthorityNamesIssuer(t *testing.T) {
	srv := quietTLSServer(http.NotFoundHandler())
	defer srv.Close()
	// The OS trust store does not know httptest's self-signed certificate,
	// as it would not know a corporate TLS-inspection root.
	e := modelsErr(t, srv.URL+"/v1", TransportOptions{})
	wantKind(t, e, ServiceUnreachable, KindTLS, "Acme Co", "does not trust")
	if !strings.Contains(fixText(e), "Acme Co") {
		t.Errorf("fix %q does not name the issuer", fixText(e))
	}
}

func TestClassifyTransport_HostnameMismatch(t *testing.T) {
	srv := quietTLSServer(http.NotFoundHandler())
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	// httptest's certificate is for example.com and the loopback IPs; ask
	// for another name that resolves to loopback without DNS.
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	base := "https://gw.localhost:" + port + "/v1"
	e := modelsErr(t, base, TransportOptions{RootCAs: pool, Resolver: apitest.FakeDNS(t, apitest.Loopback())})
	wantKind(t, e, ServiceUnreachable, KindTLS, "example.com", "gw.localhost")
}

func TestClassifyTransport_ExpiredCertificateGivesDates(t *testing.T) {
	cert, pool := selfSigned(t, time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2021, 3, 4, 0, 0, 0, 0, time.UTC))
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	e := modelsErr(t, srv.URL+"/v1", TransportOptions{RootCAs: pool})
	wantKind(t, e, ServiceUnreachable, KindTLS, "2020-01-02", "2021-03-04", "GW Test Root")
}

func TestClassifyTransport_PlainHTTPOnTLSURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	e := modelsErr(t, strings.Replace(srv.URL, "http://", "https://", 1)+"/v1", TransportOptions{})
	wantKind(t, e, ServiceUnreachable, KindTLS, "does not speak TLS")
}

func TestClassifyTransport_ProxyRefused(t *testing.T) {
	proxyAddr := apitest.ClosedAddr(t)
	proxy := &url.URL{Scheme: "http", Host: proxyAddr}
	e := modelsErr(t, "https://gw.example.test/v1", TransportOptions{Proxy: http.ProxyURL(proxy)})
	wantKind(t, e, ServiceUnreachable, KindProxy, "proxy", proxyAddr)
}

func TestClassifyTransport_ProxyRefusesCONNECT(t *testing.T) {
	proxySrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			t.Errorf("proxy got %s, want CONNECT", r.Method)
		}
		w.WriteHeader(http.StatusProxyAuthRequired)
	}))
	defer proxySrv.Close()
	proxy, _ := url.Parse(proxySrv.URL)
	proxy.User = url.UserPassword("alice", "proxy-secret")
	e := modelsErr(t, "https://gw.example.test/v1", TransportOptions{Proxy: http.ProxyURL(proxy)})
	wantKind(t, e, ServiceUnreachable, KindProxy, "407", proxy.Host, "gw.example.test")
	if strings.Contains(e.Error(), "proxy-secret") {
		t.Errorf("proxy password in %q", e.Error())
	}
}

func TestClassifyTransport_DNSNotFound(t *testing.T) {
	res := apitest.FakeDNS(t, apitest.Every(dnsmessage.RCodeNameError))
	e := modelsErr(t, "https://gw-test.invalid/v1", TransportOptions{Resolver: res})
	wantKind(t, e, ServiceUnreachable, KindDNS, "gw-test.invalid", "does not exist")
}

func TestClassifyTransport_DNSServerFailing(t *testing.T) {
	res := apitest.FakeDNS(t, apitest.Every(dnsmessage.RCodeServerFailure))
	e := modelsErr(t, "https://gw-test.invalid/v1", TransportOptions{Resolver: res})
	wantKind(t, e, ServiceUnreachable, KindDNS, "gw-test.invalid", "could not be looked up")
	if !strings.Contains(fixText(e), "network") {
		t.Errorf("fix %q does not point at the network", fixText(e))
	}
}

func TestClassifyTransport_NilAndAlreadyClassified(t *testing.T) {
	if ClassifyTransport(nil) != nil {
		t.Error("nil error classified")
	}
	orig := &Error{Condition: KeyRejected, Kind: KindWrongKey, Cause: "x"}
	if got := ClassifyTransport(orig); got != orig {
		t.Errorf("an *Error was re-classified: %+v", got)
	}
}

// --- helpers -----------------------------------------------------------

// quietTLSServer is httptest.NewTLSServer without logging the handshake
// failures the tests cause on purpose.
func quietTLSServer(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	return srv
}

func selfSigned(t *testing.T, notBefore, notAfter time.Time) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "GW Test Root", Organization: []string{"GW Tests"}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

func TestClassifyTransport_DialTimeout(t *testing.T) {
	addr := silentListener(t)
	// A dial deadline that has passed before the dial starts: the real
	// dialer reports the same time-out a dropped SYN would cause.
	e := modelsErr(t, "http://"+addr+"/v1", TransportOptions{DialTimeout: time.Nanosecond})
	wantKind(t, e, ServiceUnreachable, KindTimeout, "connecting to "+addr+" timed out")
}

func TestClassifyTransport_BareDialNamesAddress(t *testing.T) {
	addr := apitest.ClosedAddr(t)
	_, err := net.Dial("tcp", addr)
	e := ClassifyTransport(err)
	wantKind(t, e, ServiceUnreachable, KindRefused, addr)
}
