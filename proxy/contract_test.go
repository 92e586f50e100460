package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// What the newest agents send, carried to the service or refused out loud:
// each test sends an agent's request through gw serve's handler to the
// stand-in and reads the chat request the stand-in got.

// upstreamBodies records the body of every chat request the stand-in gets.
type upstreamBodies struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (u *upstreamBodies) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			u.mu.Lock()
			u.bodies = append(u.bodies, b)
			u.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// last is the last chat request the stand-in got, decoded.
func (u *upstreamBodies) last(t *testing.T) sentChat {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.bodies) == 0 {
		t.Fatal("the stand-in got no chat request")
	}
	var c sentChat
	if err := json.Unmarshal(u.bodies[len(u.bodies)-1], &c); err != nil {
		t.Fatal(err)
	}
	c.raw = string(u.bodies[len(u.bodies)-1])
	return c
}

func (u *upstreamBodies) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.bodies)
}

// sentChat is a chat request as the service reads it.
type sentChat struct {
	raw      string
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name   string `json:"name"`
			Strict *bool  `json:"strict"`
		} `json:"function"`
	} `json:"tools"`
	ReasoningEffort string          `json:"reasoning_effort"`
	Verbosity       string          `json:"verbosity"`
	ResponseFormat  json.RawMessage `json:"response_format"`
}

func (c sentChat) roles() string {
	var rs []string
	for _, m := range c.Messages {
		rs = append(rs, m.Role)
	}
	return strings.Join(rs, ",")
}

// text is message i's text, its parts joined.
func (c sentChat) text(i int) string {
	var s string
	if json.Unmarshal(c.Messages[i].Content, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	_ = json.Unmarshal(c.Messages[i].Content, &parts)
	for _, p := range parts {
		s += p.Text
	}
	return s
}

// recordedClaudeCode is one of Claude Code's recorded requests, as a map
// to change.
func recordedClaudeCode(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "protocol", "anthropic", "testdata", "claude-code", name))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// postOK sends body to path through gw serve and reads the whole answer,
// which must be a 200.
func postOK(t *testing.T, r *rig, path, body string) string {
	t.Helper()
	res := r.do(waitCtx(t), "POST", path, body, http.Header{"Anthropic-Version": {"2023-06-01"}})
	got := readAll(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, res.StatusCode, got)
	}
	return got
}

// Claude Code's "# Environment" turn, a system turn after the first user
// message, and a reminder later in the session reach the service where
// they were said: the prompt before each stays the same turn after turn,
// as the service's prompt cache needs.
func TestClaudeCodeSystemTurnsStayInPlace(t *testing.T) {
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	req := recordedClaudeCode(t, "tool-round-trip/request-2.json")
	msgs := req["messages"].([]any)
	msgs = append(msgs, map[string]any{"role": "system", "content": "<system-reminder>The user changed notes.txt.</system-reminder>"},
		map[string]any{"role": "user", "content": "and now?"})
	req["messages"] = msgs
	postOK(t, r, "/v1/messages", marshal(t, req))

	c := up.last(t)
	if got, want := c.roles(), "system,user,system,assistant,tool,system,user"; got != want {
		t.Fatalf("the service got the roles %s, want %s (the system turns where Claude Code said them)", got, want)
	}
	if !strings.HasPrefix(c.text(2), "# Environment") || strings.Contains(c.text(0), "You have been invoked in the following environment") {
		t.Errorf("the Environment turn is not the third message alone: %.80q / %.80q", c.text(0), c.text(2))
	}
	if c.text(5) != "<system-reminder>The user changed notes.txt.</system-reminder>" {
		t.Errorf("the reminder reads %q", c.text(5))
	}
}

