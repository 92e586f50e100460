package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"

	"go.uber.org/goleak"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

func TestMain(m *testing.M) {
	// go-keyring keeps one session-bus connection for the process
	// (BenchmarkFirstRequestAfterIdle_RealKeychain): not a leak.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/godbus/dbus/v5.(*Conn).inWorker"),
		goleak.IgnoreTopFunction("github.com/godbus/dbus/v5.newConn.func1"))
}

const (
	testToken = "gw-local-0123456789abcdef0123456789abcdef"
	realKey   = standin.DemoKeyFull
	sonnet    = "vendor-a/model-a-sonnet-4.5"
)

// rig is a stand-in of the hosted service behind gw serve's handler, both on
// loopback listeners.
type rig struct {
	t      *testing.T
	up     *standin.Server
	upURL  string // the stand-in's base URL, ending in /v1
	base   string // gw serve's base URL, ending in /v1
	log    *testutil.SyncBuffer
	client *http.Client
	keys   *KeyCache
	h      *Handler
}

type rigOpts struct {
	standin standin.Options
	key     KeySource
	keyFrom KeyFrom                         // instead of key: a source that says where the key came from
	stamp   KeyStamp                        // the key-changed marker watched; nil: none
	wrapUp  func(http.Handler) http.Handler // to observe what the stand-in writes
	proxy   func(*Options)
}

func newRig(t *testing.T, o rigOpts) *rig {
	t.Helper()
	up := standin.New(o.standin)
	var upH http.Handler = up
	if o.wrapUp != nil {
		upH = o.wrapUp(up)
	}
	upSrv := httptest.NewServer(upH)
	upURL, _ := url.Parse(upSrv.URL + "/v1")

	src := o.key
	if src == nil {
		src = func(context.Context) (string, error) { return realKey, nil }
	}
	tr := api.NewTransport(api.TransportOptions{})
	logBuf := &testutil.SyncBuffer{}
	from := o.keyFrom
	if from == nil {
		from = func(ctx context.Context) (string, keychain.Source, error) { key, err := src(ctx); return key, "", err }
	}
	keys := NewWatchedKeyCache(from, 0, o.stamp)
	// The warmer's own requests would be among those the tests count; its
	// tests (warm_test.go) turn it on.
	opts := Options{Upstream: upURL, Transport: tr, Key: keys, LocalToken: testToken, Log: logBuf, Warm: WarmOptions{Off: true},
		AgentOf: all.UserAgentIndex(), ModelRoutes: all.ServeRoutes()}
	if o.proxy != nil {
		o.proxy(&opts)
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	ctr := &http.Transport{Proxy: nil}
	t.Cleanup(func() {
		ctr.CloseIdleConnections()
		srv.Close()
		up.Close()
		tr.CloseIdleConnections()
		upSrv.Close()
	})
	return &rig{t: t, up: up, upURL: upURL.String(), base: srv.URL + "/v1", log: logBuf,
		client: &http.Client{Transport: ctr}, keys: opts.Key, h: h}
}

// do sends a request to gw serve with the local token unless hdr overrides it.
func (r *rig) do(ctx context.Context, method, path, body string, hdr http.Header) *http.Response {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(r.base, "/v1")+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
	}
	res, err := r.client.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	return res
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

// gwError decodes one of gw serve's own errors and checks its shape.
func gwError(t *testing.T, body string) errorDetail {
	t.Helper()
	var eb errorBody
	if err := json.Unmarshal([]byte(body), &eb); err != nil {
		t.Fatalf("body is not the OpenAI error shape: %v\n%s", err, body)
	}
	if eb.Error.Type != "gw_error" || eb.Error.Code == "" || eb.Error.Message == "" {
		t.Fatalf("error lacks type/code/message: %s", body)
	}
	return eb.Error
}

func chatBody(model string, stream bool) string {
	b, _ := json.Marshal(map[string]any{
		"model":          model,
		"messages":       []any{map[string]any{"role": "user", "content": "hi"}},
		"stream":         stream,
		"stream_options": map[string]any{"include_usage": true},
	})
	if !stream {
		b, _ = json.Marshal(map[string]any{
			"model": model, "messages": []any{map[string]any{"role": "user", "content": "hi"}},
		})
	}
	return string(b)
}

// sseEvents reads the data of every SSE event until the stream ends.
func sseEvents(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out, sc.Err()
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
