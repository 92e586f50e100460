package standin

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
)

// The reasoning dialects: how services carry a model's reasoning over chat
// completions, and the signatures a client must send back on the next turn.
const (
	ReasoningNone       = "none"              // no reasoning
	ReasoningContent    = "reasoning_content" // delta.reasoning_content / message.reasoning_content (DeepSeek, vLLM, most gateways)
	ReasoningField      = "reasoning"         // delta.reasoning / message.reasoning
	ReasoningOpenRouter = "openrouter"        // reasoning plus reasoning_details: reasoning.text with signature, reasoning.encrypted with data
	ReasoningLiteLLM    = "litellm"           // reasoning_content plus thinking_blocks: thinking with signature, redacted_thinking with data
	ReasoningGemini     = "gemini"            // extra_content.google.thought_signature on the first tool call (or the message); no text
	// ReasoningMixed is every signed dialect in one answer, as a client may
	// meet them behind one gateway: OpenRouter's reasoning_details, then
	// LiteLLM's thinking_blocks (each its own text, signed), and Gemini's
	// thought signature on the first tool call (or the message); with
	// "+redacted" each of the first two adds its encrypted block. What comes
	// back is checked as each dialect checks it.
	ReasoningMixed = "mixed"
)

// ReasoningDialects lists the accepted reasoning dialects. Each may be
// followed by "+redacted" (openrouter, litellm, mixed): the answer also
// carries an encrypted reasoning block, as Anthropic's redacted_thinking.
func ReasoningDialects() []string {
	return []string{ReasoningNone, ReasoningContent, ReasoningField, ReasoningOpenRouter, ReasoningLiteLLM, ReasoningGemini, ReasoningMixed}
}

// ReasoningHeader, on a chat request, picks the reasoning dialect of that
// request's answer, for tests: e.g. "openrouter+redacted".
const ReasoningHeader = "X-Standin-Reasoning"

// reasoningMode is a parsed dialect.
type reasoningMode struct {
	dialect  string
	redacted bool
}

// CheckReasoning tells whether s is a reasoning dialect Options accept.
func CheckReasoning(s string) error {
	_, err := parseReasoning(s)
	return err
}

// parseReasoning reads "dialect[+redacted]".
func parseReasoning(s string) (reasoningMode, error) {
	d, extra, _ := strings.Cut(strings.TrimSpace(s), "+")
	m := reasoningMode{dialect: d, redacted: extra == "redacted"}
	if !slices.Contains(ReasoningDialects(), d) || extra != "" && extra != "redacted" {
		return m, fmt.Errorf("reasoning dialect %q: use one of %s, optionally followed by +redacted", s, strings.Join(ReasoningDialects(), ", "))
	}
	return m, nil
}

// reasoningFor picks the dialect of an answer: the request's header, then
// Options.ReasoningByModel, then Options.Reasoning for the models that
// reason by default (ids ending in -thinking, and vendor-b's Gemini-class
// models, which always sign their tool calls), else none. vendor-b models
// default to the gemini dialect, the -thinking ones to reasoning_content.
func (s *Server) reasoningFor(model, header string) (reasoningMode, error) {
	if header != "" {
		return parseReasoning(header)
	}
	if d, ok := s.opts.ReasoningByModel[model]; ok {
		return parseReasoning(d)
	}
	reasons := strings.HasSuffix(model, "-thinking") || strings.HasPrefix(model, "vendor-b/")
	switch {
	case !reasons:
		return reasoningMode{dialect: ReasoningNone}, nil
	case s.opts.Reasoning != "":
		return parseReasoning(s.opts.Reasoning)
	case strings.HasPrefix(model, "vendor-b/"):
		return reasoningMode{dialect: ReasoningGemini}, nil
	default:
		return reasoningMode{dialect: ReasoningContent}, nil
	}
}

// The stand-in's signatures: derived from what they sign, so that the
// stand-in can check one sent back without remembering it.

func reasoningSignature(text string) string {
	h := sha256.Sum256([]byte("standin reasoning\x00" + text))
	return "standin-sig-" + base64.RawURLEncoding.EncodeToString(h[:24])
}

func redactedData(id string) string {
	h := sha256.Sum256([]byte("standin redacted\x00" + id))
	return "standin-redacted-" + base64.RawURLEncoding.EncodeToString(h[:24])
}

func thoughtSignature(callID string) string {
	return base64.StdEncoding.EncodeToString([]byte("standin-thought:" + callID))
}

