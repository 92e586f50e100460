package translatetest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"syscall"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/protocol/chat"
)

// Text is a chunk of answer text.
func Text(s string) *chat.Chunk {
	return &chat.Chunk{ID: "chatcmpl-1", Choices: []chat.ChunkChoice{{Delta: chat.Delta{Content: &s}}}}
}

// Tool is a piece of a tool call: the first piece of a call carries its id
// and name, later ones more of its arguments.
func Tool(index int, id, name, args string) *chat.Chunk {
	d := chat.ToolCallDelta{Index: index, ID: id}
	if id != "" {
		d.Type = "function"
	}
	d.Function.Name, d.Function.Arguments = name, args
	return &chat.Chunk{Choices: []chat.ChunkChoice{{Delta: chat.Delta{ToolCalls: []chat.ToolCallDelta{d}}}}}
}

// Finish is the chunk with the finish reason.
func Finish(reason string) *chat.Chunk {
	return &chat.Chunk{Choices: []chat.ChunkChoice{{FinishReason: &reason}}}
}

// UsageChunk is the usage-only chunk at a stream's end.
func UsageChunk(prompt, completion, cached int) *chat.Chunk {
	u := &chat.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	if cached > 0 {
		u.PromptTokensDetails = &chat.PromptTokensDetails{CachedTokens: cached}
	}
	return &chat.Chunk{Choices: []chat.ChunkChoice{}, Usage: u}
}

// reasoned is c with n of its completion tokens counted as reasoning.
func reasoned(c *chat.Chunk, n int) *chat.Chunk {
	c.Usage.CompletionDetails = &chat.CompletionDetails{ReasoningTokens: n}
	return c
}

