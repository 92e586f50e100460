package gemini

import (
	"bytes"
	"encoding/json"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
)

// events reads a stream's output as @google/genai does: each "data: " line
// followed by a blank line is one GenerateContentResponse; blank lines
// between them are skipped; anything else fails the test.
func events(t *testing.T, out string) []response {
	t.Helper()
	re := regexp.MustCompile(`^\s*data: (.*)(?:\n\n|\r\r|\r\n\r\n)`)
	var got []response
	for strings.TrimSpace(out) != "" {
		m := re.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("@google/genai could not read the stream from here: %q", out)
		}
		var r response
		if err := json.Unmarshal([]byte(m[1]), &r); err != nil {
			t.Fatalf("event %q: %v", m[1], err)
		}
		got = append(got, r)
		out = out[len(m[0]):]
	}
	return got
}

func newTestStream(meta Meta) (*StreamWriter, *bytes.Buffer) {
	var buf bytes.Buffer
	meta.ResponseID, meta.IDs = "resp1", translatetest.Env().ID
	return NewStreamWriter(&buf, meta), &buf
}

// Without includeThoughts the model's reasoning is not shown, as the Gemini
// API does not show it.
func TestStreamThoughtsOnlyWhenAsked(t *testing.T) {
	s, buf := newTestStream(Meta{Model: "m", Stream: true})
	_ = s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"reasoning":"secret plan"}}]}`))
	_ = s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`))
	_ = s.End(nil)
	if strings.Contains(buf.String(), "secret plan") || strings.Contains(buf.String(), `"thought"`) {
		t.Errorf("thoughts shown unasked: %s", buf)
	}
	ev := events(t, buf.String())
	if len(ev) != 2 || ev[1].UsageMetadata != nil {
		t.Errorf("events %+v", ev)
	}
}

// Arguments a model wrote that are not a JSON object still make a call
// Gemini CLI can answer (its validation tells the model).
func TestStreamBrokenArguments(t *testing.T) {
	s, buf := newTestStream(Meta{Model: "m", Stream: true})
	_ = s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"not json"}}]},"finish_reason":"tool_calls"}]}`))
	_ = s.End(nil)
	ev := events(t, buf.String())
	if fc := ev[0].Candidates[0].Content.Parts[0].FunctionCall; fc == nil || string(fc.Args) != `{"arguments":"not json"}` {
		t.Errorf("call %+v", ev[0])
	}
}

// The whole answer: thoughts (asked for), text, calls with signatures, the
// finish reason and usage; an answer without a choice is an error.
func TestWholeAnswer(t *testing.T) {
	content := "Here."
	r := &chat.Response{ID: "x", Model: "served-model", Choices: []chat.Choice{{FinishReason: "length", Message: chat.ResponseMsg{
		Content: &content, ReasoningContent: "hmm",
		ToolCalls: []chat.ToolCall{{ID: "c1", Type: "function", Function: chat.FunctionCall{Name: "f", Arguments: `{"a":1}`}, ExtraContent: chat.WithThoughtSignature("U0k=")}},
	}}}, Usage: &chat.Usage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12}}
	b, err := FromResponse(Meta{Model: "m", Thoughts: true, ResponseID: "id1", IDs: translatetest.Env().ID}, r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"candidates":[{"content":{"role":"model","parts":[{"text":"hmm","thought":true},{"text":"Here."},{"functionCall":{"id":"c1","name":"f","args":{"a":1}},"thoughtSignature":"U0k="}]},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":7,"totalTokenCount":12},"modelVersion":"served-model","responseId":"id1"}`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	if _, err := FromResponse(Meta{ResponseID: "id", IDs: translatetest.Env().ID}, &chat.Response{}); err == nil {
		t.Error("an answer without a choice was translated")
	}
}

