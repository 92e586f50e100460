// Package chat holds the OpenAI chat-completions types that gw serve's
// protocol translators (protocol/anthropic, protocol/responses) produce and
// consume: the request sent to the service, its answer, and its stream.
//
// They are small types of gw's own rather than openai-go's: the translators
// need exact control over which fields are sent (the service rejects nothing
// it does not know, but agents' histories carry fields it must not see), the
// stream parser must accept what OpenAI-compatible gateways actually send
// (reasoning_content, reasoning, usage-only chunks, missing indices), and a
// few structs keep encoding cheap on the hot path.
package chat

import json "github.com/go-json-experiment/json/v1"

// Request is a chat-completions request.
type Request struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
	MaxTokens           *int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	Stop                []string        `json:"stop,omitempty"`
	Tools               []Tool          `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"` // "auto" | "none" | "required" | ToolChoiceFunction
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	User                string          `json:"user,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
}

// StreamOptions asks for the usage chunk at the end of a stream.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one chat message. Content is a string, or a list of Parts for
// user messages with images; nil for an assistant message with only tool
// calls.
type Message struct {
	Role             string     `json:"role"` // system | user | assistant | tool
	Content          any        `json:"content"`
	Name             string     `json:"name,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
}

// Part is one part of a multi-part user message.
type Part struct {
	Type     string    `json:"type"` // text | image_url | file
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
	File     *File     `json:"file,omitempty"`
}

// File is a file part's content (a PDF), inline as a data: URL.
type File struct {
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data"`
}

// ImageURL is an image part's address: https or a data: URL.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// Tool is a function the model may call.
type Tool struct {
	Type     string   `json:"type"` // function
	Function Function `json:"function"`
}

// Function describes a tool's function.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// ToolChoiceFunction forces one function.
type ToolChoiceFunction struct {
	Type     string `json:"type"` // function
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// ForceFunction is the tool_choice that forces the named function.
func ForceFunction(name string) ToolChoiceFunction {
	var c ToolChoiceFunction
	c.Type = "function"
	c.Function.Name = name
	return c
}

// ToolCall is a call the model made.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // function
	Function FunctionCall `json:"function"`
	// ExtraContent carries Gemini's thought signature of the call, which
	// Gemini 3 wants back with the call on the next turn.
	ExtraContent *ExtraContent `json:"extra_content,omitempty"`
}

// ExtraContent is the vendor data Gemini's OpenAI-compatible API puts on a
// tool call: {"google": {"thought_signature": "..."}}.
type ExtraContent struct {
	Google *GoogleExtra `json:"google,omitempty"`
}

// GoogleExtra is Gemini's part of ExtraContent.
type GoogleExtra struct {
	ThoughtSignature string `json:"thought_signature,omitempty"`
}

// ThoughtSignature is the Gemini thought signature e carries, "" for none.
func (e *ExtraContent) ThoughtSignature() string {
	if e == nil || e.Google == nil {
		return ""
	}
	return e.Google.ThoughtSignature
}

// WithThoughtSignature is the ExtraContent carrying sig; nil for "".
func WithThoughtSignature(sig string) *ExtraContent {
	if sig == "" {
		return nil
	}
	return &ExtraContent{Google: &GoogleExtra{ThoughtSignature: sig}}
}

// FunctionCall is a called function's name and JSON arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is the token count of a request.
type Usage struct {
	PromptTokens        int                  `json:"prompt_tokens"`
	CompletionTokens    int                  `json:"completion_tokens"`
	TotalTokens         int                  `json:"total_tokens"`
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
	CompletionDetails   *CompletionDetails   `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails counts cached prompt tokens.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionDetails counts reasoning tokens.
type CompletionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// Response is a non-streamed chat completion.
type Response struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage,omitempty"`
}

// Choice is one answer of a Response.
type Choice struct {
	Index        int         `json:"index"`
	Message      ResponseMsg `json:"message"`
	FinishReason string      `json:"finish_reason"`
	// StopReason is vLLM's addition: the stop string that ended the answer
	// (a number when a stop token did); nil elsewhere.
	StopReason any `json:"stop_reason,omitempty"`
}

// ResponseMsg is the assistant's message in a Response. Reasoning text comes
// as reasoning_content (most gateways) or reasoning.
type ResponseMsg struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	Refusal          *string    `json:"refusal,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	Reasoning        string     `json:"reasoning,omitempty"`
}

// Chunk is one event of a streamed chat completion: what the translators
// read of it (its object, creation time and model are not).
type Chunk struct {
	ID      string        `json:"id"`
	Choices []ChunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"`
}

// ChunkChoice is a chunk's delta.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
	StopReason   any     `json:"stop_reason,omitempty"` // as in Choice
}

// Delta is what a chunk adds.
type Delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	Refusal          *string         `json:"refusal,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	ToolCalls        []ToolCallDelta `json:"tool_calls,omitempty"`
}

// ReasoningText is the delta's reasoning text, under either name.
func (d Delta) ReasoningText() string {
	if d.ReasoningContent != nil {
		return *d.ReasoningContent
	}
	if d.Reasoning != nil {
		return *d.Reasoning
	}
	return ""
}

// ToolCallDelta is a piece of a tool call: the first piece of a call carries
// its id and name, later pieces more of its arguments. Index tells calls
// apart; some gateways omit it for a single call (then 0).
type ToolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments,omitempty"`
	} `json:"function"`
	ExtraContent *ExtraContent `json:"extra_content,omitempty"`
}

// ReasoningText is the message's reasoning text, under either name.
func (m ResponseMsg) ReasoningText() string {
	if m.ReasoningContent != "" {
		return m.ReasoningContent
	}
	return m.Reasoning
}
