package proxy

import (
	"net/http"
	"slices"
	"strings"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/protocol/anthropic"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/gemini"
	"github.com/modelgateway/gw/protocol/responses"
	"github.com/modelgateway/gw/protocol/translate"
)

// route is one entry of gw serve's route table (routes): the requests it
// takes, and who answers them.
type route struct {
	// path is the request path; one ending in "/" takes every path that
	// begins with it, one ending in "/{id}" every longer one.
	path string
	// methods are the methods it takes; nil: every one (the translator's
	// Local refuses the others in its own words).
	methods []string
	// header is a request header it needs (any value); "": none.
	header string
	// name is the protocol's name in the request log.
	name string
	// proto is the translator: it answers the request through the relay
	// unless serve is set, and gw serve's own errors on the route come in
	// its shape.
	proto translate.Protocol
	// serve answers the request instead of the relay (a model list gw
	// serve makes from the account's); nil: relay.Serve with proto.
	serve func(h *Handler, w http.ResponseWriter, r *http.Request, c *call)
	// bare: the client's base URL has no /v1 (it adds /v1/messages or
	// /v1beta itself), for the words of a Host refusal.
	bare bool
}

// routes is gw serve's route table, first match wins. Adding a protocol
// is one translator and its routes here. billed is what the service billed
// for recent prompts, which the Messages API's message_start reads.
func routes(store *responses.Store, billed *chat.BilledPrompts, agentRoutes []agents.ServeRoute) []route {
	get := []string{http.MethodGet}
	msgs, resp, gem := anthropic.Protocol{Billed: billed}, responses.Protocol{Store: store}, gemini.Protocol{}
	var own []route // an agent's own routes (Codex's catalog), in its protocol's shape
	for _, ar := range agentRoutes {
		rt := route{path: "/v1" + ar.Path, methods: get, name: "chat", serve: func(h *Handler, w http.ResponseWriter, r *http.Request, c *call) {
			h.serveCodexCatalog(w, r, c, &ar)
		}}
		switch ar.Protocol {
		case agents.AnthropicMessages:
			rt.name, rt.proto = "messages", msgs
		case agents.Responses:
			rt.name, rt.proto = "responses", resp
		case agents.GeminiAPI:
			rt.name, rt.proto = "gemini", gem
		}
		own = append(own, rt)
	}
	return append(own, []route{
		// Anthropic's model list, which Claude Code asks with its
		// anthropic-version header; the service's ids hold a slash.
		{path: "/v1/models", methods: get, header: "anthropic-version", name: "messages", proto: msgs, serve: (*Handler).serveAnthropicModels},
		{path: "/v1/models/{id}", methods: get, header: "anthropic-version", name: "messages", proto: msgs, serve: (*Handler).serveAnthropicModels},
		{path: "/v1/messages", name: "messages", proto: msgs, bare: true},
		{path: "/v1/messages/count_tokens", name: "messages", proto: msgs, bare: true},
		{path: "/v1/responses/compact", name: "responses", proto: responses.Compact{}}, // Codex's remote compaction
		{path: "/v1/responses", name: "responses", proto: resp},
		{path: "/v1/responses/", name: "responses", proto: resp}, // a kept response
		// The Gemini API, the one protocol outside /v1: its model list is
		// gw serve's to answer from the account's ids.
		{path: gemini.Prefix, methods: get, name: "gemini", proto: gem, bare: true, serve: (*Handler).geminiModels},
		{path: gemini.Prefix + "/", methods: get, name: "gemini", proto: gem, bare: true, serve: (*Handler).geminiModels},
		{path: gemini.Prefix, name: "gemini", proto: gem, bare: true},
		{path: gemini.Prefix + "/", name: "gemini", proto: gem, bare: true},
		// Everything else: chat completions and the rest of /v1, passed
		// through to the service as it is (the filter refuses other paths).
		{path: "/", name: "chat"},
	}...)
}

// routeOf is the route that takes r: the first that does (the last
// takes every path).
func (h *Handler) routeOf(r *http.Request) *route {
	i := slices.IndexFunc(h.routes, func(rt route) bool { return rt.takes(r) })
	if i < 0 { // a path not beginning with "/" (OPTIONS *)
		i = len(h.routes) - 1
	}
	return &h.routes[i]
}

func (rt *route) takes(r *http.Request) bool {
	p := r.URL.Path
	if dir, ok := strings.CutSuffix(rt.path, "{id}"); ok {
		if len(p) <= len(dir) || !strings.HasPrefix(p, dir) {
			return false
		}
	} else if !strings.HasSuffix(rt.path, "/") && p != rt.path || !strings.HasPrefix(p, rt.path) {
		return false
	}
	if rt.methods != nil && !slices.Contains(rt.methods, r.Method) {
		return false
	}
	return rt.header == "" || r.Header.Get(rt.header) != ""
}

// writeErrorAs writes one of gw serve's own errors in the shape of the
// protocol p (its translator's Refusal: for the Messages API final,
// since Claude Code must not retry what no retry fixes; for the Responses
// API 400 for a refused key, which Codex then does not retry five times),
// gw's own OpenAI-shaped one elsewhere; it returns the status written.
func writeErrorAs(w http.ResponseWriter, p translate.Protocol, status int, code, message string) int {
	if p == nil {
		writeError(w, status, code, message)
		return status
	}
	return writeAnswer(w, p.Refusal(status, code, message))
}
