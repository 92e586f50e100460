package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/standin"
)

// BenchmarkSmallRequest sends GET /v1/models over loopback to the stand-in
// directly, through gw serve's handler and through a bare
// httputil.ReverseProxy, all in this process. baseline − direct is what any
// proxy hop costs here; gw − baseline is the cost of the filter, key,
// sniffing and log line.
func BenchmarkSmallRequest(b *testing.B) {
	up := httptest.NewServer(standin.New(standin.Options{}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/v1")
	b.Run("direct", func(b *testing.B) {
		benchServer(b, up.URL, realKey)
	})
	b.Run("gw", func(b *testing.B) {
		tr := api.NewTransport(api.TransportOptions{})
		defer tr.CloseIdleConnections()
		h, err := New(Options{Upstream: u, Transport: tr, LocalToken: testToken, Log: io.Discard,
			Key: NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0), Warm: WarmOptions{Off: true}})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(h)
		defer srv.Close()
		benchServer(b, srv.URL, testToken)
	})
	b.Run("baseline", func(b *testing.B) {
		tr := api.NewTransport(api.TransportOptions{})
		defer tr.CloseIdleConnections()
		srv := httptest.NewServer(baselineProxy(up.URL, tr))
		defer srv.Close()
		benchServer(b, srv.URL, testToken)
	})
}

// baselineProxy is the least a proxy in gw serve's place does: rewrite the
// URL and set the key.
func baselineProxy(upstream string, tr http.RoundTripper) http.Handler {
	base, _ := url.Parse(upstream)
	return &httputil.ReverseProxy{Transport: tr, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(base)
		pr.Out.Header.Set("Authorization", "Bearer "+realKey)
	}}
}

func pooled(h http.Handler) http.Handler {
	h.(*httputil.ReverseProxy).BufferPool = &bufferPool{}
	return h
}

func benchServer(b *testing.B, base, token string) {
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("GET", base+"/v1/models", nil)
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

// BenchmarkHandlerOverhead calls gw serve's handler and the bare
// ReverseProxy directly, with the upstream answering from memory (the
// stand-in's real answers, recorded once) and the client replaced by a
// writer that discards: no sockets and no other goroutines, so the
// difference between them is gw's own work per request, free of the
// scheduling noise that dominates the loopback benchmarks.
func BenchmarkHandlerOverhead(b *testing.B) {
	svc := standin.New(standin.Options{})
	cases := []struct {
		name, method, path, body string
	}{
		{"models", "GET", "/v1/models", ""},
		{"chat", "POST", "/v1/chat/completions", chatBody(sonnet, false)},
		{"stream", "POST", "/v1/chat/completions", chatBody(sonnet, true)},
		// An agent's request: the conversation so far, 100 KB of code and
		// text before "model" (openai-go writes the messages first).
		{"stream-100KB", "POST", "/v1/chat/completions", agentBody(100 << 10)},
	}
	for _, c := range cases {
		rec := record(b, svc, c.method, c.path, c.body)
		up := &memTransport{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		u, _ := url.Parse("http://127.0.0.1:9/v1")
		gw, err := New(Options{Upstream: u, Transport: up, LocalToken: testToken, Log: io.Discard,
			Key: NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0), Warm: WarmOptions{Off: true}})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range []struct {
			name string
			h    http.Handler
		}{
			{"gw", gw},
			{"baseline", baselineProxy("http://127.0.0.1:9", up)},
			// The baseline with gw's copy-buffer pool: gw − this is the cost
			// of gw's own logic, with the buffers' cost taken out of both.
			{"baseline+pool", pooled(baselineProxy("http://127.0.0.1:9", up))},
		} {
			b.Run(c.name+"/"+p.name, func(b *testing.B) {
				ctx := context.WithValue(context.Background(), http.LocalAddrContextKey,
					&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787})
				req, _ := http.NewRequestWithContext(ctx, c.method, "http://127.0.0.1:8787"+c.path, nil)
				req.Header.Set("Authorization", "Bearer "+testToken)
				if c.body != "" {
					req.Header.Set("Content-Type", "application/json")
					req.ContentLength = int64(len(c.body))
				}
				w := &discardWriter{h: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					if c.body != "" {
						req.Body = io.NopCloser(strings.NewReader(c.body))
					}
					clear(w.h)
					w.status = 0
					p.h.ServeHTTP(w, req)
					if w.status != rec.Code {
						b.Fatalf("status %d, want %d", w.status, rec.Code)
					}
				}
			})
		}
	}
}

func agentBody(size int) string {
	line := "// ServeHTTP logs each request before answering it.\n" +
		"func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n" +
		"\tlog.Printf(\"%s %s\", r.Method, r.URL.Path)\n\th.next.ServeHTTP(w, r)\n}\n\n"
	content := strings.Repeat(line, size/len(line)+1)[:size]
	b, _ := json.Marshal(map[string]any{
		"messages":       []any{map[string]any{"role": "user", "content": content}},
		"model":          sonnet,
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
	})
	return string(b)
}

