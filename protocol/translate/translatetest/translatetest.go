// Package translatetest is the conformance suite every translator of gw
// serve runs, in the spirit of testing/fstest.TestFS: Run drives a
// translate.Protocol with the service's chunks and answers (text, reasoning
// in each dialect, tool calls however a gateway splits and numbers them,
// finish reasons, usage, streams that break, the service's errors) and
// checks, through a small client of the protocol (Client), what a client of
// it relies on: the answer it reads, whole or streamed, is the service's;
// a call is never shown half; a failure says the protocol's status and
// whether to retry; and what the client gives back on its next turn takes
// the reasoning back to the service in the dialect it came in.
//
// It drives a translator only through the translate interfaces (Translate,
// Exchange, Stream, Refusal), never through a translator's own types. Its
// cases serve a protocol's golden tests too (ReasoningCases, Golden), and
// Service and Refusing play the service for the tests that run a real
// client through a translator. It is imported by tests only.
package translatetest

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// Conformance is a protocol and its client, for Run.
type Conformance struct {
	Protocol tr.Protocol
	Client   Client
	// Carries are the reasoning dialects the protocol's client gives back
	// to the service on its next turn; the others are not checked.
	Carries []Dialect
}

// Dialect is a way a service carries reasoning (see package chat).
type Dialect string

// The dialects.
const (
	Plain            Dialect = "plain"      // reasoning_content / reasoning
	OpenRouter       Dialect = "openrouter" // reasoning_details, signed and encrypted
	LiteLLM          Dialect = "litellm"    // thinking_blocks, redacted ones too
	ThoughtSignature Dialect = "gemini"     // a tool call's thought signature
)

// Client is how a client of the protocol writes a request and reads an
// answer, in neutral terms.
type Client struct {
	// Request is the protocol's request of c.
	Request func(t testing.TB, c Conversation) *tr.Request
	// Whole reads a whole answer (status 200).
	Whole func(t testing.TB, a tr.Answer) Answer
	// Stream reads a streamed answer's body, failing t where it breaks the
	// protocol's stream rules; a stream that ended with the protocol's
	// error event has Failed set.
	Stream func(t testing.TB, body []byte) Answer
	// Error reads an error answer.
	Error func(t testing.TB, a tr.Answer) Failure
}

// Conversation is a request in neutral terms: the user's text, and after
// the first turn the answer the client was given (as it kept it), a result
// for each of its calls and the user's next text.
type Conversation struct {
	Model  string
	Stream bool
	Tools  []string // functions offered, each taking an object
	User   string
	// Reply is the assistant's earlier answer, given back as the client
	// kept it (Answer.Kept); nil on the first turn.
	Reply   *Answer
	Results []Result // a tool result for each call of Reply
	Next    string   // the user's text after Reply; "" none
}

// Result is a tool's result for a call.
type Result struct {
	Call   Call
	Output string
}

// Answer is what a client read of an answer.
type Answer struct {
	Text      string
	Reasoning string // the reasoning text shown
	Calls     []Call
	Stop      string // the finish reason as chat names it: stop, length, tool_calls
	Usage     *Usage // nil when the answer says none
	Failed    *Failure
	// Kept is the answer as the client keeps it to send back (the
	// protocol's own items, blocks or parts); Client.Request reads it.
	Kept any
}

// Call is a tool call as the client reads it.
type Call struct {
	ID, Name string
	Args     string // a JSON object, compact
}

// Usage is the token count as the client reads it: Input counts the
// whole prompt, cached tokens too; Output every generated token; Cached the
// prompt's tokens read from the service's cache.
type Usage struct{ Input, Output, Cached int }

// Failure is an error answer or the error a stream ended with.
type Failure struct {
	Status  int // the HTTP status (a stream's error: the one it names)
	Message string
	// Retry: the protocol's client would send the request again by itself.
	Retry bool
	// Overflow: the client reads it as a context overflow (and compacts).
	Overflow bool
}

// Env is a fixed clock and ids that count up, from 1 for each Env.
func Env() tr.Env {
	n := 0
	return tr.Env{
		Now: func() time.Time { return time.Unix(1_700_000_000, 0) },
		ID: func(k int) string {
			n++
			s := strings.Repeat("0", k) + fmt.Sprint(n)
			return s[len(s)-k:]
		},
	}
}

const model = "vendor-a/model-a-4.5"

// tools are the functions every request of the suite offers.
const tools = "Read,Bash,ListAgents"

