package chat

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	json "github.com/go-json-experiment/json/v1"
)

// The optional fields the translators add to a chat request for the
// service's prompt cache and its abuse checks. A service may refuse one of
// them (an older gateway, a strict backend); the request is whole without
// it, so gw serve sends it again without, and remembers.
const (
	FieldCacheControl   = "cache_control"     // on content parts, tools and tool calls
	FieldCacheTTL       = "cache_control.ttl" // the breakpoints' ttl alone
	FieldPromptCacheKey = "prompt_cache_key"
	FieldUser           = "user"
	// FieldLateSystem is a system message after the conversation's
	// start, kept where it was said so that the prompt before it stays
	// the same (and cached); without it, it is joined to the leading
	// system message, for a backend that takes a system message only
	// first.
	FieldLateSystem = "late_system"
	// FieldVerbosity is the answer's verbosity (text.verbosity of the
	// Responses API): a hint, the request is whole without it.
	FieldVerbosity = "verbosity"
)

// optionalFields are the fields in the order RefusedField tries them: the
// more specific first.
var optionalFields = []string{FieldCacheTTL, FieldCacheControl, FieldPromptCacheKey, FieldUser, FieldLateSystem, FieldVerbosity}

// Has reports whether req carries field.
func Has(req *Request, field string) bool {
	switch field {
	case FieldPromptCacheKey:
		return req.PromptCacheKey != ""
	case FieldUser:
		return req.User != ""
	case FieldLateSystem:
		return lateSystem(req) >= 0
	case FieldVerbosity:
		return req.Verbosity != ""
	case FieldCacheControl, FieldCacheTTL:
		found := false
		eachCache(req, func(c *CacheControl) {
			found = found || field == FieldCacheControl || c.TTL != ""
		})
		return found
	}
	return false
}

// lateSystem is the index of the first system message after a message of
// another role, -1 when there is none.
func lateSystem(req *Request) int {
	started := false
	for i, m := range req.Messages {
		switch {
		case m.Role != "system":
			started = true
		case started:
			return i
		}
	}
	return -1
}

// withoutLateSystem joins the system messages said after the start to the
// leading system message (made when there is none), in order.
func withoutLateSystem(req *Request) []Message {
	var lead []Message
	var rest []Message
	var late []any
	started := false
	for _, m := range req.Messages {
		switch {
		case m.Role != "system":
			started = true
			rest = append(rest, m)
		case started:
			late = append(late, m.Content)
		default:
			lead = append(lead, m)
		}
	}
	if len(lead) == 0 {
		lead = []Message{{Role: "system", Content: ""}}
	}
	last := &lead[len(lead)-1]
	for _, c := range late {
		last.Content = joinContent(last.Content, c)
	}
	return append(lead, rest...)
}

// joinContent is two system messages' contents as one: text joined by a
// blank line, or parts when either has parts.
func joinContent(a, b any) any {
	as, aText := a.(string)
	bs, bText := b.(string)
	if aText && bText {
		switch {
		case as == "":
			return bs
		case bs == "":
			return as
		}
		return as + "\n\n" + bs
	}
	parts := func(c any) []Part {
		switch c := c.(type) {
		case string:
			if c == "" {
				return nil
			}
			return []Part{{Type: "text", Text: c}}
		case []Part:
			return c
		}
		return nil
	}
	return append(append([]Part(nil), parts(a)...), parts(b)...)
}

// eachCache calls f with every cache breakpoint of req.
func eachCache(req *Request, f func(*CacheControl)) {
	for _, m := range req.Messages {
		if parts, ok := m.Content.([]Part); ok {
			for _, p := range parts {
				if p.CacheControl != nil {
					f(p.CacheControl)
				}
			}
		}
		for _, tc := range m.ToolCalls {
			if tc.CacheControl != nil {
				f(tc.CacheControl)
			}
		}
	}
	for _, t := range req.Tools {
		if t.CacheControl != nil {
			f(t.CacheControl)
		}
	}
}