// skipThoughtSignature is the value Gemini documents for histories it did
// not make; it accepts it in place of a signature.
const skipThoughtSignature = "skip_thought_signature_validator"

// Received is a reasoning signature or encrypted block found in a request's
// assistant messages.
type Received struct {
	Where string // e.g. "messages[2].reasoning_details[0].signature"
	Value string
}

// requestReasoning is what the stand-in reads of reasoning sent back.
type requestReasoning struct {
	ReasoningDetails []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		Signature string `json:"signature"`
		Data      string `json:"data"`
	} `json:"reasoning_details"`
	ThinkingBlocks []struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
		Data      string `json:"data"`
	} `json:"thinking_blocks"`
}

// extraContent is Gemini's extension of a tool call or message.
type extraContent struct {
	Google *struct {
		ThoughtSignature string `json:"thought_signature,omitempty"`
	} `json:"google,omitempty"`
}

func (e *extraContent) signature() string {
	if e == nil || e.Google == nil {
		return ""
	}
	return e.Google.ThoughtSignature
}

// checkReasoning lists the signatures and encrypted blocks in the request's
// assistant messages, and refuses what the model behind mode would: a
// signature that does not sign its thinking text, encrypted data the
// stand-in did not make, and (gemini) a function call of the current turn
// sent back without its thought_signature.
func checkReasoning(req chatRequest, mode reasoningMode) ([]Received, error) {
	var got []Received
	for i, m := range req.Messages {
		if m.Role != "assistant" {
			continue
		}
		for j, d := range m.ReasoningDetails {
			where := fmt.Sprintf("messages[%d].reasoning_details[%d]", i, j)
			switch {
			case d.Signature != "":
				got = append(got, Received{where + ".signature", d.Signature})
				if d.Signature != reasoningSignature(d.Text) {
					return got, fmt.Errorf("%s.signature: invalid signature for the reasoning text it is sent with; send the reasoning back exactly as it was received", where)
				}
			case d.Data != "":
				got = append(got, Received{where + ".data", d.Data})
				if !strings.HasPrefix(d.Data, "standin-redacted-") {
					return got, fmt.Errorf("%s.data: not encrypted reasoning of this service; send it back exactly as it was received", where)
				}
			}
		}
		for j, b := range m.ThinkingBlocks {
			where := fmt.Sprintf("messages[%d].thinking_blocks[%d]", i, j)
			switch b.Type {
			case "thinking":
				got = append(got, Received{where + ".signature", b.Signature})
				if b.Signature != reasoningSignature(b.Thinking) {
					return got, fmt.Errorf("%s.signature: invalid signature in thinking block; send the block back exactly as it was received", where)
				}
			case "redacted_thinking":
				got = append(got, Received{where + ".data", b.Data})
				if !strings.HasPrefix(b.Data, "standin-redacted-") {
					return got, fmt.Errorf("%s.data: invalid redacted_thinking data; send the block back exactly as it was received", where)
				}
			}
		}
		for j, c := range m.ToolCalls {
			if sig := c.ExtraContent.signature(); sig != "" {
				got = append(got, Received{fmt.Sprintf("messages[%d].tool_calls[%d].extra_content.google.thought_signature", i, j), sig})
			}
		}
		if sig := m.ExtraContent.signature(); sig != "" {
			got = append(got, Received{fmt.Sprintf("messages[%d].extra_content.google.thought_signature", i), sig})
		}
	}
	if mode.dialect != ReasoningGemini && mode.dialect != ReasoningMixed {
		return got, nil
	}
	// Gemini checks the current turn: everything after the last user message.
	turn := 0
	for i, m := range req.Messages {
		if m.Role == "user" {
			turn = i + 1
		}
	}
	for i := turn; i < len(req.Messages); i++ {
		m := req.Messages[i]
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		c := m.ToolCalls[0]
		sig := c.ExtraContent.signature()
		if sig == skipThoughtSignature || sig == thoughtSignature(c.ID) {
			continue
		}
		return got, fmt.Errorf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", c.Function.Name, i+1)
	}
	return got, nil
}

// reasoningDetail is one element of OpenRouter's reasoning_details.
type reasoningDetail struct {
	Type      string  `json:"type"`
	Text      *string `json:"text,omitempty"`
	Signature string  `json:"signature,omitempty"`
	Data      string  `json:"data,omitempty"`
	ID        string  `json:"id,omitempty"`
	Format    string  `json:"format"`
	Index     int     `json:"index"`
}