// Run runs every check on c.
func Run(t *testing.T, c Conformance) {
	s := &suite{c: c}
	t.Run("Request", s.request)
	t.Run("Stream", s.stream)
	t.Run("Dialects", s.dialects)
	t.Run("WholeIsStreamed", s.wholeIsStreamed)
	t.Run("Broken", s.broken)
	t.Run("Lifecycle", s.lifecycle)
	t.Run("Errors", s.errors)
}

type suite struct{ c Conformance }

func (s *suite) carries(d Dialect) bool { return slices.Contains(s.c.Carries, d) }

// exchange translates conv, which must not be refused.
func (s *suite) exchange(t testing.TB, conv Conversation) tr.Exchange {
	t.Helper()
	if conv.Model == "" {
		conv.Model = model
	}
	if conv.Tools == nil {
		conv.Tools = strings.Split(tools, ",")
	}
	req := s.c.Client.Request(t, conv)
	env := Env()
	if a, handled := s.c.Protocol.Local(req, env); handled {
		t.Fatalf("the protocol answered the request itself: %d %s", a.Status, a.Body)
	}
	ex, refused := s.c.Protocol.Translate(req, env)
	if refused != nil {
		t.Fatalf("the request is refused: %d %s\n%s", refused.Status, refused.Body, req.Body)
	}
	return ex
}

// streamed is the client's answer to chunks streamed and ended with end.
func (s *suite) streamed(t testing.TB, chunks []*chat.Chunk, end error) (Answer, []byte) {
	t.Helper()
	ex := s.exchange(t, Conversation{Stream: true, User: "go"})
	var buf bytes.Buffer
	st := ex.Stream(&buf)
	for _, c := range chunks {
		if err := st.Chunk(c); err != nil {
			t.Fatalf("Chunk: %v", err)
		}
	}
	if err := st.End(end); err != nil {
		t.Fatalf("End: %v", err)
	}
	return s.c.Client.Stream(t, buf.Bytes()), buf.Bytes()
}

// whole is the client's answer to r, not streamed.
func (s *suite) whole(t testing.TB, r *chat.Response) Answer {
	t.Helper()
	ex := s.exchange(t, Conversation{User: "go"})
	a, err := ex.Whole(r)
	if err != nil {
		t.Fatalf("Whole: %v", err)
	}
	if a.Status != http.StatusOK || !strings.HasPrefix(a.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("a whole answer %d %q", a.Status, a.Header.Get("Content-Type"))
	}
	return s.c.Client.Whole(t, a)
}

// sendBack is the chat request of the client's next turn after a: a
// result for each call, or more text.
func (s *suite) sendBack(t testing.TB, a Answer) *chat.Request {
	t.Helper()
	conv := Conversation{User: "go", Reply: &a}
	for _, c := range a.Calls {
		conv.Results = append(conv.Results, Result{Call: c, Output: "done"})
	}
	if len(a.Calls) == 0 {
		conv.Next = "and?"
	}
	ex := s.exchange(t, conv)
	if n := ex.Info().Notes; len(n) > 0 {
		t.Errorf("the answer given back lost something: %v", n)
	}
	return ex.Call().Chat
}

// same reports how got differs from want in what a client reads: text,
// reasoning, calls, stop, usage, failure.
func same(got, want Answer) error {
	var diffs []string
	if got.Text != want.Text {
		diffs = append(diffs, fmt.Sprintf("text %q, want %q", got.Text, want.Text))
	}
	if got.Reasoning != want.Reasoning {
		diffs = append(diffs, fmt.Sprintf("reasoning %q, want %q", got.Reasoning, want.Reasoning))
	}
	if len(got.Calls) != len(want.Calls) {
		diffs = append(diffs, fmt.Sprintf("calls %+v, want %+v", got.Calls, want.Calls))
	} else {
		for i := range got.Calls {
			g, w := got.Calls[i], want.Calls[i]
			if g.Name != w.Name || compact(g.Args) != compact(w.Args) || w.ID != "" && g.ID != w.ID || g.ID == "" {
				diffs = append(diffs, fmt.Sprintf("call %d %+v, want %+v", i, g, w))
			}
			if slices.ContainsFunc(got.Calls[:i], func(c Call) bool { return c.ID == g.ID }) {
				diffs = append(diffs, fmt.Sprintf("call %d has the id of an earlier call, %q: the client cannot tell their results apart", i, g.ID))
			}
		}
	}
	if got.Stop != want.Stop {
		diffs = append(diffs, fmt.Sprintf("stop %q, want %q", got.Stop, want.Stop))
	}
	if want.Usage != nil && (got.Usage == nil || *got.Usage != *want.Usage) {
		diffs = append(diffs, fmt.Sprintf("usage %+v, want %+v", got.Usage, want.Usage))
	}
	if (got.Failed == nil) != (want.Failed == nil) {
		diffs = append(diffs, fmt.Sprintf("failed %+v, want %+v", got.Failed, want.Failed))
	}
	if diffs != nil {
		return errors.New(strings.Join(diffs, "; "))
	}
	return nil
}