// RefusedField reads the service's error answer (status and body) to req
// and returns the optional field it refused, or "" when the answer is not
// a refusal of one of them. Only a 400 or 422 naming a field req carries
// counts: in the error's param, or in its words ("Unrecognized request
// argument supplied: user", "prompt_cache_key: Extra inputs are not
// permitted", pydantic's ('body', 'user'), an Anthropic error a gateway
// wraps, escaped or not). A service that refuses a system or tool message
// whose content is a list of parts, which gw sends only to carry
// breakpoints, refuses cache_control; one that takes a system message only
// first ("System message must be at the beginning", "Unexpected role
// 'system' after role 'user'") refuses late_system.
func RefusedField(status int, body []byte, req *Request) string {
	if req == nil || status != 400 && status != 422 || len(body) == 0 {
		return ""
	}
	param := errorParam(body)
	text := strings.ToLower(string(bytes.ReplaceAll(body, []byte(`\`), nil)))
	if overflow(text) {
		return "" // a gateway that echoes the request names every field
	}
	for _, f := range optionalFields {
		if !Has(req, f) {
			continue
		}
		if names(param, text, f) || f == FieldCacheControl && refusesPartLists(req, text) {
			return f
		}
	}
	return ""
}

// overflow reports whether an error says the prompt is too long for the
// model: never a refusal of a field, whatever else the error repeats.
func overflow(text string) bool {
	for _, w := range []string{"context_length", "context length", "context window", "maximum context", "prompt is too long"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// errorParam is the param of an OpenAI-style error body, if any.
func errorParam(body []byte) string {
	var e struct {
		Error struct {
			Param any `json:"param"`
		} `json:"error"`
		Param any `json:"param"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	for _, p := range []any{e.Error.Param, e.Param} {
		if s, ok := p.(string); ok && s != "" {
			return strings.ToLower(s)
		}
	}
	return ""
}

// names reports whether an error's param or text names field.
func names(param, text, field string) bool {
	switch field {
	case FieldCacheTTL:
		return strings.HasSuffix(param, "ttl") || strings.Contains(text, "cache_control.ttl") ||
			strings.Contains(text, "cache_control") && containsWord(text, "ttl")
	case FieldCacheControl:
		return strings.Contains(param, "cache_control") || strings.Contains(text, "cache_control")
	case FieldPromptCacheKey:
		return strings.Contains(param, "prompt_cache_key") || strings.Contains(text, "prompt_cache_key")
	case FieldVerbosity:
		return strings.Contains(param, "verbosity") || strings.Contains(text, "verbosity")
	case FieldLateSystem:
		if !strings.Contains(text, "system") {
			return false
		}
		for _, w := range []string{"beginning", "must be first", "must come first", "be the first", "only the first",
			"first message", "at the start", "unexpected role", "only one system", "single system", "multiple system",
			"consecutive system", "system messages are only", "system message is only", "after the first"} {
			if strings.Contains(text, w) {
				return true
			}
		}
		return false
	case FieldUser:
		if param == "user" || strings.HasSuffix(param, ".user") {
			return true
		}
		for _, p := range []string{"supplied: user", "parameter: user", "argument: user", "field: user",
			"'body', 'user'", `"body","user"`, `"body", "user"`, "unknown field user", "unknown parameter user"} {
			if i := strings.Index(text, p); i >= 0 && (i+len(p) == len(text) || !nameByte(text[i+len(p)])) {
				return true
			}
		}
		// 'user', "user", `user`: not a message's role ("role": "user").
		for _, q := range []string{`'user'`, `"user"`, "`user`"} {
			for i := 0; ; {
				j := strings.Index(text[i:], q)
				if j < 0 {
					break
				}
				at := i + j
				if !strings.Contains(text[max(0, at-12):at], "role") {
					return true
				}
				i = at + len(q)
			}
		}
	}
	return false
}

// containsWord reports whether s holds w not inside a longer name.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(w)
		if (at == 0 || !nameByte(s[at-1])) && (end == len(s) || !nameByte(s[end])) {
			return true
		}
		i = at + 1
	}
}

func nameByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// refusesPartLists reports whether an error says a message's content must
// be a string, while req sends a system, tool or assistant message's
// content as parts only to carry a breakpoint.
func refusesPartLists(req *Request, text string) bool {
	if !strings.Contains(text, "content") || !strings.Contains(text, "string") && !containsWord(text, "str") {
		return false
	}
	for _, m := range req.Messages {
		if m.Role == "user" {
			continue
		}
		if parts, ok := m.Content.([]Part); ok && slices.ContainsFunc(parts, cached) {
			return true
		}
	}
	return false
}

// Without returns req without field: a copy, so that req, which a caller
// may still hold, is unchanged; req itself when it has no such field.
// Without cache_control, a message whose parts were all text becomes the
// plain string it would have been without breakpoints (system parts joined
// by blank lines, others by newlines), since a service that refuses the
// breakpoints may refuse lists where it expects a string too.
func Without(req *Request, field string) *Request {
	if req == nil || !Has(req, field) {
		return req
	}
	out := *req
	switch field {
	case FieldPromptCacheKey:
		out.PromptCacheKey = ""
	case FieldUser:
		out.User = ""
	case FieldLateSystem:
		out.Messages = withoutLateSystem(req)
	case FieldVerbosity:
		out.Verbosity = ""
	case FieldCacheControl, FieldCacheTTL:
		strip := func(c *CacheControl) *CacheControl {
			if c == nil || field == FieldCacheControl {
				return nil
			}
			return &CacheControl{Type: c.Type}
		}
		out.Messages = make([]Message, len(req.Messages))
		for i, m := range req.Messages {
			if parts, ok := m.Content.([]Part); ok && slices.ContainsFunc(parts, cached) {
				ps := make([]Part, len(parts))
				for j, p := range parts {
					p.CacheControl = strip(p.CacheControl)
					ps[j] = p
				}
				m.Content = ps
				if field == FieldCacheControl {
					m.Content = plain(m.Role, ps)
				}
			}
			if slices.ContainsFunc(m.ToolCalls, func(c ToolCall) bool { return c.CacheControl != nil }) {
				calls := make([]ToolCall, len(m.ToolCalls))
				for j, tc := range m.ToolCalls {
					tc.CacheControl = strip(tc.CacheControl)
					calls[j] = tc
				}
				m.ToolCalls = calls
			}
			out.Messages[i] = m
		}
		if req.Tools != nil {
			out.Tools = make([]Tool, len(req.Tools))
			for i, t := range req.Tools {
				t.CacheControl = strip(t.CacheControl)
				out.Tools[i] = t
			}
		}
	}
	return &out
}

// cached reports whether p carries a breakpoint.
func cached(p Part) bool { return p.CacheControl != nil }

// plain is a message's content without breakpoints: its text when all its
// parts are text, else the parts.
func plain(role string, parts []Part) any {
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type != "text" {
			return parts
		}
		texts = append(texts, p.Text)
	}
	sep := "\n"
	if role == "system" {
		sep = "\n\n"
	}
	return strings.Join(texts, sep)
}

// maxRefusals bounds what Refusals remembers per model; past it, a
// refusal counts for every model of the service.
const maxRefusals = 1024

// Refusals remembers, for the life of gw serve, which optional fields the
// service refused, per model (one gateway may route models to backends
// that differ), so that later requests leave them out from the start. It
// is safe for concurrent use; the zero value is ready.
type Refusals struct {
	mu sync.RWMutex
	m  map[refusal]bool
}

type refusal struct{ model, field string }

// Remember records that the service refused field for model; true the
// first time, when the caller logs it.
func (r *Refusals) Remember(model, field string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[refusal{model, field}] || r.m[refusal{"", field}] {
		return false
	}
	if r.m == nil {
		r.m = map[refusal]bool{}
	}
	if len(r.m) >= maxRefusals {
		model = ""
	}
	r.m[refusal{model, field}] = true
	return true
}

// Refused reports whether the service refused field for model.
func (r *Refusals) Refused(model, field string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.m[refusal{model, field}] || r.m[refusal{"", field}]
}

// Apply returns req without the fields the service refused for its model
// (req itself when there are none), and which fields it left out.
func (r *Refusals) Apply(req *Request) (*Request, []string) {
	if req == nil {
		return req, nil
	}
	r.mu.RLock()
	empty := len(r.m) == 0
	r.mu.RUnlock()
	if empty {
		return req, nil
	}
	var left []string
	for _, f := range optionalFields {
		if r.Refused(req.Model, f) && Has(req, f) {
			req = Without(req, f)
			left = append(left, f)
		}
	}
	return req, left
}
