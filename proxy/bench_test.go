package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/standin"
)

// BenchmarkSmallRequest compares gw serve's handler with a bare
// httputil.ReverseProxy on GET /v1/models against the stand-in; the
// difference is the cost of the filter, key, sniffing and log line.
func BenchmarkSmallRequest(b *testing.B) {
	up := httptest.NewServer(standin.New(standin.Options{}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/v1")
	b.Run("gw", func(b *testing.B) {
		tr := api.NewTransport(api.TransportOptions{})
		defer tr.CloseIdleConnections()
		h, err := New(Options{Upstream: u, Transport: tr, LocalToken: testToken, Log: io.Discard,
			Keys: NewKeys(func(context.Context) (string, error) { return realKey, nil }, 0)})
		if err != nil {
			b.Fatal(err)
		}
		benchServer(b, h, testToken)
	})
	b.Run("baseline", func(b *testing.B) {
		tr := api.NewTransport(api.TransportOptions{})
		defer tr.CloseIdleConnections()
		base, _ := url.Parse(up.URL)
		rp := &httputil.ReverseProxy{Transport: tr, Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(base)
			pr.Out.Header.Set("Authorization", "Bearer "+realKey)
		}}
		benchServer(b, rp, testToken)
	})
}

func benchServer(b *testing.B, h http.Handler, token string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("GET", srv.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	b.ReportAllocs()
	for b.Loop() {
		res, err := tr.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}
