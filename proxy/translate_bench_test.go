package proxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/standin"
)

// BenchmarkTranslatedStream calls gw serve's handler with a streamed request
// in each protocol, the upstream answering from memory with the same chat
// stream of the stand-in (200 content deltas of 32 bytes, then the usage),
// and the client replaced by a writer that discards: gw's own work per
// translated request, next to the same stream passed through. The
// "agent" cases are the translators' recorded Claude Code and Codex
// requests (tools, instructions, history), and the chat request gw's
// translation makes of each, passed through.
func BenchmarkTranslatedStream(b *testing.B) {
	const deltas = 200
	gw := memGateway(b, standin.New(standin.Options{ContentChunks: deltas, ChunkSize: 32}), "POST", "/v1/chat/completions",
		`{"model":"`+sonnet+`","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	read := func(path string) string {
		body, err := os.ReadFile(filepath.Join("..", path))
		if err != nil {
			b.Fatal(err)
		}
		return string(body)
	}
	cases := []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", chatBody(sonnet, true)},
		{"messages", "/v1/messages", `{"model":"` + sonnet + `","max_tokens":4096,"stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"responses", "/v1/responses", `{"model":"` + sonnet + `","stream":true,"store":false,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`},
		{"agent/messages", "/v1/messages", read("protocol/anthropic/testdata/claude-code/tool-round-trip/request-2.json")},
		{"agent/responses", "/v1/responses", read("protocol/responses/testdata/codex/request2.json")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			benchPost(b, gw, c.path, c.body, deltas*32)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/deltas, "ns/delta")
		})
	}
}

// memGateway is gw serve's handler in front of an upstream that answers
// every request with what the stand-in answered to method path body.
func memGateway(b *testing.B, svc http.Handler, method, path, body string) *Handler {
	rec := record(b, svc, method, path, body)
	up := &memTransport{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	u, _ := url.Parse("http://127.0.0.1:9/v1")
	gw, err := New(Options{Upstream: u, Transport: up, LocalToken: testToken, Log: io.Discard,
		Key: NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0), Warm: WarmOptions{Off: true}})
	if err != nil {
		b.Fatal(err)
	}
	return gw
}

// benchPost times gw answering POST path with body, the client a writer
// that counts and discards; fewer than least bytes answered fails.
func benchPost(b *testing.B, gw *Handler, path, body string, least int) {
	ctx := context.WithValue(context.Background(), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787})
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:8787"+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	w := &countingWriter{discardWriter: discardWriter{h: http.Header{}}}
	b.ReportAllocs()
	for b.Loop() {
		req.Body = io.NopCloser(strings.NewReader(body))
		clear(w.h)
		w.status, w.n = 0, 0
		gw.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.n < least {
			b.Fatalf("status %d, %d bytes answered", w.status, w.n)
		}
	}
}

// countingWriter is a discardWriter that counts what it is given.
type countingWriter struct {
	discardWriter
	n int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return w.discardWriter.Write(p)
}

// BenchmarkTranslatedWhole is BenchmarkTranslatedStream for the one-line
// question asked without streaming: gw's own work for a small request in
// each protocol, the upstream answering from memory with the stand-in's
// chat completion.
func BenchmarkTranslatedWhole(b *testing.B) {
	gw := memGateway(b, standin.New(standin.Options{}), "POST", "/v1/chat/completions", chatBody(sonnet, false))
	cases := []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", chatBody(sonnet, false)},
		{"messages", "/v1/messages", `{"model":"` + sonnet + `","max_tokens":4096,"messages":[{"role":"user","content":"hi"}]}`},
		{"responses", "/v1/responses", `{"model":"` + sonnet + `","store":false,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchPost(b, gw, c.path, c.body, 1) })
	}
}