// deltaChunk is a chunk of the delta's JSON, decoded as gw serve decodes
// the service's events.
func deltaChunk(delta string) *chat.Chunk {
	var ev chat.Event
	if err := chat.ParseEvent([]byte(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":`+delta+`,"finish_reason":null}]}`), &ev); err != nil {
		panic(delta + ": " + err.Error())
	}
	return &ev.Chunk
}

type streamCase struct {
	name   string
	chunks []*chat.Chunk
	want   Answer
}

func streamCases() []streamCase {
	empty, later := "", " greets."
	two := &chat.Chunk{Choices: []chat.ChunkChoice{{Delta: chat.Delta{ToolCalls: []chat.ToolCallDelta{
		Tool(1, "call_b", "Read", `{"file_path":"b"}`).Choices[0].Delta.ToolCalls[0],
		Tool(2, "call_c", "Bash", `{"command":"ls"}`).Choices[0].Delta.ToolCalls[0],
	}}}}}
	return []streamCase{{
		name: "text",
		chunks: []*chat.Chunk{{ID: "chatcmpl-abc", Choices: []chat.ChunkChoice{{Delta: chat.Delta{Role: "assistant", Content: &empty}}}},
			Text("Hello "), Text("from "), Text("gw."), Finish("stop"), reasoned(UsageChunk(120, 7, 100), 2)},
		want: Answer{Text: "Hello from gw.", Stop: "stop", Usage: &Usage{Input: 120, Output: 7, Cached: 100}},
	}, {
		name: "reasoning then text",
		chunks: []*chat.Chunk{deltaChunk(`{"reasoning_content":"The user"}`), {Choices: []chat.ChunkChoice{{Delta: chat.Delta{Reasoning: &later}}}},
			Text("Hi."), Finish("stop")},
		want: Answer{Reasoning: "The user greets.", Text: "Hi.", Stop: "stop"},
	}, {
		name: "parallel calls",
		chunks: []*chat.Chunk{Text("Reading both."), Tool(0, "call_a", "Read", `{"file_pa`), Tool(0, "", "", `th":"a"}`), two,
			Finish("tool_calls"), UsageChunk(10, 5, 0)},
		want: Answer{Text: "Reading both.", Stop: "tool_calls", Usage: &Usage{Input: 10, Output: 5}, Calls: []Call{
			{ID: "call_a", Name: "Read", Args: `{"file_path":"a"}`}, {ID: "call_b", Name: "Read", Args: `{"file_path":"b"}`},
			{ID: "call_c", Name: "Bash", Args: `{"command":"ls"}`}}},
	}, {
		name:   "interleaved calls",
		chunks: []*chat.Chunk{Tool(0, "call_a", "Read", `{"x":`), Tool(1, "call_b", "Read", `{}`), Tool(0, "", "", `1}`), Finish("tool_calls")},
		want:   Answer{Stop: "tool_calls", Calls: []Call{{ID: "call_a", Name: "Read", Args: `{"x":1}`}, {ID: "call_b", Name: "Read", Args: `{}`}}},
	}, {
		// Some gateways number every call 0 and tell them apart by id, and
		// finish with stop: the client must still run them.
		name:   "every call numbered 0",
		chunks: []*chat.Chunk{Tool(0, "call_a", "Read", `{"file_path":"a"}`), Tool(0, "call_b", "Read", `{"file_path":"b"}`), Finish("stop")},
		want: Answer{Stop: "tool_calls", Calls: []Call{{ID: "call_a", Name: "Read", Args: `{"file_path":"a"}`},
			{ID: "call_b", Name: "Read", Args: `{"file_path":"b"}`}}},
	}, {
		name:   "name repeated in later deltas",
		chunks: []*chat.Chunk{Tool(0, "call_1", "Bash", `{"command":`), Tool(0, "", "Bash", `"ls"}`), Finish("tool_calls")},
		want:   Answer{Stop: "tool_calls", Calls: []Call{{ID: "call_1", Name: "Bash", Args: `{"command":"ls"}`}}},
	}, {
		// The first name wins: a gateway that sends another later does not
		// rename the call.
		name:   "name changed in later deltas",
		chunks: []*chat.Chunk{Tool(0, "call_1", "Bash", `{"command":`), Tool(0, "", "Read", `"ls"}`), Finish("tool_calls")},
		want:   Answer{Stop: "tool_calls", Calls: []Call{{ID: "call_1", Name: "Bash", Args: `{"command":"ls"}`}}},
	}, {
		// A call after the finish reason is another call, even under the
		// index of one before it, and each gets an id of its own.
		name: "calls without ids numbered 0 around a finish reason",
		chunks: []*chat.Chunk{Tool(0, "", "Read", `{"file_path":"a"}`), Finish("tool_calls"),
			Tool(0, "", "Bash", `{"command":"ls"}`), Finish("tool_calls")},
		want: Answer{Stop: "tool_calls", Calls: []Call{{Name: "Read", Args: `{"file_path":"a"}`}, {Name: "Bash", Args: `{"command":"ls"}`}}},
	}, {
		name:   "call without arguments or id",
		chunks: []*chat.Chunk{Tool(0, "", "ListAgents", ""), Finish("tool_calls")},
		want:   Answer{Stop: "tool_calls", Calls: []Call{{Name: "ListAgents", Args: `{}`}}},
	}, {
		// Reasoning a service sends malformed shows nothing; a thought
		// signature too long to carry is dropped, the call's id kept.
		name: "malformed reasoning",
		chunks: []*chat.Chunk{
			deltaChunk(`{"reasoning_details":[{"type":"reasoning.text","text":""},{"type":"reasoning.unknown","text":"x"},{"type":"reasoning.encrypted","data":""}]}`),
			deltaChunk(`{"thinking_blocks":[{"type":"thinking"},{"type":"redacted_thinking"},{"type":"other","thinking":"x"}]}`),
			deltaChunk(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"Read","arguments":"{}"},"extra_content":{"google":{"thought_signature":""}}}]}`),
			deltaChunk(`{"tool_calls":[{"index":1,"id":"d","type":"function","function":{"name":"Read","arguments":"{}"},"extra_content":{"google":{"thought_signature":"` +
				strings.Repeat("A", chat.MaxThoughtSignature+1) + `"}}}]}`),
			Finish("tool_calls")},
		want: Answer{Stop: "tool_calls", Calls: []Call{{ID: "c", Name: "Read", Args: `{}`}, {ID: "d", Name: "Read", Args: `{}`}}},
	}, {
		name:   "length",
		chunks: []*chat.Chunk{Text("x"), Finish("length")},
		want:   Answer{Text: "x", Stop: "length"},
	}, {
		name: "nothing",
		want: Answer{Stop: "stop"},
	}, {
		name:   "no finish reason",
		chunks: []*chat.Chunk{Text("x")},
		want:   Answer{Text: "x", Stop: "stop"},
	}}
}

// dialectCase is reasoning in one dialect, streamed and whole, and what
// must reach the service again on the next turn.
type usageCase struct {
	name, usage string // the service's usage as JSON
	want        Usage
}

func usageCases() []usageCase {
	const pc = `"prompt_tokens":1200,"completion_tokens":30,"total_tokens":1230`
	return []usageCase{
		{"OpenAI cached_tokens", `{` + pc + `,"prompt_tokens_details":{"cached_tokens":1000}}`, Usage{1200, 30, 1000}},
		{"OpenRouter cache_write_tokens", `{` + pc + `,"prompt_tokens_details":{"cached_tokens":100,"cache_write_tokens":900,"audio_tokens":0},"cost":0.01}`, Usage{1200, 30, 100}},
		{"LiteLLM cache_read_input_tokens", `{` + pc + `,"cache_creation_input_tokens":150,"cache_read_input_tokens":1000}`, Usage{1200, 30, 1000}},
		{"LiteLLM cache_creation_tokens", `{` + pc + `,"prompt_tokens_details":{"cached_tokens":1000,"cache_creation_tokens":150}}`, Usage{1200, 30, 1000}},
		{"no cache", `{` + pc + `}`, Usage{1200, 30, 0}},
		{"counts beyond the prompt", `{"prompt_tokens":100,"completion_tokens":3,"total_tokens":103,"prompt_tokens_details":{"cached_tokens":90,"cache_write_tokens":50}}`, Usage{100, 3, 90}},
	}
}

type dialectCase struct {
	name    string
	dialect Dialect
	deltas  []string // the stream's deltas
	message string   // the same answer's message, whole
	want    Answer
	toolID  string // the service's id of the call, which the tool result must name
	// back checks the assistant message sent back, for a protocol that
	// carries the dialect.
	back func(m *chat.Message) error
}

func (c dialectCase) finish() string {
	if c.toolID != "" {
		return "tool_calls"
	}
	return "stop"
}

func (c dialectCase) checkBack(s *suite, m *chat.Message) error {
	if c.toolID != "" && (len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != c.toolID) {
		return fmt.Errorf("the call is not given back with the service's id %s", c.toolID)
	}
	if !s.carries(c.dialect) {
		if len(m.ReasoningDetails)+len(m.ThinkingBlocks) > 0 {
			return errors.New("reasoning given back in a dialect it did not come in")
		}
		return nil
	}
	return c.back(m)
}

// ReasoningCase is one of the suite's answers with reasoning in a dialect,
// for a protocol's golden tests of them.
type ReasoningCase struct {
	Name   string         // a file name: openrouter-signed-text
	Deltas []string       // the stream's deltas, each a chunk's delta as JSON
	Finish string         // the finish reason
	Whole  *chat.Response // the same answer, not streamed
}

// Chunks are the stream's chunks: the deltas decoded as gw serve decodes
// the service's events, then the finish reason.
func (c ReasoningCase) Chunks() []*chat.Chunk {
	var out []*chat.Chunk
	for _, d := range c.Deltas {
		out = append(out, deltaChunk(d))
	}
	return append(out, Finish(c.Finish))
}

// ReasoningCases are the suite's answers with reasoning in each dialect.
func ReasoningCases() []ReasoningCase {
	var cases []ReasoningCase
	for _, c := range dialectCases() {
		cases = append(cases, c.exported())
	}
	return cases
}

func (c dialectCase) exported() ReasoningCase {
	var r chat.Response
	if err := json.Unmarshal([]byte(`{"id":"chatcmpl-1","choices":[{"index":0,"message":`+c.message+`,"finish_reason":"`+c.finish()+`"}]}`), &r); err != nil {
		panic(err)
	}
	return ReasoningCase{Name: strings.ReplaceAll(c.name, " ", "-"), Deltas: c.deltas, Finish: c.finish(), Whole: &r}
}

func wantDetails(m *chat.Message, want ...chat.ReasoningDetail) error {
	var got []chat.ReasoningDetail
	for _, d := range m.ReasoningDetails {
		d.Index = nil
		if d.Signature != "" || d.Data != "" {
			got = append(got, d)
		}
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("signed reasoning_details %s, want %s", jsonOf(got), jsonOf(want))
	}
	return nil
}

func dialectCases() []dialectCase {
	read := `{"index":0,"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}`
	return []dialectCase{{
		name: "plain reasoning_content", dialect: Plain,
		deltas:  []string{`{"role":"assistant","reasoning_content":"Let me "}`, `{"reasoning_content":"think."}`, `{"content":"Hi"}`},
		message: `{"role":"assistant","content":"Hi","reasoning_content":"Let me think."}`,
		want:    Answer{Reasoning: "Let me think.", Text: "Hi", Stop: "stop"},
		back: func(m *chat.Message) error {
			if m.ReasoningContent != "Let me think." {
				return fmt.Errorf("reasoning_content %q", m.ReasoningContent)
			}
			return nil
		},
	}, {
		name: "plain reasoning with a tool call", dialect: Plain,
		deltas:  []string{`{"reasoning":"Read it."}`, `{"tool_calls":[` + read + `]}`},
		message: `{"role":"assistant","content":null,"reasoning":"Read it.","tool_calls":[` + read + `]}`,
		want:    Answer{Reasoning: "Read it.", Stop: "tool_calls", Calls: []Call{{ID: "call_1", Name: "Read", Args: `{"file_path":"a"}`}}},
		toolID:  "call_1",
		back: func(m *chat.Message) error {
			if m.ReasoningContent != "Read it." {
				return fmt.Errorf("reasoning_content %q", m.ReasoningContent)
			}
			return nil
		},
	}, {
		name: "openrouter signed text", dialect: OpenRouter,
		deltas: []string{
			`{"reasoning":"Plan ","reasoning_details":[{"type":"reasoning.text","text":"Plan ","signature":null,"format":"anthropic-claude-v1","index":0}]}`,
			`{"reasoning":"it.","reasoning_details":[{"type":"reasoning.text","text":"it.","format":"anthropic-claude-v1","index":0}]}`,
			`{"reasoning":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"EqoBCkgIARAB+/sig==","format":"anthropic-claude-v1","index":0}]}`,
			`{"tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"Read","arguments":"{}"}}]}`},
		message: `{"role":"assistant","content":null,"reasoning":"Plan it.","reasoning_details":[{"type":"reasoning.text","text":"Plan it.","signature":"EqoBCkgIARAB+/sig==","format":"anthropic-claude-v1","index":0}],
		"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"Read","arguments":"{}"}}]}`,
		want:   Answer{Reasoning: "Plan it.", Stop: "tool_calls", Calls: []Call{{ID: "toolu_01", Name: "Read", Args: `{}`}}},
		toolID: "toolu_01",
		back: func(m *chat.Message) error {
			return wantDetails(m, chat.ReasoningDetail{Type: "reasoning.text", Text: "Plan it.", Signature: "EqoBCkgIARAB+/sig==", Format: "anthropic-claude-v1"})
		},
	}, {
		name: "openrouter encrypted and summary", dialect: OpenRouter,
		deltas: []string{
			`{"reasoning":"Checked.","reasoning_details":[{"type":"reasoning.summary","summary":"Checked.","format":"openai-responses-v1","index":0}]}`,
			`{"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAABo_enc","id":"rs_9","format":"openai-responses-v1","index":1}]}`,
			`{"content":"Yes."}`},
		message: `{"role":"assistant","content":"Yes.","reasoning":"Checked.","reasoning_details":[{"type":"reasoning.summary","summary":"Checked.","format":"openai-responses-v1","index":0},
		{"type":"reasoning.encrypted","data":"gAAAAABo_enc","id":"rs_9","format":"openai-responses-v1","index":1}]}`,
		want: Answer{Reasoning: "Checked.", Text: "Yes.", Stop: "stop"},
		back: func(m *chat.Message) error {
			return wantDetails(m, chat.ReasoningDetail{Type: "reasoning.encrypted", Data: "gAAAAABo_enc", ID: "rs_9", Format: "openai-responses-v1"})
		},
	}, {
		name: "litellm thinking blocks", dialect: LiteLLM,
		deltas: []string{
			`{"reasoning_content":"Hmm ","thinking_blocks":[{"type":"thinking","thinking":"Hmm ","signature":null}]}`,
			`{"reasoning_content":"ok","thinking_blocks":[{"type":"thinking","thinking":"ok"}]}`,
			`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"EuYBCkQYAiJA/sig"}]}`,
			`{"thinking_blocks":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}]}`,
			`{"content":"A"}`},
		message: `{"role":"assistant","content":"A","reasoning_content":"Hmm ok","thinking_blocks":[{"type":"thinking","thinking":"Hmm ok","signature":"EuYBCkQYAiJA/sig"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}]}`,
		want:    Answer{Reasoning: "Hmm ok", Text: "A", Stop: "stop"},
		back: func(m *chat.Message) error {
			want := []chat.ThinkingBlock{{Type: "thinking", Thinking: "Hmm ok", Signature: "EuYBCkQYAiJA/sig"}, {Type: "redacted_thinking", Data: "EmwKAhgBEgy3va"}}
			if !reflect.DeepEqual(m.ThinkingBlocks, want) {
				return fmt.Errorf("thinking_blocks %s, want %s", jsonOf(m.ThinkingBlocks), jsonOf(want))
			}
			return nil
		},
	}, {
		// The text streamed as plain reasoning, only the signature in a
		// structured piece: one block, signed, its text given back with it.
		name: "litellm signature after plain text", dialect: LiteLLM,
		deltas:  []string{`{"reasoning_content":"I plan."}`, `{"thinking_blocks":[{"type":"thinking","thinking":"","signature":"EuYB"}]}`, `{"content":"ok"}`},
		message: `{"role":"assistant","content":"ok","reasoning_content":"I plan.","thinking_blocks":[{"type":"thinking","thinking":"I plan.","signature":"EuYB"}]}`,
		want:    Answer{Reasoning: "I plan.", Text: "ok", Stop: "stop"},
		back: func(m *chat.Message) error {
			if want := []chat.ThinkingBlock{{Type: "thinking", Thinking: "I plan.", Signature: "EuYB"}}; !reflect.DeepEqual(m.ThinkingBlocks, want) {
				return fmt.Errorf("thinking_blocks %s, want %s", jsonOf(m.ThinkingBlocks), jsonOf(want))
			}
			return nil
		},
	}, {
		name: "gemini thought signature", dialect: ThoughtSignature,
		deltas: []string{`{"role":"assistant","tool_calls":[{"index":0,"id":"function-call-4711","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"},` +
			`"extra_content":{"google":{"thought_signature":"CsgBAdHtim9+/Zx=="}}}]}`},
		message: `{"role":"assistant","content":null,"tool_calls":[{"id":"function-call-4711","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"},` +
			`"extra_content":{"google":{"thought_signature":"CsgBAdHtim9+/Zx=="}}}]}`,
		want:   Answer{Stop: "tool_calls", Calls: []Call{{Name: "Read", Args: `{"file_path":"a"}`}}},
		toolID: "function-call-4711",
		back: func(m *chat.Message) error {
			if sig := m.ToolCalls[0].ExtraContent.ThoughtSignature(); sig != "CsgBAdHtim9+/Zx==" {
				return fmt.Errorf("thought signature %q", sig)
			}
			return nil
		},
	}}
}

type errorCase struct {
	retry         string // yes: the client retries by itself; no: it must not; "": either
	overflow      bool
	status, not   int    // the status wanted, and one it must not be; 0 none
	message, says string // the message's beginning, and words in it
}

const (
	yes = "yes"
	no  = "no"
)

type brokenCase struct {
	name string
	err  error
	errorCase
}

// overflow is a context overflow as the service says it.
func overflow(status int) *api.Error {
	return api.ClassifyResponse(status, nil, []byte(`{"error":{"message":"This model's maximum context length is 200000 tokens. However, your messages resulted in 201234 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`), model)
}

func brokenCases() []brokenCase {
	return []brokenCase{
		{"cut", io.ErrUnexpectedEOF, errorCase{retry: yes, message: "unable to connect to API: "}},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, errorCase{retry: yes, message: "unable to connect to API: "}},
		{"rate limited", &api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "the service is rate limiting this key (429)", Fix: remedy.Remedy{Do: remedy.Wait}},
			errorCase{status: 429, message: "the service is rate limiting this key (429)"}},
		{"unknown model", &api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled, Cause: "the service does not know the model id", Fix: remedy.Remedy{Do: remedy.UseID, Value: "a/b"}},
			errorCase{retry: no, message: "model not found / invalid model: ", says: "a/b"}},
		{"context overflow", overflow(200), errorCase{retry: no, overflow: true, says: "201234"}},
		{"rate limited said with 200", rateLimited200(), errorCase{status: 429, says: "Rate limit exceeded"}},
	}
}

