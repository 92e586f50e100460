package chat

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// cachedRequest carries every optional field: breakpoints on system parts
// (one with a TTL), a user part, a tool message, a tool call and a tool.
func cachedRequest() *Request {
	eph := &CacheControl{Type: "ephemeral"}
	hour := &CacheControl{Type: "ephemeral", TTL: "1h"}
	return &Request{
		Model: "vendor-a/model-a-sonnet-4.5",
		Messages: []Message{
			{Role: "system", Content: []Part{{Type: "text", Text: "A", CacheControl: hour}, {Type: "text", Text: "B"}}},
			{Role: "user", Content: []Part{{Type: "text", Text: "look"}, {Type: "image_url", ImageURL: &ImageURL{URL: "data:image/png;base64,AAAA"}, CacheControl: eph}}},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "Read", Arguments: "{}"}, CacheControl: eph}}},
			{Role: "tool", ToolCallID: "c1", Content: []Part{{Type: "text", Text: "result", CacheControl: eph}}},
			{Role: "user", Content: "plain"},
		},
		Tools:          []Tool{{Type: "function", Function: Function{Name: "Read"}, CacheControl: eph}},
		User:           `{"device_id":"0","session_id":"s"}`,
		PromptCacheKey: "k",
	}
}

func encode(t *testing.T, r *Request) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The 400s services answer for a field they do not take, as they word
// them, and answers that are not such a refusal.
func TestRefusedField(t *testing.T) {
	req := cachedRequest()
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"OpenAI unknown parameter", 400, `{"error":{"message":"Unknown parameter: 'messages[0].content[0].cache_control'.","type":"invalid_request_error","param":"messages[0].content[0].cache_control","code":"unknown_parameter"}}`, FieldCacheControl},
		{"Azure unrecognized argument", 400, `{"error":{"message":"Unrecognized request argument supplied: prompt_cache_key","type":"invalid_request_error","param":null,"code":null}}`, FieldPromptCacheKey},
		{"vLLM extra input", 400, `{"object":"error","message":"[{'type': 'extra_forbidden', 'loc': ('body', 'user'), 'msg': 'Extra inputs are not permitted', 'input': 'x'}]","type":"BadRequestError","param":null,"code":400}`, FieldUser},
		{"FastAPI 422", 422, `{"detail":[{"type":"extra_forbidden","loc":["body","prompt_cache_key"],"msg":"Extra inputs are not permitted","input":"k"}]}`, FieldPromptCacheKey},
		{"user too long", 400, `{"error":{"message":"Invalid 'user': string too long. Expected a string with maximum length 64, but got a string with length 150 instead.","type":"invalid_request_error","param":"user","code":"string_above_max_length"}}`, FieldUser},
		{"user named in words only", 400, `{"error":{"message":"Invalid 'user': string too long.","type":"invalid_request_error"}}`, FieldUser},
		{"Anthropic behind LiteLLM, escaped", 400, `{"error":{"message":"litellm.BadRequestError: AnthropicException - {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.3.content.0.cache_control: Extra inputs are not permitted\"}}","type":null,"param":null,"code":"400"}}`, FieldCacheControl},
		{"a TTL the backend does not take", 400, `{"error":{"message":"system.0.cache_control.ttl: Extra inputs are not permitted"}}`, FieldCacheTTL},
		{"ttl in words", 400, `{"error":{"message":"cache_control: unsupported field ttl"}}`, FieldCacheTTL},
		{"system content must be a string", 400, `{"error":{"message":"'messages.0' : for 'role:system' the following must be satisfied[('messages.0.content' : value must be a string)]","type":"invalid_request_error"}}`, FieldCacheControl},
		{"plain text body", 400, `unrecognized field "prompt_cache_key"`, FieldPromptCacheKey},

		{"a role, not the field", 400, `{"error":{"message":"messages[1]: the role 'user' must follow an assistant message","param":"messages"}}`, ""},
		{"pydantic echoing a user message", 400, `{"object":"error","message":"[{'type': 'missing', 'loc': ('body', 'messages', 4, 'content'), 'input': {'role': 'user'}}]"}`, ""},
		{"an overflow that echoes the request", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens. Request: {\"prompt_cache_key\":\"k\",\"cache_control\":{}}"}}`, ""},
		{"not a 400", 500, `{"error":{"message":"Unrecognized request argument supplied: prompt_cache_key"}}`, ""},
		{"a 429", 429, `{"error":{"message":"rate limit for user u"}}`, ""},
		{"names no field", 400, `{"error":{"message":"max_tokens is too large","param":"max_tokens"}}`, ""},
		{"a longer name", 400, `{"error":{"message":"Unrecognized request argument supplied: user_id"}}`, ""},
		{"empty", 400, ``, ""},
	} {
		if got := RefusedField(c.status, []byte(c.body), req); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A field the request does not carry is not the one refused.
	bare := &Request{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}}
	if got := RefusedField(400, []byte(`{"error":{"message":"Unrecognized request argument supplied: prompt_cache_key"}}`), bare); got != "" {
		t.Errorf("a request without prompt_cache_key: %q", got)
	}
	if got := RefusedField(400, []byte(`{"error":{"message":"x"}}`), nil); got != "" {
		t.Errorf("nil request: %q", got)
	}
}

func TestWithout(t *testing.T) {
	req := cachedRequest()
	before := encode(t, req)

	noCache := Without(req, FieldCacheControl)
	if got := encode(t, req); got != before {
		t.Fatalf("Without changed the request it was given:\n%s\n%s", before, got)
	}
	s := encode(t, noCache)
	if strings.Contains(s, "cache_control") {
		t.Errorf("breakpoints left: %s", s)
	}
	for _, want := range []string{
		`{"role":"system","content":"A\n\nB"}`, // as the translators send a system prompt without breakpoints
		`{"role":"tool","content":"result","tool_call_id":"c1"}`,
		`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}`,
		`"user":"{\"device_id\":\"0\",\"session_id\":\"s\"}"`, `"prompt_cache_key":"k"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s\nin %s", want, s)
		}
	}
	if Has(noCache, FieldCacheControl) || Has(noCache, FieldCacheTTL) || !Has(noCache, FieldUser) {
		t.Error("Has disagrees with the request")
	}

	noTTL := Without(req, FieldCacheTTL)
	s = encode(t, noTTL)
	if strings.Contains(s, "ttl") || strings.Count(s, `"cache_control":{"type":"ephemeral"}`) != 5 {
		t.Errorf("without ttl: %s", s)
	}
	if encode(t, req) != before {
		t.Fatal("Without(ttl) changed the request it was given")
	}

	for _, f := range []string{FieldPromptCacheKey, FieldUser} {
		out := Without(req, f)
		if Has(out, f) || !Has(req, f) || !Has(out, FieldCacheControl) {
			t.Errorf("without %s: %s", f, encode(t, out))
		}
	}
	if out := Without(noCache, FieldCacheControl); out != noCache {
		t.Error("a request without the field is not returned as it is")
	}
}