// A service that takes a system message only first refuses the request;
// gw serve sends it again with the system turns joined to the leading
// system message, and the agent gets its answer.
func TestSystemTurnsJoinedForAServiceThatRefusesThem(t *testing.T) {
	var up upstreamBodies
	refusing := func(h http.Handler) http.Handler {
		return up.wrap(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			b, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(b))
			var c sentChat
			_ = json.Unmarshal(b, &c)
			if strings.Contains(c.roles(), "user,system") || strings.Contains(c.roles(), "assistant,system") || strings.Contains(c.roles(), "tool,system") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"object":"error","message":"System message must be at the beginning.","type":"BadRequestError","param":null,"code":400}`)
				return
			}
			h.ServeHTTP(w, req)
		}))
	}
	r := newRig(t, rigOpts{wrapUp: refusing})
	body := marshal(t, recordedClaudeCode(t, "tool-round-trip/request-2.json"))
	postOK(t, r, "/v1/messages", body)
	c := up.last(t)
	if got, want := c.roles(), "system,user,assistant,tool"; got != want || !strings.Contains(c.text(0), "You have been invoked in the following environment") {
		t.Fatalf("sent again as %s, want %s with the Environment turn in the system message", got, want)
	}
	if n := up.count(); n != 2 {
		t.Errorf("the service got %d requests, want the refused one and the one sent again", n)
	}
	// From then on, for that model, gw serve joins them from the start.
	postOK(t, r, "/v1/messages", body)
	if n := up.count(); n != 3 {
		t.Errorf("the service got %d requests after the second turn, want 3", n)
	}
}

const thinkingModel = "vendor-a/model-a-sonnet-4.5-thinking"

// Claude Code's effort reaches a thinking model as reasoning_effort: with
// output_config.effort and no thinking block (what it sends to models that
// think on their own), the level mapped to what the model takes; adaptive
// thinking without an effort is high, the native default.
func TestClaudeCodeEffortReachesTheService(t *testing.T) {
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	for _, c := range []struct {
		name     string
		thinking any
		effort   string
		want     string
	}{
		{"effort without thinking", nil, "medium", "medium"},
		{"max effort without thinking", nil, "max", "high"},
		{"xhigh effort without thinking", nil, "xhigh", "high"},
		{"adaptive thinking without effort", map[string]any{"type": "adaptive"}, "", "high"},
		{"adaptive thinking with low effort", map[string]any{"type": "adaptive", "display": "omitted"}, "low", "low"},
		{"thinking disabled", map[string]any{"type": "disabled"}, "high", ""},
	} {
		req := recordedClaudeCode(t, "tool-round-trip/request-1.json")
		req["model"] = thinkingModel
		delete(req, "thinking")
		delete(req, "output_config")
		if c.thinking != nil {
			req["thinking"] = c.thinking
		}
		if c.effort != "" {
			req["output_config"] = map[string]any{"effort": c.effort}
		}
		postOK(t, r, "/v1/messages", marshal(t, req))
		if got := up.last(t).ReasoningEffort; got != c.want {
			t.Errorf("%s: the service got reasoning_effort %q, want %q", c.name, got, c.want)
		}
	}
}

// Codex's reasoning.effort reaches the service as a level the model takes
// (xhigh is high, minimal and none low), and text.verbosity as verbosity.
func TestCodexEffortAndVerbosityReachTheService(t *testing.T) {
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	for _, c := range []struct{ effort, verbosity, want string }{
		{"xhigh", "low", "high"},
		{"max", "high", "high"},
		{"minimal", "", "low"},
		{"none", "medium", "low"},
		{"medium", "", "medium"},
	} {
		body := marshal(t, map[string]any{"model": thinkingModel, "input": "hi", "stream": true, "store": false,
			"reasoning": map[string]any{"effort": c.effort, "summary": "auto"},
			"text":      map[string]any{"verbosity": c.verbosity}})
		if c.verbosity == "" {
			body = strings.Replace(body, `"text":{"verbosity":""}`, `"text":{}`, 1)
		}
		postOK(t, r, "/v1/responses", body)
		got := up.last(t)
		if got.ReasoningEffort != c.want || got.Verbosity != c.verbosity {
			t.Errorf("effort %q, verbosity %q: the service got reasoning_effort %q, verbosity %q; want %q, %q",
				c.effort, c.verbosity, got.ReasoningEffort, got.Verbosity, c.want, c.verbosity)
		}
	}
}

// A service that refuses verbosity is sent the request again without it.
func TestVerbosityLeftOutForAServiceThatRefusesIt(t *testing.T) {
	var up upstreamBodies
	refusing := func(h http.Handler) http.Handler {
		return up.wrap(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			b, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(b))
			if bytes.Contains(b, []byte(`"verbosity"`)) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":{"message":"Unrecognized request argument supplied: verbosity","type":"invalid_request_error","param":null,"code":null}}`)
				return
			}
			h.ServeHTTP(w, req)
		}))
	}
	r := newRig(t, rigOpts{wrapUp: refusing})
	postOK(t, r, "/v1/responses", `{"model":"`+sonnet+`","input":"hi","store":false,"text":{"verbosity":"low"}}`)
	if got := up.last(t); got.Verbosity != "" || up.count() != 2 {
		t.Errorf("the service got verbosity %q in the last of %d requests", got.Verbosity, up.count())
	}
}

// A tool's strict reaches the service on its function, as on the
// Responses route.
func TestMessagesToolStrictReachesTheService(t *testing.T) {
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	postOK(t, r, "/v1/messages", `{"model":"`+sonnet+`","max_tokens":100,"messages":[{"role":"user","content":"hi"}],
		"tools":[{"name":"get_weather","description":"Weather of a city","strict":true,
		"input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}},
		{"name":"loose","input_schema":{"type":"object"}}]}`)
	c := up.last(t)
	if len(c.Tools) != 2 || c.Tools[0].Function.Strict == nil || !*c.Tools[0].Function.Strict || c.Tools[1].Function.Strict != nil {
		t.Errorf("the service got the tools %s", c.raw)
	}
}

