package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
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
	meta.ResponseID, meta.IDs = "resp1", fixedEnv().ID
	return NewStreamWriter(&buf, meta), &buf
}

// Text and thoughts stream as they come; a tool call split over chunks is
// one functionCall part, with its thought signature, in the last event,
// which has the finish reason and the usage; pings are skipped by the SDK.
func TestStreamTextThoughtsAndCall(t *testing.T) {
	s, buf := newTestStream(Meta{Model: "vendor-b/model-b-3-flash-preview", Stream: true, Thoughts: true})
	for _, c := range []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Let me look."}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Reading "}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"it."}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"file_"}, "extra_content":{"google":{"thought_signature":"U0lH"}}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"path\":\"a.txt\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":30,"total_tokens":130,"prompt_tokens_details":{"cached_tokens":60},"completion_tokens_details":{"reasoning_tokens":12}}}`,
	} {
		if err := s.Chunk(chunk(t, c)); err != nil {
			t.Fatal(err)
		}
		if err := s.Ping(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.End(nil); err != nil {
		t.Fatal(err)
	}
	ev := events(t, buf.String())
	if len(ev) != 4 {
		t.Fatalf("%d events, want thought, two texts and the last: %s", len(ev), buf)
	}
	if p := ev[0].Candidates[0].Content.Parts[0]; !p.Thought || *p.Text != "Let me look." {
		t.Errorf("first part %+v, want the thought", p)
	}
	if p := ev[1].Candidates[0].Content.Parts[0]; p.Thought || *p.Text != "Reading " || ev[1].Candidates[0].FinishReason != "" {
		t.Errorf("second event %+v", ev[1])
	}
	last := ev[3]
	c := last.Candidates[0]
	if c.FinishReason != "STOP" || len(c.Content.Parts) != 1 || c.Content.Role != "model" {
		t.Fatalf("last event %+v", last)
	}
	fc := c.Content.Parts[0]
	if fc.FunctionCall == nil || fc.FunctionCall.ID != "call_1" || fc.FunctionCall.Name != "read_file" ||
		string(fc.FunctionCall.Args) != `{"file_path":"a.txt"}` || fc.ThoughtSignature != "U0lH" {
		t.Errorf("call %+v", fc)
	}
	u := last.UsageMetadata
	if u == nil || *u != (usageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 18, ThoughtsTokenCount: 12, CachedContentTokenCount: 60, TotalTokenCount: 130}) {
		t.Errorf("usage %+v", u)
	}
	for _, e := range ev {
		if e.ResponseID != "resp1" || e.ModelVersion != "vendor-b/model-b-3-flash-preview" {
			t.Errorf("event without the answer's id and model: %+v", e)
		}
	}
	if err := s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"content":"late"}}]}`)); !errors.Is(err, tr.ErrEnded) {
		t.Errorf("a chunk after the end: %v", err)
	}
	if s.Usage().PromptTokens != 100 {
		t.Errorf("Usage %+v", s.Usage())
	}
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

// The finish reasons, as the Gemini API names them.
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

