package proxy

import (
	"github.com/modelgateway/gw/config/agents"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelgateway/gw/protocol/responses"
)

// TestRouteTable: which route takes a request, by path, method and header
// — the one place gw serve decides which protocol a request speaks.
func TestRouteTable(t *testing.T) {
	h := &Handler{routes: routes(responses.NewStore(0, 0), nil, []agents.ServeRoute{{Path: "/codex/models", Protocol: agents.Responses}})}
	anth := http.Header{"Anthropic-Version": {"2023-06-01"}}
	for _, c := range []struct {
		method, path string
		hdr          http.Header
		name         string
		serve, bare  bool
	}{
		{"POST", "/v1/chat/completions", nil, "chat", false, false},
		{"GET", "/v1/models", nil, "chat", false, false},
		{"GET", "/v1/models", anth, "messages", true, false},
		{"GET", "/v1/models/org/model-1", anth, "messages", true, false},
		{"GET", "/v1/models/", anth, "chat", false, false},
		{"POST", "/v1/models", anth, "chat", false, false},
		{"POST", "/v1/messages", nil, "messages", false, true},
		{"POST", "/v1/messages/count_tokens", nil, "messages", false, true},
		{"POST", "/v1/messages/other", nil, "chat", false, false},
		{"GET", "/v1/codex/models", nil, "responses", true, false},
		{"POST", "/v1/responses", nil, "responses", false, false},
		{"POST", "/v1/responses/compact", nil, "responses", false, false},
		{"GET", "/v1/responses/resp_1/input_items", nil, "responses", false, false},
		{"GET", "/v1beta/models", nil, "gemini", true, true},
		{"GET", "/v1beta/models/m", nil, "gemini", true, true},
		{"POST", "/v1beta/models/m:generateContent", nil, "gemini", false, true},
		{"POST", "/v1beta/modelsx", nil, "chat", false, false},
		{"GET", "/elsewhere", nil, "chat", false, false},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		for k, v := range c.hdr {
			r.Header[k] = v
		}
		rt := h.routeOf(r)
		if rt.name != c.name || (rt.serve != nil) != c.serve || rt.bare != c.bare || (rt.proto == nil) != (c.name == "chat") {
			t.Errorf("%s %s: route %q serve=%v bare=%v, want %q serve=%v bare=%v", c.method, c.path, rt.name, rt.serve != nil, rt.bare, c.name, c.serve, c.bare)
		}
	}
	if _, ok := h.routeOf(httptest.NewRequest("POST", "/v1/responses/compact", nil)).proto.(responses.Compact); !ok {
		t.Error("POST /v1/responses/compact is not answered by responses.Compact")
	}
}
