// Package anthropic lets gw serve speak the Anthropic Messages API, the only
// protocol Claude Code speaks, on top of the service's chat completions.
//
// ParseRequest translates a Messages request into one chat request (and the
// Meta its answer needs); FromResponse and StreamWriter translate the answer
// back, whole or as server-sent events; errors come in Anthropic's shape
// with the spec's message first (FromAPIError). Protocol puts them together
// as a translator (protocol/translate): gw serve routes /v1/messages and
// /v1/messages/count_tokens to its one loop (proxy/relay), which drives it.
//
// Reasoning comes back on the next turn as it came: thinking and
// redacted_thinking blocks carry the service's signatures sealed with their
// dialect, and a Gemini thought signature rides in the tool_use id; see
// thinking.go for the encodings.
//
// The types are small ones of gw's own, not anthropic-sdk-go's: they must
// read whatever Claude Code sends (unknown fields and block types, betas)
// and write events in exactly Anthropic's field order. The decisions behind
// the translation were checked against the real CLI; its recorded requests
// are in testdata/claude-code.
package anthropic
