package proxy

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Codex 0.171.0 sends Accept-Encoding: zstd,gzip with every request (0.169.0
// sent none). gw serve writes the translated answer itself, so Codex gets
// the event stream as it is, not compressed, and the service is asked for
// an uncompressed answer, which gw serve must read to translate.
func TestCodexAcceptEncodingGetsAPlainStream(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "protocol", "responses", "testdata", "codex", "request1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		sent []string
	)
	r := newRig(t, rigOpts{wrapUp: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if strings.HasSuffix(req.URL.Path, "/chat/completions") {
				mu.Lock()
				sent = append(sent, req.Header.Get("Accept-Encoding"))
				mu.Unlock()
			}
			h.ServeHTTP(w, req)
		})
	}})
	res := r.do(waitCtx(t), "POST", "/v1/responses", string(body), http.Header{"Accept-Encoding": {"zstd,gzip"}})
	got := readAll(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/responses: %d %s", res.StatusCode, got)
	}
	if ce := res.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		t.Errorf("the answer is sent with Content-Encoding %q; Codex reads the stream as it is", ce)
	}
	if !strings.Contains(got, "event: response.completed") {
		t.Errorf("the answer is not a readable event stream ending in response.completed:\n%.400s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) == 0 {
		t.Fatal("the stand-in got no chat request")
	}
	for _, ae := range sent {
		if ae != "identity" {
			t.Errorf("the service was asked for Accept-Encoding %q, want identity", ae)
		}
	}
}