func TestRefusals(t *testing.T) {
	var r Refusals
	req := cachedRequest()
	if out, left := r.Apply(req); out != req || left != nil {
		t.Fatalf("nothing refused yet, yet %v left out", left)
	}
	if !r.Remember(req.Model, FieldPromptCacheKey) || r.Remember(req.Model, FieldPromptCacheKey) {
		t.Error("Remember is true the first time only")
	}
	out, left := r.Apply(req)
	if len(left) != 1 || left[0] != FieldPromptCacheKey || Has(out, FieldPromptCacheKey) || !Has(req, FieldPromptCacheKey) {
		t.Errorf("applied: left out %v", left)
	}
	other := *req
	other.Model = "vendor-b/other"
	if _, left := r.Apply(&other); left != nil {
		t.Errorf("another model's request lost %v", left)
	}

	// Bounded: past maxRefusals models, a refusal counts for all.
	var b Refusals
	for i := range maxRefusals + 10 {
		b.Remember(fmt.Sprintf("model-%d", i), FieldUser)
	}
	if len(b.m) > maxRefusals+1 || !b.Refused("never-seen", FieldUser) {
		t.Errorf("%d remembered; an unseen model refused: %v", len(b.m), b.Refused("never-seen", FieldUser))
	}
}

// Requests of many sessions consult and fill one Refusals at once; each
// refusal is reported new exactly once.
func TestRefusalsConcurrent(t *testing.T) {
	var r Refusals
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts := map[string]int{}
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				f := optionalFields[(g+i)%len(optionalFields)]
				model := fmt.Sprintf("m%d", i%3)
				if r.Remember(model, f) {
					mu.Lock()
					firsts[model+" "+f]++
					mu.Unlock()
				}
				req := cachedRequest()
				req.Model = model
				refused := r.Refused(model, FieldUser) // before: a refusal may land while Apply runs
				if out, _ := r.Apply(req); refused && Has(out, FieldUser) {
					t.Error("a refused field was sent")
				}
			}
		})
	}
	wg.Wait()
	for k, n := range firsts {
		if n != 1 {
			t.Errorf("%s reported new %d times", k, n)
		}
	}
	if len(firsts) != 3*len(optionalFields) {
		t.Errorf("%d refusals remembered, want %d", len(firsts), 3*len(optionalFields))
	}
}

