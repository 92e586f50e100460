package gemini

import (
	"bytes"
	"errors"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
)

// FromResponse translates the service's whole chat completion into a
// GenerateContentResponse, read as a stream's answer is (chat.Assembler):
// thoughts in every reasoning dialect, the text, then the model's refusal,
// and the calls that have a name.
func FromResponse(meta Meta, r *chat.Response) ([]byte, error) {
	if len(r.Choices) == 0 {
		return nil, errors.New("the service's answer has no choice")
	}
	var thought, text, refusal strings.Builder
	var calls []*chat.StreamedCall
	a := chat.Assembler{On: func(p chat.Piece) {
		switch p.Kind {
		case chat.PieceReasoning:
			thought.WriteString(p.Text)
		case chat.PieceText:
			text.WriteString(p.Text)
		case chat.PieceRefusal:
			refusal.WriteString(p.Text)
		case chat.PieceCallDone:
			if p.Call.Name != "" { // a call without a name cannot be answered
				calls = append(calls, p.Call)
			}
		}
	}}
	a.Chunk(chat.ChunkOf(r))
	a.End()
	var parts []outPart
	for _, b := range []*strings.Builder{&thought, &text, &refusal} {
		if b.Len() > 0 && (b != &thought || meta.Thoughts) {
			t := b.String()
			parts = append(parts, outPart{Text: &t, Thought: b == &thought})
		}
	}
	out := response{
		Candidates:    lastCandidate(parts, calls, r.Choices[0].FinishReason, meta.IDs),
		UsageMetadata: usageOf(r.Usage),
		ModelVersion:  modelVersion(meta, r.Model),
		ResponseID:    meta.ResponseID,
	}
	return encode(out), nil
}

// lastCandidate is the candidate that ends an answer: parts, then the
// calls, or one empty text part when there is neither, and the finish
// reason.
func lastCandidate(parts []outPart, calls []*chat.StreamedCall, finish string, ids func(int) string) []candidate {
	for _, c := range calls {
		parts = append(parts, callPart(c.ID, c.Name, c.Args.String(), c.Signature, ids))
	}
	if len(parts) == 0 {
		parts = []outPart{{Text: new(string)}}
	}
	return []candidate{{Content: outContent{Role: "model", Parts: parts}, FinishReason: finishReason(finish)}}
}

// callPart is a tool call as a functionCall part. Arguments that are not a
// JSON object (a model's broken JSON) are passed as {"arguments": "<what
// the model wrote>"}: Gemini CLI's validation then tells the model.
func callPart(id, name, args, signature string, ids func(int) string) outPart {
	if id == "" {
		id = "call_" + ids(24)
	}
	raw := json.RawMessage(`{}`)
	if t := strings.TrimSpace(args); t != "" {
		if t[0] == '{' && json.Valid([]byte(t)) {
			raw = json.RawMessage(t)
		} else {
			raw, _ = json.Marshal(map[string]string{"arguments": args})
		}
	}
	return outPart{FunctionCall: &functionCall{ID: id, Name: name, Args: raw}, ThoughtSignature: signature}
}

// finishReason is a chat finish reason as the Gemini API's: a call is a
// normal stop there (STOP), a cut answer MAX_TOKENS, a filtered one SAFETY.
func finishReason(r string) string {
	switch r {
	case "", "stop", "tool_calls", "function_call", "end_turn":
		return "STOP"
	case "length", "max_tokens":
		return "MAX_TOKENS"
	case "content_filter":
		return "SAFETY"
	}
	return "OTHER"
}

// usageOf is the service's usage as usageMetadata: the model's thoughts
// counted apart from its answer (candidatesTokenCount excludes them, as
// Gemini counts), the prompt's cached tokens named; nil when the service
// said none.
func usageOf(u *chat.Usage) *usageMetadata {
	if u == nil {
		return nil
	}
	m := &usageMetadata{PromptTokenCount: max(0, u.PromptTokens), CandidatesTokenCount: max(0, u.CompletionTokens)}
	if d := u.CompletionDetails; d != nil && d.ReasoningTokens > 0 {
		m.ThoughtsTokenCount = min(d.ReasoningTokens, m.CandidatesTokenCount)
		m.CandidatesTokenCount -= m.ThoughtsTokenCount
	}
	m.CachedContentTokenCount = u.CacheRead() // in every gateway's field
	m.TotalTokenCount = u.TotalTokens
	if sum := m.PromptTokenCount + m.CandidatesTokenCount + m.ThoughtsTokenCount; m.TotalTokenCount < sum {
		m.TotalTokenCount = sum
	}
	return m
}

// modelVersion is the model the answer names: the service's, or else the
// one asked for.
func modelVersion(meta Meta, served string) string {
	if served != "" {
		return served
	}
	return meta.Model
}

func encode(v any) []byte {
	b, _ := chat.Encode(v)
	return bytes.TrimSuffix(b, []byte("\n"))
}