// Structured output (output_config.format, and the beta's output_format)
// reaches the service as a strict json_schema response_format; a format
// the Messages API does not have is refused naming the field.
func TestMessagesStructuredOutputReachesTheService(t *testing.T) {
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	schema := `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`
	want := `{"type":"json_schema","json_schema":{"name":"response","schema":` + schema + `,"strict":true}}`
	for _, field := range []string{`"output_config":{"effort":"low","format":{"type":"json_schema","schema":` + schema + `}}`,
		`"output_format":{"type":"json_schema","schema":` + schema + `}`} {
		postOK(t, r, "/v1/messages", `{"model":"`+sonnet+`","max_tokens":100,"messages":[{"role":"user","content":"hi"}],`+field+`}`)
		if got := string(up.last(t).ResponseFormat); got != want {
			t.Errorf("%s: the service got response_format %s, want %s", field, got, want)
		}
	}
	n := up.count()
	res := r.do(waitCtx(t), "POST", "/v1/messages", `{"model":"`+sonnet+`","max_tokens":100,"messages":[{"role":"user","content":"hi"}],
		"output_config":{"format":{"type":"xml"}}}`, nil)
	body := readAll(t, res)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "output_config.format.type") || up.count() != n {
		t.Errorf("an unknown format: %d %s", res.StatusCode, body)
	}
}

// claudeCodeWebSearch is the request Claude Code's WebSearch tool sends:
// one user message asking for the search, thinking disabled, the
// web_search server tool alone and forced.
func claudeCodeWebSearch(query string) string {
	b, _ := json.Marshal(map[string]any{
		"model": sonnet, "max_tokens": 32000, "stream": true,
		"system":      []any{map[string]any{"type": "text", "text": "You are an assistant for performing a web search tool use"}},
		"messages":    []any{map[string]any{"role": "user", "content": "Perform a web search for the query: " + query}},
		"thinking":    map[string]any{"type": "disabled"},
		"tools":       []any{map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": 64}},
		"tool_choice": map[string]any{"type": "tool", "name": "web_search"},
		"metadata":    map[string]any{"user_id": "u"},
	})
	return string(b)
}

// Claude Code's WebSearch through gw serve: the service cannot search, so
// the request is refused with words the model reads as the tool's result
// (and the user with it), not answered as if a search had been made; the
// service is not asked. A request that offers web_search beside the
// agent's own tools goes on without it.
func TestClaudeCodeWebSearchSaysItIsNotAvailable(t *testing.T) {
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	res := r.do(waitCtx(t), "POST", "/v1/messages?beta=true", claudeCodeWebSearch("go 1.26 release notes"), http.Header{"Anthropic-Version": {"2023-06-01"}})
	ce := readClientError(t, "messages", res)
	if ce.Status != http.StatusBadRequest || ce.Type != "invalid_request_error" || ce.Retry != "false" ||
		!strings.HasPrefix(ce.Message, "Web search is not available through this service") || !strings.Contains(ce.Message, "no search was made") {
		t.Errorf("WebSearch answered %+v", ce)
	}
	if up.count() != 0 {
		t.Errorf("the service was asked %d times", up.count())
	}

	req := recordedClaudeCode(t, "tool-round-trip/request-1.json")
	req["tools"] = append(req["tools"].([]any), map[string]any{"type": "web_search_20250305", "name": "web_search"})
	postOK(t, r, "/v1/messages", marshal(t, req))
	for _, tl := range up.last(t).Tools {
		if tl.Function.Name == "web_search" {
			t.Error("web_search was offered to the model as a function")
		}
	}
}

// Codex's developer messages said during the conversation reach the
// service where they were said, as system messages, as Claude Code's
// system turns do.
func TestCodexDeveloperTurnsStayInPlace(t *testing.T) {
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	msg := func(role, text string) map[string]any {
		kind := "input_text"
		if role == "assistant" {
			kind = "output_text"
		}
		return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": kind, "text": text}}}
	}
	postOK(t, r, "/v1/responses", marshal(t, map[string]any{"model": sonnet, "instructions": "You are Codex.", "store": false,
		"input": []any{msg("developer", "sandbox: workspace-write"), msg("user", "hi"), msg("assistant", "hello"),
			msg("developer", "approval policy changed: never"), msg("user", "go on")}}))
	c := up.last(t)
	if got, want := c.roles(), "system,system,user,assistant,system,user"; got != want || c.text(4) != "approval policy changed: never" {
		t.Errorf("the service got %s (%q), want %s with the developer turn in place", got, c.text(4), want)
	}
}
