package standin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"time"
)

// SelfSignedCert makes a certificate for 127.0.0.1, ::1 and localhost that
// is its own CA. certPEM is what a client adds to its trusted roots.
func SelfSignedCert() (cert tls.Certificate, certPEM []byte, err error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"gw stand-in"}, CommonName: "localhost"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	return cert, certPEM, err
}

// Running is a stand-in serving on a loopback port, for tests.
type Running struct {
	*Server
	HTTP    *httptest.Server
	BaseURL string // "http(s)://127.0.0.1:PORT/v1"
	CertPEM []byte // the certificate to trust, TLS only
}

// Start serves a new stand-in over plain HTTP on 127.0.0.1.
func Start(o Options) *Running {
	s := New(o)
	hs := httptest.NewUnstartedServer(s)
	hs.Config.ErrorLog = quiet()
	hs.Config.IdleTimeout = o.IdleTimeout
	hs.Start()
	return &Running{Server: s, HTTP: hs, BaseURL: hs.URL + "/v1"}
}

// StartTLS serves a new stand-in over HTTPS (HTTP/1.1, and HTTP/2 too with
// Options.HTTP2) with a fresh self-signed certificate; Client trusts it,
// other clients do not.
func StartTLS(o Options) (*Running, error) {
	cert, certPEM, err := SelfSignedCert()
	if err != nil {
		return nil, err
	}
	s := New(o)
	hs := httptest.NewUnstartedServer(s)
	hs.Config.ErrorLog = quiet()
	hs.Config.IdleTimeout = o.IdleTimeout
	hs.TLS = TLSConfig(cert, o.HTTP2)
	hs.EnableHTTP2 = o.HTTP2 // for Client
	hs.StartTLS()
	return &Running{Server: s, HTTP: hs, BaseURL: hs.URL + "/v1", CertPEM: certPEM}, nil
}

// TLSConfig serves cert over HTTP/1.1, and HTTP/2 too when h2 is set
// (offered first in ALPN, as services that speak it do).
func TLSConfig(cert tls.Certificate, h2 bool) *tls.Config {
	protos := []string{"http/1.1"}
	if h2 {
		protos = []string{"h2", "http/1.1"}
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: protos}
}

// Client returns an HTTP client for the stand-in (trusting its certificate).
func (r *Running) Client() *http.Client { return r.HTTP.Client() }

// Close releases waiting handlers, then stops the server and waits for them.
func (r *Running) Close() {
	r.Server.Close()
	r.HTTP.Close()
}

// quiet drops the server's own log lines (refused handshakes of clients that
// do not trust the certificate are expected in tests).
func quiet() *log.Logger { return log.New(io.Discard, "", 0) }