// Errors in Google's shape: the code is the HTTP status, the status its
// name; an unknown model is a 400 (Gemini CLI reads a 404 as its own model
// missing), whatever status came with it, an unreachable service a 400
// FAILED_PRECONDITION, an exhausted balance said with a 429 a 402 (Gemini
// CLI retries a 429 and a 5xx for minutes); a rate limit and the service's
// 503 keep theirs (Gemini CLI retries them).
func TestErrorShape(t *testing.T) {
	cases := []struct {
		e         *api.Error
		code      int
		status    string
		msgPrefix string
	}{
		{&api.Error{Condition: api.UnknownModel, Status: 404, Cause: "no such model"}, 400, "INVALID_ARGUMENT", "model not found / invalid model: no such model"},
		{&api.Error{Condition: api.UnknownModel, Status: 500, Cause: "no such model"}, 400, "INVALID_ARGUMENT", "model not found / invalid model: no such model"},
		{&api.Error{Condition: api.KeyRejected, Kind: api.KindNoBalance, Status: 429, Cause: "no balance"}, 402, "FAILED_PRECONDITION", "API key invalid or unauthorized: no balance"},
		{&api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey, Status: 403, Cause: "refused"}, 403, "PERMISSION_DENIED", "API key invalid or unauthorized: refused"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindRefused, Cause: "connection refused"}, 400, "FAILED_PRECONDITION", "unable to connect to API: connection refused"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindTimeout, Status: 504, Cause: "no answer"}, 400, "FAILED_PRECONDITION", "unable to connect to API: no answer"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindBaseURL, Status: 404, Cause: "the endpoint does not exist"}, 400, "FAILED_PRECONDITION", "unable to connect to API: the endpoint does not exist"},
		{&api.Error{Status: 503, Kind: api.KindServerError, Cause: "overloaded"}, 503, "UNAVAILABLE", "overloaded"},
	}
	for _, c := range cases {
		x := &exchange{meta: Meta{Model: "m"}}
		a := x.Error(c.e)
		var e struct {
			Error errorDetail `json:"error"`
		}
		if err := json.Unmarshal(a.Body, &e); err != nil || a.Status != c.code || e.Error.Code != c.code || e.Error.Status != c.status ||
			!strings.HasPrefix(e.Error.Message, c.msgPrefix) || a.Header.Get("Content-Type") != "application/json; charset=UTF-8" {
			t.Errorf("%+v: %d %s", c.e, a.Status, a.Body)
		}
	}
}

// TestStreamUsageAndNames: the last event counts the thoughts apart from
// the answer's tokens, as Gemini CLI's /stats shows them (thoughtsTokenCount,
// candidatesTokenCount without them), with the cached prompt; every event
// names the answer and the model (responseId, modelVersion).
func TestStreamUsageAndNames(t *testing.T) {
	s, buf := newTestStream(Meta{Model: "vendor-b/model-b-3-flash-preview", Stream: true, Thoughts: true})
	for _, c := range []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Let me look."}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Here."}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":30,"total_tokens":130,"prompt_tokens_details":{"cached_tokens":60},"completion_tokens_details":{"reasoning_tokens":12}}}`,
	} {
		if err := s.Chunk(chunk(t, c)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.End(nil); err != nil {
		t.Fatal(err)
	}
	ev := events(t, buf.String())
	u := ev[len(ev)-1].UsageMetadata
	want := usageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 18, ThoughtsTokenCount: 12, CachedContentTokenCount: 60, TotalTokenCount: 130}
	if u == nil || *u != want {
		t.Errorf("usage %+v, want %+v\n%s", u, want, buf)
	}
	for i, e := range ev {
		if e.ResponseID != "resp1" || e.ModelVersion != "vendor-b/model-b-3-flash-preview" {
			t.Errorf("event %d names answer %q, model %q; want resp1 and the model asked for", i, e.ResponseID, e.ModelVersion)
		}
	}
}

// TestFinishReasons: the service's finish reasons as the Gemini API names
// them; one it does not know is OTHER, not a normal stop.
func TestFinishReasons(t *testing.T) {
	for in, want := range map[string]string{"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY", "": "STOP", "weird": "OTHER"} {
		s, buf := newTestStream(Meta{Model: "m", Stream: true})
		_ = s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"`+in+`"}]}`))
		_ = s.End(nil)
		ev := events(t, buf.String())
		if got := ev[len(ev)-1].Candidates[0].FinishReason; got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