// request: the conversation reaches the service as chat messages, with
// its model, tools and tool results, a stream asking for the usage; a body
// that is not JSON is refused with the protocol's 400, which no retry fixes,
// and another method than POST with 405.
func (s *suite) request(t *testing.T) {
	first := Answer{Text: "Reading.", Calls: []Call{{ID: "call_1", Name: "Read", Args: `{"file_path":"a"}`}}, Stop: "tool_calls"}
	streamed, _ := s.streamed(t, []*chat.Chunk{Text("Reading."), Tool(0, "call_1", "Read", `{"file_path":"a"}`), Finish("tool_calls")}, nil)
	if err := same(streamed, first); err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		ex := s.exchange(t, Conversation{Model: model, Stream: stream, User: "go", Reply: &streamed,
			Results: []Result{{Call: streamed.Calls[0], Output: "the file"}}})
		if i := ex.Info(); i.Model != model || i.Stream != stream {
			t.Errorf("Info %+v, want model %s, stream %v", i, model, stream)
		}
		c := ex.Call().Chat
		if c.Model != model || c.Stream != stream || stream && (c.StreamOptions == nil || !c.StreamOptions.IncludeUsage) {
			t.Errorf("model %q, stream %v, stream_options %+v: want %s, %v and the usage asked for when streamed", c.Model, c.Stream, c.StreamOptions, model, stream)
		}
		var names []string
		for _, tl := range c.Tools {
			names = append(names, tl.Function.Name)
		}
		if strings.Join(names, ",") != tools {
			t.Errorf("tools %v, want %v", names, tools)
		}
		var roles []string
		for _, m := range c.Messages {
			if m.Role != "system" {
				roles = append(roles, m.Role)
			}
		}
		if strings.Join(roles, ",") != "user,assistant,tool" {
			t.Fatalf("roles %v, want user,assistant,tool", roles)
		}
		n := len(c.Messages)
		asst, tool := c.Messages[n-2], c.Messages[n-1]
		if len(asst.ToolCalls) != 1 || asst.ToolCalls[0].ID != "call_1" || asst.ToolCalls[0].Function.Name != "Read" ||
			compact(asst.ToolCalls[0].Function.Arguments) != `{"file_path":"a"}` || !strings.Contains(textOf(asst.Content), "Reading.") {
			t.Errorf("the assistant's turn sent back as %s", jsonOf(asst))
		}
		if tool.ToolCallID != "call_1" || !strings.Contains(textOf(tool.Content), "the file") {
			t.Errorf("the tool result sent as %s", jsonOf(tool))
		}
		if !strings.Contains(textOf(c.Messages[n-3].Content), "go") {
			t.Errorf("the user's text sent as %s", jsonOf(c.Messages[n-3]))
		}
	}
	req := s.c.Client.Request(t, Conversation{Model: model, Stream: true, Tools: strings.Split(tools, ","), User: "go"})
	req.Body = []byte(`{"model":`)
	if a, handled := s.c.Protocol.Local(req, Env()); handled {
		t.Fatalf("a bad body was answered locally: %d %s", a.Status, a.Body)
	}
	_, refused := s.c.Protocol.Translate(req, Env())
	if refused == nil {
		t.Fatal("a body that is not JSON was not refused")
	}
	if f := s.c.Client.Error(t, *refused); f.Status != http.StatusBadRequest || f.Retry || f.Message == "" || strings.Contains(f.Message, "\n") {
		t.Errorf("a bad body refused with %+v, want a one-line 400", f)
	}
	req.Method = http.MethodGet
	a, handled := s.c.Protocol.Local(req, Env())
	if !handled || a.Status != http.StatusMethodNotAllowed || a.Header.Get("Allow") != http.MethodPost || s.c.Client.Error(t, a).Message == "" {
		t.Errorf("GET answered %v %d (Allow %q) %s, want 405 allowing POST", handled, a.Status, a.Header.Get("Allow"), a.Body)
	}
}

