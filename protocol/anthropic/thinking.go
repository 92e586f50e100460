package anthropic

import (
	"github.com/modelgateway/gw/protocol/chat"
)

// Thinking across turns. The service's reasoning reaches the client as
// thinking and redacted_thinking blocks, and comes back on the next turn in
// the dialect it came in (see protocol/chat), attached to the same
// assistant message:
//
//   - Plain reasoning (reasoning_content or reasoning) becomes a thinking
//     block with an empty signature: the service gave none, and gw makes
//     none up. The field stays, empty, because Anthropic's SDKs and
//     schema-checking clients expect every thinking block to have one (a
//     streamed block starts with "" on Anthropic's API too). Sent back, a
//     thinking block with an empty signature becomes the assistant
//     message's reasoning_content.
//   - OpenRouter's reasoning_details: a reasoning.text entry becomes a
//     thinking block whose signature, when the service signed it, is the
//     seal "gwor1." of {"s": signature, "f": format, "i": id}; a
//     reasoning.encrypted entry a redacted_thinking block whose data is the
//     seal of {"d": data, "f": format, "i": id}; a reasoning.summary entry
//     an unsigned thinking block. They go back as reasoning_details.
//   - LiteLLM's thinking_blocks: a signed thinking block's signature is the
//     seal "gwlt1." of {"s": signature}, a redacted_thinking block's data
//     the seal of {"d": data}. They go back as thinking_blocks.
//   - Gemini's thought signature on a tool call travels in the tool_use id
//     (chat.ToolCallID) and goes back as the call's extra_content.
//
// A thinking block whose signature gw did not seal (another API's, or a
// damaged one) goes back as unsigned text, a redacted_thinking block gw
// did not seal is left out; both are named in Meta.Dropped.

// sealedSig is what a sealed signature or redacted block carries.
type sealedSig struct {
	Signature string `json:"s,omitempty"`
	Data      string `json:"d,omitempty"`
	Format    string `json:"f,omitempty"`
	ID        string `json:"i,omitempty"`
}

// reasoningBlocks are the thinking and redacted_thinking blocks of an
// answer's reasoning, read as a stream's (chat.Assembler): its structured
// reasoning when it sent some, else its plain text.
func reasoningBlocks(m chat.ResponseMsg) []blockOut {
	var out []blockOut
	a := chat.Assembler{On: func(p chat.Piece) {
		switch p.Kind {
		case chat.PieceSegment:
			out = append(out, thinkingBlock("", ""))
		case chat.PieceReasoning:
			*out[len(out)-1].Thinking += p.Text
		case chat.PieceSegmentEnd:
			*out[len(out)-1].Signature = sealSig(p.Segment)
		case chat.PieceSealed:
			out = append(out, redactedBlock(sealData(p.Segment)))
		}
	}}
	a.Chunk(&chat.Chunk{Choices: []chat.ChunkChoice{{Delta: chat.Delta{ReasoningDetails: m.ReasoningDetails, ThinkingBlocks: m.ThinkingBlocks}}}})
	a.End()
	if s := m.ReasoningText(); len(out) == 0 && s != "" {
		out = append(out, thinkingBlock(s, ""))
	}
	return out
}

func thinkingBlock(text, sig string) blockOut {
	return blockOut{Type: "thinking", Thinking: &text, Signature: &sig}
}

func redactedBlock(data string) blockOut {
	return blockOut{Type: "redacted_thinking", Data: &data}
}

// sealSig is the signature the client gets for a thinking block of
// reasoning seg: "" when the service signed none.
func sealSig(seg chat.Segment) string {
	if seg.Signature == "" {
		return ""
	}
	return chat.Seal(seg.Dialect, sealedSig{Signature: seg.Signature, Format: seg.Format, ID: seg.ID})
}

// sealData is the data the client gets for a redacted_thinking block.
func sealData(seg chat.Segment) string {
	return chat.Seal(seg.Dialect, sealedSig{Data: seg.Data, Format: seg.Format, ID: seg.ID})
}

// thinkingBack adds a thinking or redacted_thinking block of an assistant
// turn to the chat message, in the dialect its seal names.
func (t *translator) thinkingBack(b block, field string, msg *chat.Message) {
	if b.Type == "redacted_thinking" {
		var s sealedSig
		d, err := chat.Unseal(b.Data, &s)
		switch {
		case err != nil || s.Data == "":
			t.meta.Dropped = append(t.meta.Dropped, field+" (redacted_thinking not from gw serve)")
		case d == chat.DialectOpenRouter:
			msg.ReasoningDetails = append(msg.ReasoningDetails, chat.ReasoningDetail{
				Type: chat.DetailEncrypted, Data: s.Data, Format: s.Format, ID: s.ID})
		case d == chat.DialectLiteLLM:
			msg.ThinkingBlocks = append(msg.ThinkingBlocks, chat.ThinkingBlock{Type: "redacted_thinking", Data: s.Data})
		}
		return
	}
	if b.Signature != "" {
		var s sealedSig
		d, err := chat.Unseal(b.Signature, &s)
		switch {
		case err != nil || s.Signature == "":
			t.meta.Dropped = append(t.meta.Dropped, field+".signature (not from gw serve)")
		case d == chat.DialectOpenRouter:
			msg.ReasoningDetails = append(msg.ReasoningDetails, chat.ReasoningDetail{
				Type: chat.DetailText, Text: b.Thinking, Signature: s.Signature, Format: s.Format, ID: s.ID})
			return
		case d == chat.DialectLiteLLM:
			msg.ThinkingBlocks = append(msg.ThinkingBlocks, chat.ThinkingBlock{Type: "thinking", Thinking: b.Thinking, Signature: s.Signature})
			return
		}
	}
	if b.Thinking != "" {
		msg.AddReasoning(&chat.Message{ReasoningContent: b.Thinking})
	}
}

// toolUseIDOut is the tool_use id of a service's tool call: its id (or one
// made up when it sent none) with its thought signature.
func toolUseIDOut(id string, n int, extra *chat.ExtraContent) string {
	return chat.ToolCallID(toolUseID(id, n), extra.ThoughtSignature())
}