// FuzzRefusedField: whatever a service answers, RefusedField names a field
// the request carries or none, and the request without it no longer
// carries it, the original unchanged.
func FuzzRefusedField(f *testing.F) {
	f.Add(400, []byte(`{"error":{"message":"Unrecognized request argument supplied: user","param":"user"}}`))
	f.Add(422, []byte(`{"detail":[{"loc":["body","prompt_cache_key"]}]}`))
	f.Add(400, []byte(`cache_control.ttl`))
	f.Add(400, []byte(`{"error":{"message":"messages.0.content must be a string"}}`))
	f.Add(400, []byte(`{"param":["user"],"error":"x"}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		req := cachedRequest()
		before := encode(t, req)
		field := RefusedField(status, body, req)
		if field == "" {
			return
		}
		if !Has(req, field) {
			t.Fatalf("%q refused, which the request does not carry", field)
		}
		if out := Without(req, field); Has(out, field) || encode(t, req) != before {
			t.Fatalf("without %q: %s", field, encode(t, out))
		}
	})
}

// A backend that takes a system message only first refuses one said later
// in its own words; the request sent again has it joined to the leading
// system message, in order, and nothing else moved.
func TestRefusedLateSystem(t *testing.T) {
	req := &Request{Model: "m", Messages: []Message{
		{Role: "system", Content: "S"},
		{Role: "user", Content: "u1"},
		{Role: "system", Content: []Part{{Type: "text", Text: "env", CacheControl: &CacheControl{Type: "ephemeral"}}}},
		{Role: "assistant", Content: "a1"},
		{Role: "system", Content: "later"},
		{Role: "user", Content: "u2"},
	}}
	for _, c := range []struct{ name, body, want string }{
		{"vLLM chat template", `{"object":"error","message":"System message must be at the beginning.","type":"BadRequestError","param":null,"code":400}`, FieldLateSystem},
		{"Mistral", `{"object":"error","message":"Unexpected role 'system' after role 'user'","type":"invalid_request_message_order"}`, FieldLateSystem},
		{"Ollama template", `{"error":"template: :1:12: executing \"\" at <raise_exception>: error calling raise_exception: System message must be first"}`, FieldLateSystem},
		{"a cache_control refusal", `{"error":{"message":"messages.2.content.0.cache_control: Extra inputs are not permitted"}}`, FieldCacheControl},
		{"an overflow", `{"error":{"message":"This model's maximum context length is 8192 tokens; the system message and the first message are too long"}}`, ""},
		{"about something else", `{"error":{"message":"max_tokens is too large for this system"}}`, ""},
	} {
		if got := RefusedField(400, []byte(c.body), req); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	lead := &Request{Model: "m", Messages: []Message{{Role: "system", Content: "S"}, {Role: "user", Content: "u"}}}
	if got := RefusedField(400, []byte(`{"message":"System message must be at the beginning."}`), lead); got != "" {
		t.Errorf("a request without a late system message: %q", got)
	}

	before := encode(t, req)
	joined := Without(req, FieldLateSystem)
	if encode(t, req) != before {
		t.Fatal("Without changed the request it was given")
	}
	want := `"messages":[{"role":"system","content":[{"type":"text","text":"S"},{"type":"text","text":"env","cache_control":{"type":"ephemeral"}},{"type":"text","text":"later"}]},` +
		`{"role":"user","content":"u1"},{"role":"assistant","content":"a1"},{"role":"user","content":"u2"}]`
	if got := encode(t, joined); !strings.Contains(got, want) {
		t.Errorf("joined:\n%s\nwant\n%s", got, want)
	}
	if Has(joined, FieldLateSystem) {
		t.Error("still a late system message")
	}
	noLead := Without(&Request{Messages: []Message{{Role: "user", Content: "u"}, {Role: "system", Content: "x"}}}, FieldLateSystem)
	if got := encode(t, noLead); !strings.Contains(got, `"messages":[{"role":"system","content":"x"},{"role":"user","content":"u"}]`) {
		t.Errorf("without a leading system message: %s", got)
	}
}
