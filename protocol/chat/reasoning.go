package chat

import (
	"encoding/base64"
	"errors"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Services carry a model's reasoning over chat completions in several
// dialects, and some want it back on the next turn exactly as it came:
//
//   - plain text in reasoning_content or reasoning (DeepSeek, vLLM, most
//     gateways). DeepSeek's thinking models refuse a tool-calling assistant
//     message sent back without its reasoning_content.
//   - OpenRouter's reasoning_details: an array of ReasoningDetail, whose
//     reasoning.text entries may carry a signature and whose
//     reasoning.encrypted entries carry opaque data; sent back as the
//     assistant message's reasoning_details.
//   - LiteLLM's thinking_blocks: Anthropic's thinking blocks, with their
//     signature, and redacted_thinking blocks; sent back as the assistant
//     message's thinking_blocks.
//   - Gemini's thought signature on a tool call (ExtraContent), which
//     Gemini 3 wants back on the same call.
//
// The translators give a client the signed parts sealed (Seal): the
// dialect's tag, then the service's own data. The client keeps them opaque
// and sends them back, and Unseal tells the translator which dialect to
// give them back in.

// ReasoningDetail is one entry of OpenRouter's reasoning_details. In a
// stream, the pieces of one entry share its Index; the signature comes with
// the last piece.
type ReasoningDetail struct {
	Type      string `json:"type"` // reasoning.text | reasoning.summary | reasoning.encrypted
	Text      string `json:"text,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Data      string `json:"data,omitempty"`
	Signature string `json:"signature,omitempty"`
	ID        string `json:"id,omitempty"`
	Format    string `json:"format,omitempty"`
	Index     *int   `json:"index,omitempty"`
}

// The types of ReasoningDetail.
const (
	DetailText      = "reasoning.text"
	DetailSummary   = "reasoning.summary"
	DetailEncrypted = "reasoning.encrypted"
)

// MarshalJSON writes the fields the entry's type has, its text even when
// empty, as OpenRouter writes them.
func (d ReasoningDetail) MarshalJSON() ([]byte, error) {
	type plain ReasoningDetail
	v := struct {
		plain
		Text    *string `json:"text,omitempty"`
		Summary *string `json:"summary,omitempty"`
		Data    *string `json:"data,omitempty"`
	}{plain: plain(d)}
	switch d.Type {
	case DetailText:
		v.Text = &d.Text
	case DetailSummary:
		v.Summary = &d.Summary
	case DetailEncrypted:
		v.Data = &d.Data
	default:
		v.Text, v.Summary, v.Data = nonEmpty(d.Text), nonEmpty(d.Summary), nonEmpty(d.Data)
	}
	v.plain.Text, v.plain.Summary, v.plain.Data = "", "", ""
	return jsonv1.Marshal(v)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ThinkingBlock is one entry of LiteLLM's thinking_blocks: a thinking block
// (Thinking, Signature) or a redacted_thinking block (Data). In a stream,
// the signature comes in a piece of its own, after the text.
type ThinkingBlock struct {
	Type      string `json:"type"` // thinking | redacted_thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

// MarshalJSON writes exactly the fields of the block's type, as Anthropic
// (behind LiteLLM) accepts them.
func (b ThinkingBlock) MarshalJSON() ([]byte, error) {
	if b.Type == "redacted_thinking" {
		return jsonv1.Marshal(struct {
			Type string `json:"type"`
			Data string `json:"data"`
		}{b.Type, b.Data})
	}
	return jsonv1.Marshal(struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}{b.Type, b.Thinking, b.Signature})
}

// The dialects a sealed value names.
const (
	DialectOpenRouter = "or" // reasoning_details
	DialectLiteLLM    = "lt" // thinking_blocks
)

// sealPrefix starts every sealed value: "gw", the dialect, the format's
// version, a dot.
const sealPrefix = "gw"

// MaxSealed bounds a sealed value gw reads back: larger ones are refused
// rather than decoded.
const MaxSealed = 4 << 20

// ErrNotSealed is Unseal's error for a value gw did not seal: another
// server's signature, or one a client made up.
var ErrNotSealed = errors.New("it was not made by gw serve (a signature from another API cannot be passed on to the service)")

// ErrDamaged is Unseal's error for a value that starts as gw's do but does
// not decode.
var ErrDamaged = errors.New("it starts as gw serve's signatures do but is damaged; send the block back exactly as gw serve gave it, or leave it out")

// Seal is v, as JSON, sealed for dialect: "gw" + dialect + "1." and the
// JSON in unpadded base64url.
func Seal(dialect string, v any) string {
	b, err := jsonv1.Marshal(v)
	if err != nil {
		return "" // v is one of gw's own types: cannot happen
	}
	return sealPrefix + dialect + "1." + base64.RawURLEncoding.EncodeToString(b)
}

// Unseal reads a value Seal made into v and names its dialect.
func Unseal(s string, v any) (dialect string, err error) {
	d, payload, ok := splitSealed(s)
	if !ok {
		return "", ErrNotSealed
	}
	if len(payload) > MaxSealed {
		return "", ErrDamaged
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || jsonv1.Unmarshal(b, v) != nil {
		return "", ErrDamaged
	}
	return d, nil
}

func splitSealed(s string) (dialect, payload string, ok bool) {
	for _, d := range []string{DialectOpenRouter, DialectLiteLLM} {
		if p, found := strings.CutPrefix(s, sealPrefix+d+"1."); found {
			return d, p, true
		}
	}
	return "", "", false
}

// IsSealed reports whether s looks like a value Seal made.
func IsSealed(s string) bool {
	_, _, ok := splitSealed(s)
	return ok
}

// A tool call's Gemini thought signature travels to the client inside the
// call's id, the one value every client returns untouched (Claude Code's
// tool_use id and tool_result tool_use_id, Codex's call_id): "gwts1_", then
// the service's id, a zero byte and the signature, in unpadded base64url
// (letters, digits, - and _, which tool-use ids allow).

const toolIDPrefix = "gwts1_"

// MaxThoughtSignature bounds the thought signature an id carries: a longer
// one (real ones are a few hundred bytes) is dropped rather than made into
// an id every later request repeats.
const MaxThoughtSignature = 16 << 10

// ToolCallID is the id to give a client for a tool call with id and Gemini
// thought signature sig: id itself when sig is empty or too long.
func ToolCallID(id, sig string) string {
	if sig == "" || len(sig) > MaxThoughtSignature || strings.IndexByte(id, 0) >= 0 {
		return id
	}
	return toolIDPrefix + base64.RawURLEncoding.EncodeToString([]byte(id+"\x00"+sig))
}

// SplitToolCallID reverses ToolCallID: the service's id and the thought
// signature. An id ToolCallID did not make is returned as it is; one that
// starts as its ids do but does not decode is returned as it is with
// ErrDamaged.
func SplitToolCallID(s string) (id, sig string, err error) {
	payload, ok := strings.CutPrefix(s, toolIDPrefix)
	if !ok {
		return s, "", nil
	}
	if len(payload) > 2*MaxThoughtSignature {
		return s, "", ErrDamaged
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return s, "", ErrDamaged
	}
	id, sig, ok = strings.Cut(string(b), "\x00")
	if !ok || sig == "" {
		return s, "", ErrDamaged
	}
	return id, sig, nil
}

// ToolCallBack splits a tool call id a client sent back (ToolCallID) into
// the service's id and the thought signature it carries, as extra_content;
// a damaged one is noted in dropped as field's.
func ToolCallBack(s, field string, dropped *[]string) (string, *ExtraContent) {
	id, sig, err := SplitToolCallID(s)
	if err != nil {
		*dropped = append(*dropped, field+" (damaged thought signature)")
	}
	return id, WithThoughtSignature(sig)
}

// SettleReasoning keeps one dialect on m: unsigned text next to structured
// reasoning is what the service sent twice (a summary, or the plain copy),
// so the structured reasoning alone goes back.
func (m *Message) SettleReasoning() {
	if len(m.ReasoningDetails) > 0 || len(m.ThinkingBlocks) > 0 {
		m.ReasoningContent = ""
	}
}

// HasReasoning reports whether m carries reasoning in any dialect.
func (m *Message) HasReasoning() bool {
	return m.ReasoningContent != "" || len(m.ReasoningDetails) > 0 || len(m.ThinkingBlocks) > 0
}

// AddReasoning adds an earlier answer's reasoning to m, the assistant
// message it belongs to.
func (m *Message) AddReasoning(r *Message) {
	if r == nil {
		return
	}
	if r.ReasoningContent != "" {
		if m.ReasoningContent != "" {
			m.ReasoningContent += "\n\n"
		}
		m.ReasoningContent += r.ReasoningContent
	}
	m.ReasoningDetails = append(m.ReasoningDetails, r.ReasoningDetails...)
	m.ThinkingBlocks = append(m.ThinkingBlocks, r.ThinkingBlocks...)
}

// ReasoningCollector joins the pieces of structured reasoning a stream
// sends into whole entries, in the order they started.
type ReasoningCollector struct {
	Details []ReasoningDetail // OpenRouter's
	Blocks  []ThinkingBlock   // LiteLLM's

	// The last entry's text so far, appended in place: a reasoning
	// streamed token by token is not copied whole for every token.
	text, summary, thinking *strings.Builder
}

// grow is cur with more after it, written through *b, which holds cur
// when it was the last one grow returned.
func grow(b **strings.Builder, cur, more string) string {
	if more == "" {
		return cur
	}
	if *b == nil || (*b).Len() != len(cur) {
		*b = new(strings.Builder)
		(*b).WriteString(cur)
	}
	(*b).WriteString(more)
	return (*b).String()
}

// AddDetail adds a piece of a reasoning_details entry: more of the last
// entry when it has the same type and index, else a new entry.
func (c *ReasoningCollector) AddDetail(d ReasoningDetail) {
	if n := len(c.Details); n > 0 {
		last := &c.Details[n-1]
		if last.Type == d.Type && sameIndex(last.Index, d.Index) && d.Type != DetailEncrypted {
			last.Text = grow(&c.text, last.Text, d.Text)
			last.Summary = grow(&c.summary, last.Summary, d.Summary)
			if d.Signature != "" {
				last.Signature = d.Signature
			}
			if last.ID == "" {
				last.ID = d.ID
			}
			if last.Format == "" {
				last.Format = d.Format
			}
			return
		}
	}
	if d.Index != nil {
		i := *d.Index
		d.Index = &i
	}
	c.text, c.summary = nil, nil
	c.Details = append(c.Details, d)
}

func sameIndex(a, b *int) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// AddBlock adds a piece of a thinking_blocks entry: more of the last
// thinking block while it has no signature, else a new block.
func (c *ReasoningCollector) AddBlock(b ThinkingBlock) {
	if n := len(c.Blocks); n > 0 && b.Type == "thinking" {
		last := &c.Blocks[n-1]
		if last.Type == "thinking" && last.Signature == "" {
			last.Thinking = grow(&c.thinking, last.Thinking, b.Thinking)
			last.Signature = b.Signature
			return
		}
	}
	c.thinking = nil
	c.Blocks = append(c.Blocks, b)
}

// Reset forgets what was collected.
func (c *ReasoningCollector) Reset() { *c = ReasoningCollector{} }

// Empty reports whether nothing was collected.
func (c *ReasoningCollector) Empty() bool { return len(c.Details) == 0 && len(c.Blocks) == 0 }

// Signed reports whether the collected reasoning carries anything only the
// service can read back: a signature or encrypted data.
func (c *ReasoningCollector) Signed() bool {
	for _, d := range c.Details {
		if d.Signature != "" || d.Data != "" {
			return true
		}
	}
	for _, b := range c.Blocks {
		if b.Signature != "" || b.Data != "" {
			return true
		}
	}
	return false
}
