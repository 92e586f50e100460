package chat

import json "github.com/go-json-experiment/json/v1"

// Request is a chat-completions request.
type Request struct {
	Model               string         `json:"model"`
	Messages            []Message      `json:"messages"`
	Stream              bool           `json:"stream,omitempty"`
	StreamOptions       *StreamOptions `json:"stream_options,omitempty"`
	MaxTokens           *int           `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int           `json:"max_completion_tokens,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	TopP                *float64       `json:"top_p,omitempty"`
	Stop                []string       `json:"stop,omitempty"`
	Tools               []Tool         `json:"tools,omitempty"`
	ToolChoice          any            `json:"tool_choice,omitempty"` // "auto" | "none" | "required" | ToolChoiceFunction
	ParallelToolCalls   *bool          `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	// Verbosity asks for shorter or longer answers (low, medium, high;
	// OpenAI's field, which a service that refuses it is sent without).
	Verbosity      string          `json:"verbosity,omitempty"`
	User           string          `json:"user,omitempty"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	// PromptCacheKey groups requests that share a prefix, for the
	// service's prompt cache (OpenAI's field; gateways pass it on).
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

// CacheControl marks a prompt-cache breakpoint on a content part or a tool:
// the prompt up to and including it may be cached. Anthropic's shape, which
// gateways selling its models over chat completions (OpenRouter, LiteLLM)
// accept there.
type CacheControl struct {
	Type string `json:"type"`          // ephemeral
	TTL  string `json:"ttl,omitempty"` // 5m | 1h; empty is the service's default
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
	// ReasoningDetails and ThinkingBlocks give an earlier answer's
	// reasoning back in the dialect it came in (see ReasoningDetail and
	// ThinkingBlock); at most one of the three reasoning fields is set.
	ReasoningDetails []ReasoningDetail `json:"reasoning_details,omitempty"`
	ThinkingBlocks   []ThinkingBlock   `json:"thinking_blocks,omitempty"`
}

// Part is one part of a multi-part user message.
type Part struct {
	Type     string    `json:"type"` // text | image_url | file
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
	File     *File     `json:"file,omitempty"`
	// CacheControl is a cache breakpoint after this part.
	CacheControl *CacheControl `json:"cache_control,omitempty"`
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
	// CacheControl is a cache breakpoint after this tool's definition.
	CacheControl *CacheControl `json:"cache_control,omitempty"`
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
	// CacheControl is a cache breakpoint after this call, in a request's
	// history (LiteLLM reads it there).
	CacheControl *CacheControl `json:"cache_control,omitempty"`
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

// Usage is the token count of a request. PromptTokens includes the cached
// tokens and those written to the cache.
type Usage struct {
	PromptTokens        int                  `json:"prompt_tokens"`
	CompletionTokens    int                  `json:"completion_tokens"`
	TotalTokens         int                  `json:"total_tokens"`
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
	CompletionDetails   *CompletionDetails   `json:"completion_tokens_details,omitempty"`
	// LiteLLM's names for the cache counts, next to prompt_tokens_details.
	CacheReadInputTokens     *int `json:"cache_read_input_tokens,omitempty"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens,omitempty"`
}

// PromptTokensDetails counts cached prompt tokens: read from the cache, and
// written to it (OpenRouter's cache_write_tokens, LiteLLM's
// cache_creation_tokens).
type PromptTokensDetails struct {
	CachedTokens        int `json:"cached_tokens"`
	CacheWriteTokens    int `json:"cache_write_tokens,omitempty"`
	CacheCreationTokens int `json:"cache_creation_tokens,omitempty"`
}

// CacheRead is the number of prompt tokens read from the service's cache,
// however the service named it; never more than the prompt.
func (u *Usage) CacheRead() int {
	if u == nil {
		return 0
	}
	n := 0
	switch {
	case u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0:
		n = u.PromptTokensDetails.CachedTokens
	case u.CacheReadInputTokens != nil:
		n = *u.CacheReadInputTokens
	}
	return max(0, min(n, u.PromptTokens))
}

// CacheWrite is the number of prompt tokens written to the service's cache,
// where the service reports it; never more than the prompt's uncached part.
func (u *Usage) CacheWrite() int {
	if u == nil {
		return 0
	}
	n := 0
	d := u.PromptTokensDetails
	switch {
	case d != nil && d.CacheWriteTokens > 0:
		n = d.CacheWriteTokens
	case d != nil && d.CacheCreationTokens > 0:
		n = d.CacheCreationTokens
	case u.CacheCreationInputTokens != nil:
		n = *u.CacheCreationInputTokens
	}
	return max(0, min(n, u.PromptTokens-u.CacheRead()))
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
	Role             string            `json:"role"`
	Content          *string           `json:"content"`
	Refusal          *string           `json:"refusal,omitempty"`
	ToolCalls        []ToolCall        `json:"tool_calls,omitempty"`
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	Reasoning        string            `json:"reasoning,omitempty"`
	ReasoningDetails []ReasoningDetail `json:"reasoning_details,omitempty"`
	ThinkingBlocks   []ThinkingBlock   `json:"thinking_blocks,omitempty"`
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
	// A piece of structured reasoning, in OpenRouter's or LiteLLM's
	// dialect; services that send these send the same text in
	// reasoning_content or reasoning as well.
	ReasoningDetails []ReasoningDetail `json:"reasoning_details,omitempty"`
	ThinkingBlocks   []ThinkingBlock   `json:"thinking_blocks,omitempty"`
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

// ReasoningIn is the delta's reasoning read in the one dialect it came in,
// the one place the translators decide it: OpenRouter's reasoning_details
// (with signatures), else LiteLLM's thinking_blocks, else plain text
// (reasoning_content or reasoning). A service that sends a structured
// dialect repeats its text as plain text, which is then not read; at most
// one of the three results is non-empty.
func (d Delta) ReasoningIn() (details []ReasoningDetail, blocks []ThinkingBlock, plain string) {
	switch {
	case len(d.ReasoningDetails) > 0:
		return d.ReasoningDetails, nil, ""
	case len(d.ThinkingBlocks) > 0:
		return nil, d.ThinkingBlocks, ""
	}
	return nil, nil, d.ReasoningText()
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

// ChunkOf is a whole answer as the one chunk that would stream it, with
// its reasoning in every dialect and its tool calls' thought signatures:
// for a translator that streams an answer the service gave whole.
func ChunkOf(r *Response) *Chunk {
	if r == nil || len(r.Choices) == 0 {
		return &Chunk{}
	}
	c := r.Choices[0]
	m := c.Message
	d := Delta{Content: m.Content, Refusal: m.Refusal, ReasoningDetails: m.ReasoningDetails, ThinkingBlocks: m.ThinkingBlocks}
	if s := m.ReasoningText(); s != "" {
		d.ReasoningContent = &s
	}
	for i, tc := range m.ToolCalls {
		td := ToolCallDelta{Index: i, ID: tc.ID, Type: "function", ExtraContent: tc.ExtraContent}
		td.Function.Name, td.Function.Arguments = tc.Function.Name, tc.Function.Arguments
		d.ToolCalls = append(d.ToolCalls, td)
	}
	finish := c.FinishReason
	return &Chunk{ID: r.ID, Usage: r.Usage,
		Choices: []ChunkChoice{{Delta: d, FinishReason: &finish, StopReason: c.StopReason}}}
}