func record(b *testing.B, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+realKey)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("stand-in answered %s %s with %d: %s", method, path, rec.Code, rec.Body)
	}
	return rec
}

// memTransport answers every request with the same recorded response.
type memTransport struct {
	status int
	header http.Header
	body   []byte
}

func (m *memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	h := m.header.Clone()
	h.Set("Content-Length", strconv.Itoa(len(m.body)))
	return &http.Response{StatusCode: m.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: int64(len(m.body)), Body: io.NopCloser(bytes.NewReader(m.body)), Request: r}, nil
}

// discardWriter is a client that reads nothing back.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(p), nil
}
func (w *discardWriter) Flush()                  {}
func (w *discardWriter) EnableFullDuplex() error { return nil } // as net/http's server does

// BenchmarkKeyCacheGet is the key lookup every request makes, from many
// goroutines at once as concurrent requests do.
func BenchmarkKeyCacheGet(b *testing.B) {
	k := NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, time.Hour)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if key, err := k.Get(ctx); key != realKey || err != nil {
				b.Errorf("got %q, %v", key, err)
			}
		}
	})
}

// BenchmarkStreamPerEvent is one streamed chat request passed through, the
// upstream's answer arriving one SSE event per read as a real stream does
// (BenchmarkHandlerOverhead's arrives in one read), for gw serve's handler
// and the bare ReverseProxy in the same run. The answer is the stand-in's,
// its content events repeated to the given count; what differs between gw
// and baseline+pool is gw's own work per stream and per event (usage
// sniffing, flushing through its writer, the log line).
func BenchmarkStreamPerEvent(b *testing.B) {
	svc := standin.New(standin.Options{})
	body := chatBody(sonnet, true)
	rec := record(b, svc, "POST", "/v1/chat/completions", body)
	events := bytes.SplitAfter(rec.Body.Bytes(), []byte("\n\n"))
	if len(events) > 0 && len(events[len(events)-1]) == 0 {
		events = events[:len(events)-1]
	}
	if len(events) < 4 {
		b.Fatalf("the stand-in's stream has %d events", len(events))
	}
	for _, n := range []int{24, 200} {
		// The first event, content events to n, then the stand-in's own
		// last events (finish, usage, [DONE]).
		tail := events[len(events)-3:]
		stream := [][]byte{events[0]}
		for i := 0; len(stream) < n-len(tail); i++ {
			stream = append(stream, events[1+i%(len(events)-4)])
		}
		stream = append(stream, tail...)
		up := &eventTransport{status: rec.Code, header: rec.Header(), events: stream}
		u, _ := url.Parse("http://127.0.0.1:9/v1")
		gw, err := New(Options{Upstream: u, Transport: up, LocalToken: testToken, Log: io.Discard,
			Key: NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0), Warm: WarmOptions{Off: true}})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range []struct {
			name string
			h    http.Handler
		}{
			{"gw", gw},
			{"baseline", baselineProxy("http://127.0.0.1:9", up)},
			{"baseline+pool", pooled(baselineProxy("http://127.0.0.1:9", up))},
		} {
			b.Run(strconv.Itoa(n)+"/"+p.name, func(b *testing.B) {
				ctx := context.WithValue(context.Background(), http.LocalAddrContextKey,
					&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787})
				req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:8787/v1/chat/completions", nil)
				req.Header.Set("Authorization", "Bearer "+testToken)
				req.Header.Set("Content-Type", "application/json")
				req.ContentLength = int64(len(body))
				w := &discardWriter{h: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					req.Body = io.NopCloser(strings.NewReader(body))
					clear(w.h)
					w.status = 0
					p.h.ServeHTTP(w, req)
					if w.status != rec.Code {
						b.Fatalf("status %d, want %d", w.status, rec.Code)
					}
				}
			})
		}
		_ = gw.Close()
	}
}

// eventTransport answers every request with the same recorded SSE stream,
// one event per Read.
type eventTransport struct {
	status int
	header http.Header
	events [][]byte
}

func (m *eventTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	h := m.header.Clone()
	h.Del("Content-Length")
	return &http.Response{StatusCode: m.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: -1, Body: &eventReader{events: m.events}, Request: r}, nil
}

type eventReader struct {
	events [][]byte
	i      int
}

func (e *eventReader) Read(p []byte) (int, error) {
	if e.i == len(e.events) {
		return 0, io.EOF
	}
	n := copy(p, e.events[e.i])
	e.i++ // events are far smaller than ReverseProxy's buffer
	return n, nil
}

func (e *eventReader) Close() error { return nil }
