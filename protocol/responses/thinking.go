package responses

import (
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
)

// Thinking across turns. The service's reasoning, in whichever dialect it
// sends it (see protocol/chat), becomes one reasoning item per answer:
//
//   - content: the reasoning text as reasoning_text, as the service wrote it;
//   - summary: a summary_text part, the service's summary when it sends one
//     (OpenRouter's reasoning.summary), else the same text, so that clients
//     that show summaries only (Codex by default, the Vercel AI SDK) show it;
//   - encrypted_content, when the request's include asks for
//     reasoning.encrypted_content and the service signed or encrypted its
//     reasoning: the whole structured reasoning sealed with its dialect
//     (chat.Seal: "gwor1." and OpenRouter's reasoning_details, or "gwlt1."
//     and LiteLLM's thinking_blocks, as JSON in base64url). Nothing is
//     invented: reasoning the service did not sign has none.
//
// On the next turn a reasoning item in input goes back on the assistant
// message that follows it: its encrypted_content as the reasoning_details or
// thinking_blocks it was sealed from, or else its text as
// reasoning_content. Gemini's thought signature on a tool call travels in
// the call_id (chat.ToolCallID) and goes back as the call's extra_content;
// when a stream sends it after the call's name, the call_id is already out
// and the signature is dropped.

// encryptedInclude is the include entry that asks for encrypted_content.
const encryptedInclude = "reasoning.encrypted_content"

// wantsEncrypted reports whether the request's include asks for the
// reasoning's encrypted_content.
func wantsEncrypted(include []string) bool {
	return slices.Contains(include, encryptedInclude)
}

// reasoningOf is the reasoning item of an answer's whole reasoning, read
// as a stream's (chat.Assembler); false when there is none.
func (m Meta) reasoningOf(id string, msg chat.ResponseMsg) (reasoningItem, bool) {
	var text, summary strings.Builder
	a := chat.Assembler{Keep: m.encrypted, On: func(p chat.Piece) {
		switch {
		case p.Kind == chat.PieceReasoning && p.Segment.Dialect == chat.DialectSummary:
			summary.WriteString(p.Text)
		case p.Kind == chat.PieceReasoning:
			text.WriteString(p.Text)
		}
	}}
	d := chat.Delta{ReasoningDetails: msg.ReasoningDetails, ThinkingBlocks: msg.ThinkingBlocks}
	if s := msg.ReasoningText(); s != "" {
		d.ReasoningContent = &s
	}
	a.Chunk(&chat.Chunk{Choices: []chat.ChunkChoice{{Delta: d}}})
	a.End()
	raw, sum := text.String(), summary.String()
	it := reasoningItem{Type: "reasoning", ID: id, Summary: []any{}, Content: []textPart{}}
	if raw != "" {
		it.Content = append(it.Content, textPart{Type: "reasoning_text", Text: raw})
	}
	if sum == "" {
		sum = raw
	}
	if sum != "" {
		it.Summary = append(it.Summary, textPart{Type: "summary_text", Text: sum})
	}
	if a.Reasoning.Signed() {
		s := sealReasoning(&a.Reasoning)
		it.EncryptedContent = &s
	}
	return it, raw != "" || sum != "" || it.EncryptedContent != nil
}

func sealReasoning(c *chat.ReasoningCollector) string {
	if len(c.Details) > 0 {
		return chat.Seal(chat.DialectOpenRouter, c.Details)
	}
	return chat.Seal(chat.DialectLiteLLM, c.Blocks)
}

// reasoningBack reads a reasoning item of the input into the reasoning of
// the assistant message that follows it.
func (t *translator) reasoningBack(param string, raw json.RawMessage) {
	var it struct {
		Content          []textPart `json:"content"`
		Summary          []textPart `json:"summary"`
		EncryptedContent *string    `json:"encrypted_content"`
	}
	if json.Unmarshal(raw, &it) != nil {
		t.meta.Dropped = append(t.meta.Dropped, param+" (a reasoning item gw serve cannot read)")
		return
	}
	r := &chat.Message{}
	if it.EncryptedContent != nil && *it.EncryptedContent != "" {
		var details []chat.ReasoningDetail
		var blocks []chat.ThinkingBlock
		switch {
		case !chat.IsSealed(*it.EncryptedContent):
			t.meta.Dropped = append(t.meta.Dropped, param+".encrypted_content (not from gw serve)")
		case strings.HasPrefix(*it.EncryptedContent, "gw"+chat.DialectOpenRouter):
			if _, err := chat.Unseal(*it.EncryptedContent, &details); err != nil || len(details) == 0 {
				t.meta.Dropped = append(t.meta.Dropped, param+".encrypted_content (damaged)")
			}
			r.ReasoningDetails = details
		default:
			if _, err := chat.Unseal(*it.EncryptedContent, &blocks); err != nil || len(blocks) == 0 {
				t.meta.Dropped = append(t.meta.Dropped, param+".encrypted_content (damaged)")
			}
			r.ThinkingBlocks = blocks
		}
	}
	if !r.HasReasoning() {
		var texts []string
		for _, c := range it.Content {
			if c.Text != "" {
				texts = append(texts, c.Text)
			}
		}
		if len(texts) == 0 {
			for _, s := range it.Summary {
				if s.Text != "" {
					texts = append(texts, s.Text)
				}
			}
		}
		r.ReasoningContent = strings.Join(texts, "\n\n")
	}
	if !r.HasReasoning() {
		return
	}
	if t.reasoning == nil {
		t.reasoning = r
		return
	}
	t.reasoning.AddReasoning(r)
}

// takeReasoning attaches the reasoning read so far to msg, the assistant
// message it belongs to.
func (t *translator) takeReasoning(msg *chat.Message) {
	if t.reasoning == nil {
		return
	}
	msg.AddReasoning(t.reasoning)
	t.reasoning = nil
	msg.SettleReasoning()
}
