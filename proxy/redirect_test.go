package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestUpstreamRedirectIsRelayedNotFollowed (the hostile-service set): gw serve never follows a redirect from
// the service with the key. httputil.ReverseProxy sends one request upstream and relays the 3xx as it is,
// Location untouched. A client that follows it (as coding agents' HTTP clients do) goes there itself, with
// what it sent gw serve: the local token, never the API key.
func TestUpstreamRedirectIsRelayedNotFollowed(t *testing.T) {
	var mu sync.Mutex
	var reached []string // the Authorization of each request that reached the redirect's target
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(elsewhere.Close)
	var upstream []string // the Authorization of each request the service got
	r := newRig(t, rigOpts{wrapUp: func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			upstream = append(upstream, req.Header.Get("Authorization"))
			mu.Unlock()
			http.Redirect(w, req, elsewhere.URL+req.URL.Path, http.StatusTemporaryRedirect)
		})
	}})

	// A client that does not follow: it gets the 3xx, pointing where the service said.
	noFollow := *r.client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequestWithContext(waitCtx(t), "POST", strings.TrimSuffix(r.base, "/v1")+"/v1/chat/completions", strings.NewReader(chatBody(sonnet, false)))
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res)
	if res.StatusCode != http.StatusTemporaryRedirect || res.Header.Get("Location") != elsewhere.URL+"/v1/chat/completions" {
		t.Fatalf("status %d, Location %q: want the service's 307 relayed as it is", res.StatusCode, res.Header.Get("Location"))
	}

	// A client that follows (Go's default, like most): it goes to the target itself, with the local token.
	res = r.do(waitCtx(t), "GET", "/v1/models", "", nil)
	readAll(t, res)

	mu.Lock()
	defer mu.Unlock()
	if len(upstream) != 2 {
		t.Errorf("the service got %d requests, want 2 (one per client request)", len(upstream))
	}
	for _, a := range upstream {
		if a != "Bearer "+realKey {
			t.Errorf("the service got Authorization %q, want the key", a)
		}
	}
	if len(reached) != 1 {
		t.Fatalf("the redirect's target got %d requests, want 1 (the following client's own)", len(reached))
	}
	if strings.Contains(reached[0], realKey) || reached[0] != "Bearer "+testToken {
		t.Errorf("the redirect's target got Authorization %q: want the client's local token, never the key", reached[0])
	}
}
