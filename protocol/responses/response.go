package responses

import (
	"errors"
	"fmt"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
)

// responseObject is the Responses API's response object.
type responseObject struct {
	ID                 string          `json:"id"`
	Object             string          `json:"object"`
	CreatedAt          int64           `json:"created_at"`
	Status             string          `json:"status"` // in_progress | completed | incomplete | failed
	Error              *responseError  `json:"error"`
	IncompleteDetails  *incomplete     `json:"incomplete_details"`
	Instructions       json.RawMessage `json:"instructions"`
	MaxOutputTokens    *int            `json:"max_output_tokens"`
	Model              string          `json:"model"`
	Output             []any           `json:"output"`
	ParallelToolCalls  bool            `json:"parallel_tool_calls"`
	PreviousResponseID *string         `json:"previous_response_id"`
	Reasoning          json.RawMessage `json:"reasoning"`
	Store              bool            `json:"store"`
	Temperature        *float64        `json:"temperature"`
	Text               json.RawMessage `json:"text"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	Tools              json.RawMessage `json:"tools"`
	TopP               *float64        `json:"top_p"`
	Usage              *usage          `json:"usage"`
	Metadata           json.RawMessage `json:"metadata"`
}

type responseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incomplete struct {
	Reason string `json:"reason"` // max_output_tokens | content_filter
}

type usage struct {
	InputTokens         int           `json:"input_tokens"`
	InputTokensDetails  inputDetails  `json:"input_tokens_details"`
	OutputTokens        int           `json:"output_tokens"`
	OutputTokensDetails outputDetails `json:"output_tokens_details"`
	TotalTokens         int           `json:"total_tokens"`
}

type inputDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type outputDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// usageOf counts as the Responses API does: input_tokens is the whole
// prompt, of which cached_tokens were read from the service's cache (under
// whichever name the service reported them).
func usageOf(u *chat.Usage) *usage {
	if u == nil {
		return nil
	}
	out := &usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if out.TotalTokens == 0 {
		out.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	out.InputTokensDetails.CachedTokens = u.CacheRead()
	if d := u.CompletionDetails; d != nil {
		out.OutputTokensDetails.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

// estimatedUsage is the usage of a response still in progress: the
// prompt's estimate, nothing generated yet.
func estimatedUsage(inputTokens int) *usage {
	return &usage{InputTokens: inputTokens, TotalTokens: inputTokens}
}

// Output items.

type messageItem struct {
	Type    string `json:"type"` // message
	ID      string `json:"id"`
	Status  string `json:"status"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type outputText struct {
	Type        string `json:"type"` // output_text
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type refusalPart struct {
	Type    string `json:"type"` // refusal
	Refusal string `json:"refusal"`
}

type reasoningItem struct {
	Type             string     `json:"type"` // reasoning
	ID               string     `json:"id"`
	Status           string     `json:"status,omitempty"`
	Summary          []any      `json:"summary"`
	Content          []textPart `json:"content"`
	EncryptedContent *string    `json:"encrypted_content"`
}

// textPart is a part of text: a reasoning item's reasoning_text or
// summary_text, an input message's input_text.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type functionCallItem struct {
	Type      string `json:"type"` // function_call
	ID        string `json:"id"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

type customCallItem struct {
	Type      string `json:"type"` // custom_tool_call
	ID        string `json:"id"`
	Status    string `json:"status"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Input     string `json:"input"`
}

type localShellItem struct {
	Type   string      `json:"type"` // local_shell_call
	ID     string      `json:"id"`
	Status string      `json:"status"`
	CallID string      `json:"call_id"`
	Action shellAction `json:"action"`
}

// itemID is the id of output item i: prefix, the response's id, i.
func (m Meta) itemID(prefix string, i int) string {
	return fmt.Sprintf("%s_%s_%d", prefix, strings.TrimPrefix(m.ResponseID, "resp_"), i)
}

// newResponse is the response object with the request's settings.
func (m Meta) newResponse(status string) *responseObject {
	r := &responseObject{
		ID: m.ResponseID, Object: "response", CreatedAt: m.Created, Status: status, Model: m.Model,
		Output: []any{}, ParallelToolCalls: m.echo.ParallelToolCalls, Store: m.echo.Store,
		Instructions: orJSON(m.echo.Instructions, `null`), MaxOutputTokens: m.echo.MaxOutputTokens,
		Reasoning: orJSON(m.echo.Reasoning, `{"effort":null,"summary":null}`), Temperature: m.echo.Temperature,
		Text: orJSON(m.echo.Text, `{"format":{"type":"text"}}`), ToolChoice: orJSON(m.echo.ToolChoice, `"auto"`),
		Tools: orJSON(m.echo.Tools, `[]`), TopP: m.echo.TopP, Metadata: orJSON(m.echo.Metadata, `{}`),
	}
	if m.echo.Previous != "" {
		r.PreviousResponseID = &m.echo.Previous
	}
	return r
}

func orJSON(raw json.RawMessage, def string) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(def)
	}
	return raw
}

