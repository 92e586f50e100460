package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func serve(t *testing.T, status int, body string, seen func(*http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			seen(r)
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestModels_SendsKeyAcceptAndUserAgent(t *testing.T) {
	var got *http.Request
	srv := serve(t, 200, `{"object":"list","data":[]}`, func(r *http.Request) { got = r.Clone(context.Background()) })
	c := NewClient(srv.URL+"/v1", testKey, nil)
	c.Version = "1.2.3"
	if _, err := c.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got.Method != http.MethodGet || got.URL.Path != "/v1/models" {
		t.Errorf("request %s %s, want GET /v1/models", got.Method, got.URL.Path)
	}
	if a := got.Header.Get("Authorization"); a != "Bearer "+testKey {
		t.Errorf("Authorization = %q", a)
	}
	if a := got.Header.Get("Accept"); a != "application/json" {
		t.Errorf("Accept = %q", a)
	}
	if ua := got.Header.Get("User-Agent"); ua != "gw/1.2.3" {
		t.Errorf("User-Agent = %q", ua)
	}
	if ae := got.Header.Get("Accept-Encoding"); ae != "" {
		t.Errorf("Accept-Encoding = %q: the transport asked for compression", ae)
	}
}

func TestModels_NoKeyNoAuthorizationHeader(t *testing.T) {
	var hdr http.Header
	srv := serve(t, 200, `{"data":[]}`, func(r *http.Request) { hdr = r.Header.Clone() })
	if _, err := NewClient(srv.URL+"/v1", "", srv.Client()).Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := hdr["Authorization"]; ok {
		t.Errorf("Authorization sent without a key: %q", hdr.Get("Authorization"))
	}
}

func TestModels_TolerantParsing(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		ids        []string
		names      []string
		ctx        []int
	}{
		{"openai list", `{"object":"list","data":[{"id":"vendor-a/model-a-opus-4.6","object":"model","created":1700000000,"owned_by":"vendor-a"},{"id":"vendor-b/model-b-3-pro-preview","object":"model"}]}`,
			[]string{"vendor-a/model-a-opus-4.6", "vendor-b/model-b-3-pro-preview"}, []string{"", ""}, []int{0, 0}},
		{"without object", `{"data":[{"id":"vendor-a/model-a-haiku-4.5"}]}`,
			[]string{"vendor-a/model-a-haiku-4.5"}, []string{""}, []int{0}},
		{"extra fields", `{"data":[{"id":"vendor-a/model-a-sonnet-4.6","name":"Sonnet","display_name":"Model A Sonnet 4.6","context_length":1000000,"pricing":{"prompt":"0.000003"}},{"id":"x/y","name":"Y","context_window":"32768"}]}`,
			[]string{"vendor-a/model-a-sonnet-4.6", "x/y"}, []string{"Model A Sonnet 4.6", "Y"}, []int{1000000, 32768}},
		{"openrouter top_provider", `{"data":[{"id":"vendor-b/model-b-3-flash-preview","name":"B Flash","top_provider":{"context_length":1048576}}]}`,
			[]string{"vendor-b/model-b-3-flash-preview"}, []string{"B Flash"}, []int{1048576}},
		{"bare array of objects", `[{"id":"vendor-a/model-a-opus-4.6"},{"id":"vendor-a/model-a-haiku-4.5"}]`,
			[]string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-haiku-4.5"}, []string{"", ""}, []int{0, 0}},
		{"bare array of strings", `["vendor-a/model-a-opus-4.6"," vendor-a/model-a-haiku-4.5 "]`,
			[]string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-haiku-4.5"}, []string{"", ""}, []int{0, 0}},
		{"models key", `{"models":[{"id":"vendor-a/model-a-opus-4.6"}]}`,
			[]string{"vendor-a/model-a-opus-4.6"}, []string{""}, []int{0}},
		{"duplicates and entries without id dropped", `{"data":[{"id":"a/b"},{"object":"model"},{"id":"a/b"},{"id":"c/d"}]}`,
			[]string{"a/b", "c/d"}, []string{"", ""}, []int{0, 0}},
		{"empty list", `{"object":"list","data":[]}`, []string{}, []string{}, []int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, 200, tc.body, nil)
			ms, err := NewClient(srv.URL+"/v1", testKey, srv.Client()).Models(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var ids, names []string
			var ctx []int
			for _, m := range ms {
				ids, names, ctx = append(ids, m.ID), append(names, m.Name), append(ctx, m.ContextLength)
			}
			if !slices.Equal(ids, tc.ids) && !(len(ids) == 0 && len(tc.ids) == 0) {
				t.Errorf("ids %q, want %q", ids, tc.ids)
			}
			if !slices.Equal(names, tc.names) && !(len(names) == 0 && len(tc.names) == 0) {
				t.Errorf("names %q, want %q", names, tc.names)
			}
			if !slices.Equal(ctx, tc.ctx) && !(len(ctx) == 0 && len(tc.ctx) == 0) {
				t.Errorf("context lengths %v, want %v", ctx, tc.ctx)
			}
		})
	}
}

func TestModels_200ThatIsNotAList(t *testing.T) {
	for _, tc := range []struct{ name, body, causeHas string }{
		{"html", "<!doctype html><html><head><title>Welcome</title></head></html>", "HTML page titled \"Welcome\""},
		{"object without data", `{"status":"ok","version":"1.0"}`, "without a \"data\" list"},
		{"plain text", "Hello from the gateway", "not JSON"},
		{"empty", "", "empty body"},
		{"number", "42", "not a list"},
		{"entries without ids", `{"data":[{"object":"model"}]}`, "no model id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, 200, tc.body, nil)
			c := NewClient(srv.URL+"/v1", testKey, srv.Client())
			_, err := c.Models(context.Background())
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want *Error, got %v", err)
			}
			if e.Condition != ServiceUnreachable || e.Kind != KindBadResponse {
				t.Errorf("got %q/%q: %v", e.Condition, e.Kind, e)
			}
			if !strings.Contains(e.Cause, tc.causeHas) || !strings.Contains(e.Cause, "base URL") {
				t.Errorf("cause %q lacks %q or the base URL hint", e.Cause, tc.causeHas)
			}
			if !strings.Contains(fixText(e), "gw auth login --base-url") {
				t.Errorf("fix %q", fixText(e))
			}
		})
	}
}

