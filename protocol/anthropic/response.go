package anthropic

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
)

// ErrNoChoices is FromResponse's error for an answer without a choice.
var ErrNoChoices = errors.New("the service's answer has no choices")

// FromResponse translates a non-streamed chat completion into a Messages
// API answer: reasoning as thinking and redacted_thinking blocks
// (thinking.go), then the text, then one tool_use block per tool call.
func FromResponse(meta Meta, r *chat.Response) ([]byte, error) {
	if r == nil || len(r.Choices) == 0 {
		return nil, ErrNoChoices
	}
	c := r.Choices[0]
	m := c.Message
	out := messageOut{ID: messageID(r.ID), Type: "message", Role: "assistant", Model: meta.Model, Content: []blockOut{}}
	out.Content = append(out.Content, reasoningBlocks(m)...)
	text := ""
	if m.Content != nil {
		text = *m.Content
	}
	if m.Refusal != nil && *m.Refusal != "" {
		text = joinNonEmpty(text, *m.Refusal, "\n")
	}
	if text != "" {
		out.Content = append(out.Content, blockOut{Type: "text", Text: &text})
	}
	for i, tc := range m.ToolCalls {
		out.Content = append(out.Content, blockOut{
			Type:  "tool_use",
			ID:    toolUseIDOut(tc.ID, i, tc.ExtraContent),
			Name:  meta.toolName(tc.Function.Name),
			Input: toolInput(tc.Function.Arguments),
		})
	}
	reason, seq := stopReason(meta, c.FinishReason, c.StopReason, len(m.ToolCalls) > 0)
	out.StopReason, out.StopSequence = &reason, seq
	out.Usage = usageOf(r.Usage, meta.InputTokens)
	return chat.Encode(out)
}

// messageID is the answer's id: the service's, marked as a message id.
func messageID(chatID string) string {
	if chatID == "" {
		return "msg_gw"
	}
	return "msg_" + strings.TrimPrefix(chatID, "chatcmpl-")
}

// toolUseID keeps the service's call id (Claude Code sends it back as
// tool_use_id, and the service expects it so); some services send none.
func toolUseID(id string, n int) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("toolu_gw_%d", n)
}

// toolInput is a tool call's arguments as the tool_use input object. Empty
// arguments are {}; arguments that are not a JSON object are kept as a
// string under "arguments", so that Claude Code's validation tells the
// model what it sent instead of the call vanishing.
func toolInput(args string) json.RawMessage {
	s := strings.TrimSpace(args)
	if s == "" {
		return json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) == nil && obj != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(s)) == nil {
			return buf.Bytes()
		}
	}
	b, _ := json.Marshal(map[string]string{"arguments": args})
	return b
}

// stopReason maps the finish reason: stop → end_turn (stop_sequence when
// the service names which of the request's sequences matched), length →
// max_tokens, tool calls → tool_use, a content filter → refusal.
func stopReason(meta Meta, finish string, matched any, tools bool) (string, *string) {
	switch finish {
	case "length":
		return "max_tokens", nil
	case "content_filter":
		return "refusal", nil
	case "tool_calls", "function_call":
		return "tool_use", nil
	}
	if tools {
		// Some services say "stop" after tool calls.
		return "tool_use", nil
	}
	if s, ok := matched.(string); ok && slices.Contains(meta.StopSequences, s) {
		return "stop_sequence", &s
	}
	return "end_turn", nil
}

// usageOf counts as Anthropic does: input_tokens is the prompt without
// what was read from the service's cache (cache_read_input_tokens) and
// written to it (cache_creation_input_tokens, where the service reports
// it). A service that counted nothing leaves the estimate as input_tokens:
// a client's context meter then shows the prompt, not an empty context.
func usageOf(u *chat.Usage, estimate int) usageOut {
	if u == nil {
		return usageOut{InputTokens: estimate}
	}
	read, write := u.CacheRead(), u.CacheWrite()
	return usageOut{
		InputTokens:              u.PromptTokens - read - write,
		CacheCreationInputTokens: write,
		CacheReadInputTokens:     read,
		OutputTokens:             u.CompletionTokens,
	}
}