// finish sets the status a chat finish_reason means.
func (r *responseObject) finish(reason string) {
	switch reason {
	case "length":
		r.Status, r.IncompleteDetails = "incomplete", &incomplete{Reason: "max_output_tokens"}
	case "content_filter":
		r.Status, r.IncompleteDetails = "incomplete", &incomplete{Reason: "content_filter"}
	default:
		r.Status = "completed"
	}
}

// toolCallItem is the output item of a chat tool call: the kind of item the
// client's tool expects back.
func (m Meta) toolCallItem(i int, callID, name, args, status string) any {
	ref, ok := m.tools[name]
	if !ok {
		ref = toolRef{kind: "function", name: name}
	}
	switch ref.kind {
	case "custom":
		return customCallItem{Type: "custom_tool_call", ID: m.itemID("ctc", i), Status: status, CallID: callID,
			Name: ref.name, Namespace: ref.namespace, Input: customInput(args)}
	case "local_shell":
		if a, ok := shellActionOf(args); ok {
			return localShellItem{Type: "local_shell_call", ID: m.itemID("lsh", i), Status: status, CallID: callID, Action: a}
		}
		// Arguments that are no command go back as a function call, which
		// the client answers with an error the model can read.
	}
	if args == "" {
		args = "{}"
	}
	return functionCallItem{Type: "function_call", ID: m.itemID("fc", i), Status: status, Arguments: args,
		CallID: callID, Name: ref.name, Namespace: ref.namespace}
}

// customInput is a freeform tool's text from the function arguments
// {"input": "..."}; arguments in another shape are taken as the text itself.
func customInput(args string) string {
	var a struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Input != nil {
		return *a.Input
	}
	var s string
	if json.Unmarshal([]byte(args), &s) == nil {
		return s
	}
	return args
}

func shellActionOf(args string) (shellAction, bool) {
	var a struct {
		Command          []string          `json:"command"`
		WorkingDirectory string            `json:"working_directory"`
		Workdir          string            `json:"workdir"`
		TimeoutMS        *int64            `json:"timeout_ms"`
		Env              map[string]string `json:"env"`
	}
	if json.Unmarshal([]byte(args), &a) != nil || len(a.Command) == 0 {
		return shellAction{}, false
	}
	if a.WorkingDirectory == "" {
		a.WorkingDirectory = a.Workdir
	}
	return shellAction{Type: "exec", Command: a.Command, WorkingDirectory: a.WorkingDirectory, TimeoutMS: a.TimeoutMS, Env: a.Env}, true
}

// ErrNoChoice is returned by FromResponse for a chat answer without a choice.
var ErrNoChoice = errors.New("the service answered without any choice")

// FromResponse translates a non-streamed chat completion into the Responses
// API's response object.
func FromResponse(meta Meta, r *chat.Response) ([]byte, error) {
	if len(r.Choices) == 0 {
		return nil, ErrNoChoice
	}
	c := r.Choices[0]
	resp := meta.newResponse("completed")
	i := 0
	if rs, ok := meta.reasoningOf(meta.itemID("rs", i), c.Message); ok {
		resp.Output = append(resp.Output, rs)
		i++
	}
	var content []any
	if c.Message.Content != nil && *c.Message.Content != "" {
		content = append(content, outputText{Type: "output_text", Text: *c.Message.Content, Annotations: []any{}})
	}
	if c.Message.Refusal != nil && *c.Message.Refusal != "" {
		content = append(content, refusalPart{Type: "refusal", Refusal: *c.Message.Refusal})
	}
	if len(content) > 0 {
		resp.Output = append(resp.Output, messageItem{Type: "message", ID: meta.itemID("msg", i), Status: "completed", Role: "assistant", Content: content})
		i++
	}
	for k, tc := range c.Message.ToolCalls {
		callID := chat.ToolCallID(callIDOf(meta, tc.ID, k), tc.ExtraContent.ThoughtSignature())
		resp.Output = append(resp.Output, meta.toolCallItem(i, callID, tc.Function.Name, tc.Function.Arguments, "completed"))
		i++
	}
	resp.finish(c.FinishReason)
	resp.Usage = usageOf(r.Usage)
	return mustJSON(resp), nil
}

// callIDOf is the call id of a chat tool call, made up when the service
// sent none.
func callIDOf(meta Meta, id string, k int) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("call_%s_%d", strings.TrimPrefix(meta.ResponseID, "resp_"), k)
}
