package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/proxy"
)

// serveBaseline is the minimal reverse proxy gw serve is compared with: the
// same standard-library machinery, with none of gw's checks or logging,
// and the one thing any proxy of POSTed streams needs: full duplex for
// requests with a body (without it net/http closes the request body once
// the answer's header is written, the transport's last read of it fails,
// and the transport tears down the upstream connection mid-stream: about
// one streamed POST in 500 cut at concurrency 1, most at concurrency 3).
// Its scheduler setting comes from GOMAXPROCS in its environment.
func serveBaseline(ctx context.Context, upstream, handler string, out io.Writer) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	key := os.Getenv("GW_API_KEY")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	var rp http.Handler = &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Header.Set("Authorization", "Bearer "+key)
		},
	}
	if handler == "gw" {
		// gw serve's own handler in this small process: separates what the
		// handler costs from what the gw binary and process do.
		v1 := *u
		v1.Path = "/v1"
		rp, err = proxy.New(proxy.Options{Upstream: &v1, Transport: api.NewTransport(api.TransportOptions{}),
			Key:        proxy.NewKeyCache(func(context.Context) (string, error) { return key, nil }, 0),
			LocalToken: os.Getenv("GW_BENCH_TOKEN"), Log: io.Discard})
		if err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "listening on http://%s/v1\n", ln.Addr())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			_ = http.NewResponseController(w).EnableFullDuplex()
		}
		rp.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