func TestModels_BodyIsCapped(t *testing.T) {
	big := `{"data":[` + strings.Repeat(`{"id":"vendor-a/model-a-opus-4.6"},`, maxListBody/30) + `{"id":"x"}]}`
	srv := serve(t, 200, big, nil)
	_, err := NewClient(srv.URL+"/v1", testKey, srv.Client()).Models(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindBadResponse || !strings.Contains(e.Cause, "4 MiB") {
		t.Fatalf("got %v", err)
	}
}

func TestModels_BadBaseURL(t *testing.T) {
	for _, base := range []string{"", "gw.example.test/v1", "ftp://gw.example.test/v1", "https:///v1"} {
		_, err := NewClient(base, testKey, nil).Models(context.Background())
		var e *Error
		if !errors.As(err, &e) || e.Condition != ServiceUnreachable || e.Kind != KindBaseURL {
			t.Errorf("base %q: got %v", base, err)
		}
	}
}

func TestModels_KeyEchoedInAnyErrorIsRemoved(t *testing.T) {
	// Every status this package distinguishes, each echoing the key back.
	for _, status := range []int{200, 400, 401, 402, 403, 404, 407, 422, 429, 500, 502, 503} {
		srv := serve(t, status, `{"error":{"message":"bad key `+testKey+` (Bearer `+testKey+`)","code":"`+testKey+`"}}`, nil)
		_, err := NewClient(srv.URL+"/v1", testKey, srv.Client()).Models(context.Background())
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%d: want *Error, got %v", status, err)
		}
		assertNoKey(t, e, testKey)
	}
}

func TestModels_ShortKeyEchoedInTextOrHTMLIsRemoved(t *testing.T) {
	// A short key does not look like a secret, so only the client's knowledge of it can remove it; the
	// bodies are the ones that are quoted rather than parsed as an error object.
	const key = "abc12345"
	bodies := []struct {
		status int
		ctype  string
		body   string
	}{
		{200, "text/plain", "Authorization: Bearer " + key + " Host: x"},
		{200, "text/html", "<html><head><title>hello " + key + "</title></head></html>"},
		{403, "text/html", "<html><head><title>denied for " + key + "</title></head></html>"},
		{401, "text/plain", "key " + key + " is not valid"},
	}
	for _, b := range bodies {
		srv := serve(t, b.status, b.body, nil) // the server sniffs the type: text/plain or text/html
		_, err := NewClient(srv.URL+"/v1", key, srv.Client()).Models(context.Background())
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%d %s: want *Error, got %v", b.status, b.ctype, err)
		}
		assertNoKey(t, e, key)
	}
}

func TestClient_ClassifyResponseScrubsAShortKey(t *testing.T) {
	// A short key is not secret-looking by shape; only knowing it removes it.
	c := NewClient("https://gw.example.test/v1", "abc12345", nil)
	e := c.classifyResponse(401, nil, []byte(`{"error":{"message":"key abc12345 is invalid"}}`), "")
	if strings.Contains(e.Error(), "abc12345") || strings.Contains(e.ServiceMessage, "abc12345") {
		t.Errorf("key left in %q", e.Error())
	}
	if e.Kind != KindWrongKey {
		t.Errorf("kind %q", e.Kind)
	}
}

func TestClient_WrongBaseURLNamesCanonical(t *testing.T) {
	srv := serve(t, 404, "404 page not found", nil)
	c := NewClient(srv.URL+"/v1", testKey, srv.Client())
	c.Canonical = "https://gw.example.test/v1"
	_, err := c.Models(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindBaseURL {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(e.Cause, "differs from the service's address https://gw.example.test/v1") ||
		fixText(e) != "run: gw auth login --base-url https://gw.example.test/v1" {
		t.Errorf("cause %q fix %q", e.Cause, fixText(e))
	}

	// At the canonical address itself, a 404 says nothing about differing.
	c.Canonical = c.BaseURL
	_, err = c.Models(context.Background())
	if !errors.As(err, &e) || strings.Contains(e.Cause, "differs") {
		t.Errorf("got %v", err)
	}
}