// stream: the service's chunks, however they come, make the answer the
// client reads.
func (s *suite) stream(t *testing.T) {
	for _, c := range streamCases() {
		t.Run(c.name, func(t *testing.T) {
			got, body := s.streamed(t, c.chunks, nil)
			if err := same(got, c.want); err != nil {
				t.Errorf("%v\nstream:\n%s", err, body)
			}
		})
	}
	t.Run("refusal", s.refusal)
	t.Run("usage", s.usage)
	// Arguments arrive whole whichever byte boundary the service split
	// them at (between characters: the chunks are decoded JSON).
	args := `{"file_path":"/tmp/a b/ü.txt","limit":10,"nested":{"x":[1,2]}}`
	for k := 0; k <= len(args); k++ {
		if k < len(args) && args[k]&0xC0 == 0x80 {
			continue
		}
		got, body := s.streamed(t, []*chat.Chunk{Tool(0, "call_1", "Read", ""), Tool(0, "", "", args[:k]), Tool(0, "", "", args[k:]), Finish("tool_calls")}, nil)
		want := Answer{Calls: []Call{{ID: "call_1", Name: "Read", Args: args}}, Stop: "tool_calls"}
		if err := same(got, want); err != nil {
			t.Fatalf("split at %d: %v\n%s", k, err, body)
		}
	}
}

// refusal: the model's refusal (the service's refusal field) is shown
// with the text, and the answer says it was filtered; whole and streamed.
func (s *suite) refusal(t *testing.T) {
	part, no := "Part", "No."
	streamed, body := s.streamed(t, []*chat.Chunk{Text(part), {Choices: []chat.ChunkChoice{{Delta: chat.Delta{Refusal: &no}}}}, Finish("content_filter")}, nil)
	whole := s.whole(t, &chat.Response{ID: "x", Choices: []chat.Choice{{Message: chat.ResponseMsg{Role: "assistant", Content: &part, Refusal: &no}, FinishReason: "content_filter"}}})
	// The text and the refusal in one chunk: both shown, as the whole answer shows them.
	oneChunk, _ := s.streamed(t, []*chat.Chunk{{Choices: []chat.ChunkChoice{{Delta: chat.Delta{Content: &part, Refusal: &no}}}}, Finish("content_filter")}, nil)
	for _, a := range []Answer{streamed, whole, oneChunk} {
		if !strings.HasPrefix(a.Text, part) || !strings.Contains(a.Text, no) || a.Stop != "content_filter" || len(a.Calls) > 0 || a.Failed != nil {
			t.Errorf("answer %+v, want the text and the refusal, stopped as filtered\n%s", a, body)
		}
	}
}

// usage: the service's counts, in the shapes gateways report them, are
// the client's, streamed and whole.
func (s *suite) usage(t *testing.T) {
	ok := "ok"
	for _, c := range usageCases() {
		t.Run(c.name, func(t *testing.T) {
			var ev chat.Event
			if err := chat.ParseEvent([]byte(`{"id":"c","choices":[],"usage":`+c.usage+`}`), &ev); err != nil {
				t.Fatal(err)
			}
			streamed, body := s.streamed(t, []*chat.Chunk{Text(ok), Finish("stop"), &ev.Chunk}, nil)
			whole := s.whole(t, &chat.Response{ID: "x", Usage: ev.Chunk.Usage, Choices: []chat.Choice{{Message: chat.ResponseMsg{Role: "assistant", Content: &ok}, FinishReason: "stop"}}})
			for _, a := range []Answer{streamed, whole} {
				if a.Usage == nil || *a.Usage != c.want {
					t.Errorf("usage %+v, want %+v\n%s", a.Usage, c.want, body)
				}
			}
		})
	}
}

