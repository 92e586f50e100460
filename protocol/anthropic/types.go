package anthropic

import json "github.com/go-json-experiment/json/v1"

// The Messages API's request, as far as gw reads it. Fields gw does not
// know (context_management, citations, betas yet to come) are left to
// encoding/json, which ignores them.
type request struct {
	Model         string          `json:"model"`
	Messages      []message       `json:"messages"`
	System        json.RawMessage `json:"system"` // a string or text blocks
	MaxTokens     *int            `json:"max_tokens"`
	StopSequences []string        `json:"stop_sequences"`
	Stream        bool            `json:"stream"`
	Temperature   *float64        `json:"temperature"`
	TopP          *float64        `json:"top_p"`
	TopK          *int            `json:"top_k"`
	Tools         []tool          `json:"tools"`
	ToolChoice    *toolChoice     `json:"tool_choice"`
	Thinking      *thinking       `json:"thinking"`
	OutputConfig  *struct {
		Effort string        `json:"effort"`
		Format *outputFormat `json:"format"`
	} `json:"output_config"`
	// OutputFormat is structured output's first shape (the beta
	// structured-outputs-2025-11-13), now output_config.format.
	OutputFormat *outputFormat `json:"output_format"`
	Metadata     *struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
	// CacheControl asks for automatic caching: a breakpoint on the last
	// block.
	CacheControl *cacheControl `json:"cache_control"`
}

// cacheControl is a prompt-cache breakpoint on a block or a tool.
type cacheControl struct {
	Type string `json:"type"` // ephemeral
	TTL  string `json:"ttl"`  // 5m | 1h
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or blocks
}

// block is any content block; Type says which fields apply.
type block struct {
	Type string `json:"type"`
	// text
	Text string `json:"text"`
	// image, document
	Source *source `json:"source"`
	Title  string  `json:"title"`
	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// tool_result
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // a string or blocks
	IsError   bool            `json:"is_error"`
	// tool_reference (in a tool_result: a deferred tool is now loaded)
	ToolName string `json:"tool_name"`
	// any block
	CacheControl *cacheControl `json:"cache_control"`
	// thinking, redacted_thinking
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	Data      string `json:"data"`
}

type source struct {
	Type      string `json:"type"` // base64 | url | text | file | content
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

// outputFormat asks for an answer in JSON matching a schema.
type outputFormat struct {
	Type   string          `json:"type"` // json_schema
	Schema json.RawMessage `json:"schema"`
}

type tool struct {
	Type         string          `json:"type"` // "" or custom; anything else is one of Anthropic's own tools
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	Strict       *bool           `json:"strict"` // the call's input must match input_schema
	DeferLoading bool            `json:"defer_loading"`
	CacheControl *cacheControl   `json:"cache_control"`
}

type toolChoice struct {
	Type                   string `json:"type"` // auto | any | tool | none
	Name                   string `json:"name"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
}

type thinking struct {
	Type         string `json:"type"` // enabled | adaptive | disabled
	BudgetTokens int    `json:"budget_tokens"`
}

// The answer. Struct field order is the order Anthropic writes them.

type messageOut struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"` // message
	Role         string     `json:"role"` // assistant
	Model        string     `json:"model"`
	Content      []blockOut `json:"content"`
	StopReason   *string    `json:"stop_reason"`
	StopSequence *string    `json:"stop_sequence"`
	Usage        usageOut   `json:"usage"`
}

// blockOut is a content block of the answer. Text and Thinking are
// pointers so that a block carries exactly its own fields, empty or not.
type blockOut struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      *string         `json:"data,omitempty"` // redacted_thinking
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type usageOut struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type errorOut struct {
	Type  string      `json:"type"` // error
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// The stream's events, as structs so that "type" comes first, as
// Anthropic writes it.

type evType struct {
	Type string `json:"type"`
}

type evMessageStart struct {
	Type    string     `json:"type"`
	Message messageOut `json:"message"`
}

type evBlockStart struct {
	Type         string   `json:"type"`
	Index        int      `json:"index"`
	ContentBlock blockOut `json:"content_block"`
}

type evBlockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type evBlockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type evMessageDelta struct {
	Type  string `json:"type"`
	Delta struct {
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
	Usage usageOut `json:"usage"`
}

type textDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type signatureDelta struct {
	Type      string `json:"type"` // signature_delta
	Signature string `json:"signature"`
}

type jsonDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}
