package chat

// Token estimates, for the places where a client reads a prompt's size
// before the service has counted it (Anthropic's count_tokens and
// message_start, the Responses API's response.created): about one token per
// four bytes of what the prompt says, as most tokenizers come out on code
// and English. It is an estimate, not the model's tokenizer.

// ImageTokens is what one image counts for in an estimate: about what
// Anthropic counts for an image of the largest size it keeps (1568 pixels
// on the long side), and more than OpenAI's detail=high for most. An
// image's bytes say little of its tokens: counted as text, a screenshot
// would fill the context meter on its own.
const ImageTokens = 1600

// Per-item overheads, in bytes: the role, the separators, the name and
// schema wrapping a tool is given, as JSON encoding adds them.
const (
	messageOverhead = 16
	partOverhead    = 24
	toolOverhead    = 48
	callOverhead    = 40
)

// EstimateTokens estimates the prompt tokens of a chat request: its
// messages and tools. It reads the request without encoding it, so that
// computing it on every request costs next to nothing.
func EstimateTokens(r *Request) int {
	if r == nil {
		return 0
	}
	bytes, images := 0, 0
	for i := range r.Messages {
		m := &r.Messages[i]
		bytes += messageOverhead + len(m.Role) + len(m.Name) + len(m.ToolCallID) + len(m.ReasoningContent)
		switch c := m.Content.(type) {
		case string:
			bytes += len(c)
		case []Part:
			for _, p := range c {
				bytes += partOverhead
				switch {
				case p.ImageURL != nil:
					images++
				case p.File != nil:
					bytes += len(p.File.Filename) + len(p.File.FileData)
				default:
					bytes += len(p.Text)
				}
			}
		}
		for _, tc := range m.ToolCalls {
			bytes += callOverhead + len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	for _, t := range r.Tools {
		bytes += toolOverhead + len(t.Function.Name) + len(t.Function.Description) + len(t.Function.Parameters)
	}
	return (bytes+3)/4 + images*ImageTokens
}