// dialects: reasoning in every dialect is shown, the same streamed and
// whole, and given back to the service on the next turn as it came (for
// the dialects the protocol carries), with each call's own id.
func (s *suite) dialects(t *testing.T) {
	for _, c := range dialectCases() {
		t.Run(c.name, func(t *testing.T) {
			rc := c.exported()
			streamed, body := s.streamed(t, rc.Chunks(), nil)
			whole := s.whole(t, rc.Whole)
			for how, a := range map[string]Answer{"streamed": streamed, "whole": whole} {
				if err := same(a, c.want); err != nil {
					t.Errorf("%s: %v\n%s", how, err, body)
				}
				req := s.sendBack(t, a)
				asst, tool := lastAssistant(req)
				if asst == nil {
					t.Fatalf("%s: no assistant message sent back: %s", how, jsonOf(req.Messages))
				}
				if err := c.checkBack(s, asst); err != nil {
					t.Errorf("%s, sent back %s: %v", how, jsonOf(asst), err)
				}
				if c.toolID != "" && (tool == nil || tool.ToolCallID != c.toolID) {
					t.Errorf("%s: the tool result %s does not name the service's call %s", how, jsonOf(tool), c.toolID)
				}
			}
		})
	}
}

// wholeIsStreamed: a whole answer and the same answer as the one chunk a
// stream is given (tr.OneChunk) read the same, and give back the same,
// each tool result naming its call.
func (s *suite) wholeIsStreamed(t *testing.T) {
	type wholeCase struct {
		name string
		r    *chat.Response
		want Answer
	}
	look := "Let me look."
	cases := []wholeCase{{name: "text, reasoning and calls", r: &chat.Response{ID: "chatcmpl-9", Choices: []chat.Choice{{FinishReason: "tool_calls",
		Message: chat.ResponseMsg{Role: "assistant", Content: &look, ReasoningContent: "thinking…", ToolCalls: []chat.ToolCall{
			{ID: "call_1", Type: "function", Function: chat.FunctionCall{Name: "Read", Arguments: `{"file_path": "/a"}`}},
			{Type: "function", Function: chat.FunctionCall{Name: "Bash", Arguments: `{"command":"ls"}`}}}}}}},
		want: Answer{Text: look, Reasoning: "thinking…", Stop: "tool_calls",
			Calls: []Call{{ID: "call_1", Name: "Read", Args: `{"file_path":"/a"}`}, {Name: "Bash", Args: `{"command":"ls"}`}}},
	}}
	for _, c := range dialectCases() {
		cases = append(cases, wholeCase{c.name, c.exported().Whole, c.want})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.r.Usage = &chat.Usage{PromptTokens: 50, CompletionTokens: 9, TotalTokens: 59}
			c.want.Usage = &Usage{Input: 50, Output: 9}
			whole := s.whole(t, c.r)
			streamed, body := s.streamed(t, []*chat.Chunk{tr.OneChunk(c.r)}, nil)
			if err := same(whole, c.want); err != nil {
				t.Errorf("whole: %v", err)
			}
			if err := same(streamed, whole); err != nil {
				t.Errorf("streamed: %v\n%s", err, body)
			}
			var back []*chat.Message
			for _, a := range []Answer{whole, streamed} {
				req := s.sendBack(t, a)
				asst, _ := lastAssistant(req)
				back = append(back, asst)
				for _, tc := range asst.ToolCalls {
					if !slices.ContainsFunc(req.Messages, func(m chat.Message) bool { return m.Role == "tool" && m.ToolCallID == tc.ID }) {
						t.Errorf("no tool result names the call %s: %s", tc.ID, jsonOf(req.Messages))
					}
				}
			}
			if !reflect.DeepEqual(back[0], back[1]) {
				t.Errorf("given back, the whole answer is\n%s\nthe streamed one\n%s", jsonOf(back[0]), jsonOf(back[1]))
			}
		})
	}
	ex := s.exchange(t, Conversation{User: "go"})
	if _, err := ex.Whole(&chat.Response{ID: "x"}); err == nil {
		t.Error("an answer without a choice was translated")
	}
}

// broken: a stream that breaks ends with the protocol's error, which says
// whether to retry, keeps what was complete, never shows the call it cut
// and never says how the answer stopped, as a whole answer does.
func (s *suite) broken(t *testing.T) {
	for _, c := range brokenCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, chunks := range [][]*chat.Chunk{
				{Text("Hal"), Tool(0, "call_1", "Read", `{"fi`)},
				nil,
			} {
				got, body := s.streamed(t, chunks, c.err)
				if got.Failed == nil {
					t.Fatalf("the stream did not end with an error:\n%s", body)
				}
				if len(got.Calls) > 0 {
					t.Errorf("the cut call was shown: %+v\n%s", got.Calls, body)
				}
				if got.Stop != "" {
					t.Errorf("the broken stream says the answer stopped (%s), as a whole one does\n%s", got.Stop, body)
				}
				if chunks != nil && got.Text != "Hal" {
					t.Errorf("text %q, want what came before the break\n%s", got.Text, body)
				}
				if f := got.Failed; !retries(*f, c.errorCase) || f.Overflow != c.overflow || !strings.HasPrefix(f.Message, c.message) ||
					c.status != 0 && f.Status != c.status {
					t.Errorf("failure %+v, want retry %q, overflow %v, status %d, message %q…\n%s", f, c.retry, c.overflow, c.status, c.message, body)
				}
			}
		})
	}
}

