package proxy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// googleError decodes an error in Google's shape.
func googleError(t *testing.T, res *http.Response) (code int, status, message string) {
	t.Helper()
	body := readAll(t, res)
	var doc struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Error.Code != res.StatusCode || doc.Error.Status == "" {
		t.Fatalf("not Google's error shape (%v): %d %s", err, res.StatusCode, body)
	}
	return doc.Error.Code, doc.Error.Status, doc.Error.Message
}

// TestGeminiAPI: gw serve answers the Gemini API under /v1beta/models, as
// @google/genai sends it (the local token in x-goog-api-key): a whole and a
// streamed answer from the service's chat completions, the account's model
// list, and its own refusals in Google's error shape.
func TestGeminiAPI(t *testing.T) {
	r := newRig(t, rigOpts{})
	goog := http.Header{"Authorization": nil, "X-Goog-Api-Key": {testToken}}
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`

	res := r.do(waitCtx(t), "POST", "/v1beta/models/"+sonnet+":generateContent", body, goog)
	got := readAll(t, res)
	if res.StatusCode != 200 || !strings.Contains(got, `"text":"Hello from the gw stand-in (`+sonnet+`)."`) || !strings.Contains(got, `"finishReason":"STOP"`) {
		t.Fatalf("generateContent: %d %s", res.StatusCode, got)
	}
	if line := logLine(t, r, "/v1beta/models/"+sonnet+":generateContent"); !strings.Contains(line, "proto=gemini") || !strings.Contains(line, "model="+sonnet) {
		t.Errorf("log line %q", line)
	}
	seen := r.up.Seen()
	if s := seen[len(seen)-1]; s.Path != "/v1/chat/completions" || s.Key != realKey || s.Model != sonnet {
		t.Errorf("the service saw %+v", s)
	}

	res = r.do(waitCtx(t), "POST", "/v1beta/models/"+sonnet+":streamGenerateContent?alt=sse", body, goog)
	got = readAll(t, res)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(got, "data: {\"candidates\"") ||
		!strings.Contains(got, `"usageMetadata":{"promptTokenCount":`) {
		t.Fatalf("streamGenerateContent: %d %s", res.StatusCode, got)
	}

	res = r.do(waitCtx(t), "GET", "/v1beta/models", "", goog)
	got = readAll(t, res)
	if res.StatusCode != 200 || !strings.Contains(got, `"name":"models/`+sonnet+`"`) {
		t.Fatalf("model list: %d %s", res.StatusCode, got)
	}

	refused := []struct {
		h    http.Header
		path string
		code int
		says string
	}{
		{http.Header{"Authorization": nil, "X-Goog-Api-Key": {realKey}}, "/v1beta/models/" + sonnet + ":generateContent", 401, "belongs in gw's keychain"},
		{http.Header{"Authorization": nil}, "/v1beta/models/" + sonnet + ":generateContent", 401, "needs its local token"},
		{goog, "/v1beta/models/" + sonnet + ":embedContent", 404, "gw serve speaks the Gemini API at"},
	}
	before := len(r.up.Seen())
	for _, c := range refused {
		res := r.do(waitCtx(t), "POST", c.path, body, c.h)
		code, _, msg := googleError(t, res)
		if code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("%s %v: %d %q, want %d saying %q", c.path, c.h, code, msg, c.code, c.says)
		}
	}
	if n := len(r.up.Seen()) - before; n != 0 {
		t.Errorf("%d refused requests reached the service", n)
	}
	// Only the models are served under /v1beta.
	res = r.do(waitCtx(t), "GET", "/v1beta/files", "", goog)
	if got := readAll(t, res); res.StatusCode != 404 {
		t.Errorf("/v1beta/files: %d %s", res.StatusCode, got)
	}
}

// The local token in x-goog-api-key is accepted on the chat route too, and
// never passed on to the service.
func TestGoogKeyHeaderNotForwarded(t *testing.T) {
	var u upstreamHeaders
	r := newRig(t, rigOpts{wrapUp: u.wrap})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, false), http.Header{"Authorization": nil, "X-Goog-Api-Key": {testToken}})
	if body := readAll(t, res); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if h := u.last(); h.Get("X-Goog-Api-Key") != "" || h.Get("Authorization") != "Bearer "+realKey {
		t.Errorf("the service got %v", h)
	}
}