// rateLimited200 is a rate limit a gateway reports with 200 or inside its
// stream, with no status of its own: the client must still read a 429 (not
// a 502, which some clients retry at once, again and again).
func rateLimited200() *api.Error {
	return api.ClassifyResponse(200, nil, []byte(`{"error":{"message":"Rate limit exceeded","type":"rate_limit_error"}}`), model)
}

type namedError struct {
	name string
	err  *api.Error
	errorCase
}

func errorCases() []namedError {
	return []namedError{
		{"key rejected", &api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey, Status: 401, Cause: "the service refused the key as invalid (401)", Fix: remedy.Remedy{Do: remedy.NewKey}},
			errorCase{retry: no, message: "API key invalid or unauthorized: "}},
		{"unknown model", &api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled, Status: 404, Cause: "the service does not know the model id", Fix: remedy.Remedy{Do: remedy.UseID, Value: "a/b"}},
			errorCase{retry: no, not: 404, message: "model not found / invalid model: ", says: "a/b"}},
		{"rate limited", &api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "the service is rate limiting this key (429)", Fix: remedy.Remedy{Do: remedy.Wait, Value: "30s"}},
			errorCase{status: 429, message: "the service is rate limiting this key (429)", says: "30s"}},
		{"server error", &api.Error{Kind: api.KindServerError, Status: 500, Cause: "the service failed with 500"},
			errorCase{retry: yes, message: "the service failed with 500"}},
		{"overloaded", api.ClassifyResponse(503, nil, []byte(`{"error":{"message":"The engine is currently overloaded, please try again later.","type":"server_error","code":"overloaded"}}`), model),
			errorCase{retry: yes}},
		{"context overflow", overflow(400), errorCase{retry: no, overflow: true, status: 400, says: "201234"}},
		{"context overflow said with 200", overflow(200), errorCase{retry: no, overflow: true, status: 400, says: "201234"}},
		{"rate limited said with 200", rateLimited200(), errorCase{status: 429, says: "Rate limit exceeded"}},
	}
}

type refusal struct {
	status        int
	code, message string
	errorCase
}

func refusalCases() []refusal {
	token := "API key invalid or unauthorized: the request does not carry gw serve's local token"
	large := "the request body is larger than 64 MiB"
	return []refusal{
		{401, "local_token_invalid", token, errorCase{retry: no, message: token}},
		{413, "request_too_large", large, errorCase{retry: no, message: large}},
	}
}

// lastAssistant is the last assistant message of req, and the tool
// message after it (nil when none).
func lastAssistant(req *chat.Request) (asst, tool *chat.Message) {
	for i := range req.Messages {
		switch req.Messages[i].Role {
		case "assistant":
			asst, tool = &req.Messages[i], nil
		case "tool":
			if tool == nil && asst != nil {
				tool = &req.Messages[i]
			}
		}
	}
	return asst, tool
}

// textOf is a message content's text, string or parts.
func textOf(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []chat.Part:
		var b strings.Builder
		for _, p := range c {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return jsonOf(content)
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// compact is a JSON text without insignificant space.
func compact(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	return jsonOf(v)
}