// lifecycle: a ping writes traffic and changes nothing of the answer; End
// ends it once; a chunk after it is tr.ErrEnded; the stream tells the usage
// so far; a client gone stops the stream.
func (s *suite) lifecycle(t *testing.T) {
	chunks := []*chat.Chunk{Text("a"), Finish("stop"), UsageChunk(10, 2, 0)}
	plain, _ := s.streamed(t, chunks, nil)

	ex := s.exchange(t, Conversation{Stream: true, User: "go"})
	var buf bytes.Buffer
	st := ex.Stream(&buf)
	// A ping is traffic the client sees, which keeps its idle timeout from
	// giving up on a service still thinking.
	ping := func(when string) {
		t.Helper()
		n := buf.Len()
		if err := st.Ping(); err != nil {
			t.Fatalf("Ping %s: %v", when, err)
		}
		if buf.Len() == n {
			t.Errorf("Ping %s wrote nothing", when)
		}
	}
	ping("before the answer")
	for _, c := range chunks {
		if err := st.Chunk(c); err != nil {
			t.Fatal(err)
		}
		ping("amid the answer")
	}
	if u := st.Usage(); u == nil || u.PromptTokens != 10 || u.CompletionTokens != 2 {
		t.Errorf("Usage %+v, want the service's 10 and 2", u)
	}
	if err := st.End(nil); err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	if err := st.End(errors.New("late")); err != nil && !errors.Is(err, tr.ErrEnded) {
		t.Errorf("a second End: %v", err)
	}
	if err := st.Chunk(Text("late")); !errors.Is(err, tr.ErrEnded) {
		t.Errorf("Chunk after End: %v, want tr.ErrEnded", err)
	}
	_ = st.Ping()
	if buf.Len() != n {
		t.Errorf("written after the end: %q", buf.Bytes()[n:])
	}
	pinged := s.c.Client.Stream(t, buf.Bytes())
	if err := same(pinged, plain); err != nil {
		t.Errorf("with pings: %v\n%s", err, buf.Bytes())
	}
	if err := same(plain, Answer{Text: "a", Stop: "stop", Usage: &Usage{Input: 10, Output: 2}}); err != nil {
		t.Error(err)
	}

	gone := s.exchange(t, Conversation{Stream: true, User: "go"}).Stream(failingWriter{})
	err := gone.Chunk(Text("a"))
	if err == nil {
		err = gone.End(nil)
	}
	if err == nil {
		t.Error("a client gone: no error from the stream")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// errors: the service's failures and gw serve's own refusals are the
// protocol's error answers, with the status and retry its client needs.
func (s *suite) errors(t *testing.T) {
	for _, c := range errorCases() {
		t.Run(c.name, func(t *testing.T) {
			a := s.exchange(t, Conversation{Stream: true, User: "go"}).Error(c.err)
			s.checkError(t, a, c.errorCase)
		})
	}
	for _, c := range refusalCases() {
		t.Run("refusal "+c.code, func(t *testing.T) {
			s.checkError(t, s.c.Protocol.Refusal(c.status, c.code, c.message), c.errorCase)
		})
	}
}

func (s *suite) checkError(t *testing.T, a tr.Answer, c errorCase) {
	t.Helper()
	if !strings.HasPrefix(a.Header.Get("Content-Type"), "application/json") || a.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", a.Header)
	}
	f := s.c.Client.Error(t, a)
	if !retries(f, c) || f.Overflow != c.overflow || !strings.HasPrefix(f.Message, c.message) ||
		!strings.Contains(f.Message, c.says) || c.status != 0 && f.Status != c.status || c.not != 0 && f.Status == c.not || f.Status < 400 {
		t.Errorf("%+v (%d %s)\nwant retry %q, overflow %v, status %d (not %d), message %q…%q", f, a.Status, a.Body, c.retry, c.overflow, c.status, c.not, c.message, c.says)
	}
}

func retries(f Failure, c errorCase) bool {
	return c.retry == "" || f.Retry == (c.retry == yes)
}