// Arguments a model wrote that are not a JSON object still make a call
// Gemini CLI can answer (its validation tells the model); a call cut off by
// a broken stream is not shown, and the stream ends with Google's error
// object on its own, which @google/genai throws as an ApiError.
func TestStreamBrokenArgumentsAndBreak(t *testing.T) {
	s, buf := newTestStream(Meta{Model: "m", Stream: true})
	_ = s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"not json"}}]},"finish_reason":"tool_calls"}]}`))
	_ = s.End(nil)
	ev := events(t, buf.String())
	if fc := ev[0].Candidates[0].Content.Parts[0].FunctionCall; fc == nil || string(fc.Args) != `{"arguments":"not json"}` {
		t.Errorf("call %+v", ev[0])
	}

	s, buf = newTestStream(Meta{Model: "m", Stream: true})
	_ = s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"content":"partial"}}]}`))
	_ = s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`))
	if err := s.End(io.ErrUnexpectedEOF); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	i := strings.LastIndex(out, "\r\n\r\n")
	events(t, out[:i+4])
	tail := out[i+4:]
	var e struct {
		Error errorDetail `json:"error"`
	}
	if err := json.Unmarshal([]byte(tail), &e); err != nil || e.Error.Code != 502 || e.Error.Status != "UNAVAILABLE" || !strings.Contains(e.Error.Message, "broke off") {
		t.Errorf("the end of a broken stream is %q", tail)
	}
	if strings.Contains(out, `"functionCall"`) {
		t.Errorf("a cut-off call was shown: %s", out)
	}
	if err := s.End(nil); err != nil || strings.Count(buf.String(), `"error"`) != 1 {
		t.Errorf("a second End wrote again: %v %s", err, buf)
	}
}

// A failure of the service inside the stream is its classified error with
// the spec's message and the fix.
func TestStreamServiceError(t *testing.T) {
	s, buf := newTestStream(Meta{Model: "m", Stream: true})
	ae := &api.Error{Condition: api.KeyRejected, Kind: api.KindNoBalance, Status: 402, Cause: "the account's balance is exhausted"}
	_ = s.End(ae)
	var e struct {
		Error errorDetail `json:"error"`
	}
	if err := json.Unmarshal(buf.Bytes(), &e); err != nil || e.Error.Code != 402 ||
		!strings.HasPrefix(e.Error.Message, "API key invalid or unauthorized: the account's balance is exhausted") {
		t.Errorf("got %s", buf)
	}
}

// A writer that fails (the client went away) stops the stream.
func TestStreamWriteFailure(t *testing.T) {
	s := NewStreamWriter(failWriter{}, Meta{Model: "m", Stream: true, ResponseID: "r", IDs: fixedEnv().ID})
	if err := s.Chunk(chunk(t, `{"choices":[{"index":0,"delta":{"content":"x"}}]}`)); err == nil {
		t.Fatal("no error from a failed write")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("gone") }

// The whole answer: thoughts (asked for), text, calls with signatures, the
// finish reason and usage; an answer without a choice is an error.
func TestWholeAnswer(t *testing.T) {
	content := "Here."
	r := &chat.Response{ID: "x", Model: "served-model", Choices: []chat.Choice{{FinishReason: "length", Message: chat.ResponseMsg{
		Content: &content, ReasoningContent: "hmm",
		ToolCalls: []chat.ToolCall{{ID: "c1", Type: "function", Function: chat.FunctionCall{Name: "f", Arguments: `{"a":1}`}, ExtraContent: chat.WithThoughtSignature("U0k=")}},
	}}}, Usage: &chat.Usage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12}}
	b, err := FromResponse(Meta{Model: "m", Thoughts: true, ResponseID: "id1", IDs: fixedEnv().ID}, r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"candidates":[{"content":{"role":"model","parts":[{"text":"hmm","thought":true},{"text":"Here."},{"functionCall":{"id":"c1","name":"f","args":{"a":1}},"thoughtSignature":"U0k="}]},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":7,"totalTokenCount":12},"modelVersion":"served-model","responseId":"id1"}`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	if _, err := FromResponse(Meta{ResponseID: "id", IDs: fixedEnv().ID}, &chat.Response{}); err == nil {
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
		{&api.Error{Condition: api.KeyRejected, Status: 401, Cause: "refused"}, 401, "UNAUTHENTICATED", "API key invalid or unauthorized: refused"},
		{&api.Error{Condition: api.KeyRejected, Kind: api.KindNoBalance, Status: 429, Cause: "no balance"}, 402, "FAILED_PRECONDITION", "API key invalid or unauthorized: no balance"},
		{&api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey, Status: 403, Cause: "refused"}, 403, "PERMISSION_DENIED", "API key invalid or unauthorized: refused"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindRefused, Cause: "connection refused"}, 400, "FAILED_PRECONDITION", "unable to connect to API: connection refused"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindTimeout, Status: 504, Cause: "no answer"}, 400, "FAILED_PRECONDITION", "unable to connect to API: no answer"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindBaseURL, Status: 404, Cause: "the endpoint does not exist"}, 400, "FAILED_PRECONDITION", "unable to connect to API: the endpoint does not exist"},
		{&api.Error{Status: 429, Kind: api.KindRateLimited, Cause: "slow down"}, 429, "RESOURCE_EXHAUSTED", "slow down"},
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
	a := Protocol{}.Refusal(http.StatusUnauthorized, "local_token_invalid", "API key invalid or unauthorized: not the local token")
	if a.Status != 401 || !strings.Contains(string(a.Body), `"status":"UNAUTHENTICATED"`) {
		t.Errorf("refusal %d %s", a.Status, a.Body)
	}
}

// TestErrorStatusOfInStreamErrors: a context overflow or a rate limit the
// service reports with 200 or inside its stream (no HTTP status of its
// own) reaches Gemini CLI as 400 and 429, as through the other
// translators, not as 502, which Gemini CLI retries again and again with
// the same too long conversation.
func TestErrorStatusOfInStreamErrors(t *testing.T) {
	for body, want := range map[string]int{
		`{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`: 400,
		`{"error":{"message":"Rate limit exceeded","type":"rate_limit_error"}}`: 429,
	} {
		e := api.ClassifyResponse(200, http.Header{}, []byte(body), "m")
		x := &exchange{meta: Meta{Model: "m"}}
		if a := x.Error(e); a.Status != want {
			t.Errorf("%s (classified %s, status %d): answered %d, want %d", body, e.Kind, e.Status, a.Status, want)
		}
		var buf bytes.Buffer
		s := NewStreamWriter(&buf, Meta{Model: "m", ResponseID: "r", IDs: func(n int) string { return strings.Repeat("a", n) }})
		_ = s.End(e)
		if !strings.Contains(buf.String(), fmt.Sprintf(`"code":%d`, want)) {
			t.Errorf("%s mid-stream: %s", body, buf.String())
		}
	}
}