// thinkingBlock is one element of LiteLLM's thinking_blocks.
type thinkingBlock struct {
	Type      string  `json:"type"`
	Thinking  *string `json:"thinking,omitempty"`
	Signature string  `json:"signature,omitempty"`
	Data      string  `json:"data,omitempty"`
}

const reasoningFormat = "anthropic-claude-v1"

func googleExtra(sig string) *extraContent {
	e := &extraContent{Google: &struct {
		ThoughtSignature string `json:"thought_signature,omitempty"`
	}{sig}}
	return e
}

// reasoningPart is the reasoning of one dialect in an answer: its text in
// deltas, the signature of that text (openrouter, litellm) and an encrypted
// block.
type reasoningPart struct {
	dialect   string
	deltas    []string
	signature string
	redacted  string
}

func (p reasoningPart) text() string { return strings.Join(p.deltas, "") }

// wholeReasoning adds the answer's reasoning to a non-streamed message.
func (a answer) wholeReasoning(msg map[string]any) {
	for _, p := range a.reasoning {
		text := p.text()
		switch p.dialect {
		case ReasoningContent:
			msg["reasoning_content"] = text
		case ReasoningField:
			msg["reasoning"] = text
		case ReasoningOpenRouter:
			msg["reasoning"] = text
			details := []reasoningDetail{{Type: "reasoning.text", Text: &text, Signature: p.signature, Format: reasoningFormat}}
			if p.redacted != "" {
				details = append(details, reasoningDetail{Type: "reasoning.encrypted", Data: p.redacted, Format: reasoningFormat, Index: 1})
			}
			msg["reasoning_details"] = details
		case ReasoningLiteLLM:
			msg["reasoning_content"] = text
			blocks := []thinkingBlock{{Type: "thinking", Thinking: &text, Signature: p.signature}}
			if p.redacted != "" {
				blocks = append(blocks, thinkingBlock{Type: "redacted_thinking", Data: p.redacted})
			}
			msg["thinking_blocks"] = blocks
		}
	}
	if a.thought != "" && len(a.tools) == 0 {
		msg["extra_content"] = googleExtra(a.thought)
	}
}

// reasoningDeltas are the stream's reasoning events before the content.
func (a answer) reasoningDeltas() []delta {
	var out []delta
	empty := ""
	for _, p := range a.reasoning {
		switch p.dialect {
		case ReasoningContent:
			for _, r := range p.deltas {
				out = append(out, delta{ReasoningContent: &r})
			}
		case ReasoningField:
			for _, r := range p.deltas {
				out = append(out, delta{Reasoning: &r})
			}
		case ReasoningOpenRouter:
			for _, r := range p.deltas {
				out = append(out, delta{Reasoning: &r, ReasoningDetails: []reasoningDetail{{Type: "reasoning.text", Text: &r, Format: reasoningFormat}}})
			}
			out = append(out, delta{ReasoningDetails: []reasoningDetail{{Type: "reasoning.text", Text: &empty, Signature: p.signature, Format: reasoningFormat}}})
			if p.redacted != "" {
				out = append(out, delta{ReasoningDetails: []reasoningDetail{{Type: "reasoning.encrypted", Data: p.redacted, Format: reasoningFormat, Index: 1}}})
			}
		case ReasoningLiteLLM:
			for _, r := range p.deltas {
				out = append(out, delta{ReasoningContent: &r, ThinkingBlocks: []thinkingBlock{{Type: "thinking", Thinking: &r}}})
			}
			out = append(out, delta{ThinkingBlocks: []thinkingBlock{{Type: "thinking", Thinking: &empty, Signature: p.signature}}})
			if p.redacted != "" {
				out = append(out, delta{ThinkingBlocks: []thinkingBlock{{Type: "redacted_thinking", Data: p.redacted}}})
			}
		}
	}
	return out
}

// signed lists the signatures and encrypted blocks of the answer, each with
// the field of the answer's message that carries it.
func (a answer) signed() []Received {
	var out []Received
	for _, p := range a.reasoning {
		field := map[string]string{ReasoningOpenRouter: "reasoning_details", ReasoningLiteLLM: "thinking_blocks"}[p.dialect]
		if p.signature != "" {
			out = append(out, Received{field + "[0].signature", p.signature})
		}
		if p.redacted != "" {
			out = append(out, Received{field + "[1].data", p.redacted})
		}
	}
	if a.thought != "" {
		where := "extra_content.google.thought_signature"
		if len(a.tools) > 0 {
			where = "tool_calls[0]." + where
		}
		out = append(out, Received{where, a.thought})
	}
	return out
}
