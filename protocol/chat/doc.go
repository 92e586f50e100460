// Package chat holds the OpenAI chat-completions types that gw serve's
// protocol translators (protocol/anthropic, protocol/responses,
// protocol/gemini) produce and consume: the request sent to the service, its
// answer, and its stream (Reader), which one Assembler turns into what it
// means for all of them: text, reasoning with its dialect and signature,
// whole tool calls.
//
// They are small types of gw's own rather than openai-go's: the translators
// need exact control over which fields are sent (the service rejects nothing
// it does not know, but agents' histories carry fields it must not see), the
// stream parser must accept what OpenAI-compatible gateways actually send
// (reasoning_content, reasoning, usage-only chunks, missing indices), and a
// few structs keep encoding cheap on the hot path.
//
// # Thinking across turns
//
// Services carry reasoning over chat completions in several dialects, and some refuse or forget it unless it
// comes back on the next turn as it came: plain reasoning_content/reasoning (DeepSeek's thinking models
// refuse a tool-calling assistant message without its reasoning_content), OpenRouter's reasoning_details
// (reasoning.text with a signature, reasoning.encrypted data, reasoning.summary), LiteLLM's
// thinking_blocks (Anthropic's thinking with signature, redacted_thinking), and Gemini's
// extra_content.google.thought_signature on a tool call (Gemini 3 refuses a call sent back without it).
// protocol/chat reads all of them and writes them back; what only the service
// can read travels through the client sealed (chat.Seal: gw + dialect + 1. + the JSON in unpadded
// base64url), in the one place each client returns untouched:
//
//	| | Messages (Claude Code) | Responses (Codex) |
//	| plain reasoning | thinking block, signature: "" (the SDKs expect the field; gw makes up no signature) → reasoning_content | reasoning item content + summary → reasoning_content |
//	| OpenRouter | thinking with signature gwor1.… (signature_delta last in the block), redacted_thinking data gwor1.… → reasoning_details | encrypted_content gwor1.… (the whole reasoning_details) when include asks → reasoning_details |
//	| LiteLLM | thinking gwlt1.…, redacted_thinking gwlt1.… → thinking_blocks | encrypted_content gwlt1.… → thinking_blocks |
//	| Gemini | the tool_use id, gwts1_ + base64url(id, NUL, signature) → the call's extra_content | the call_id, the same |
//
// A thought signature over 16 KiB is dropped rather than made into an id every later request repeats. A
// signature, encrypted_content or id gw did not seal (another API's, or damaged) is never passed on as the
// service's: the text goes back as plain reasoning, opaque data is left out, and both are named in the
// request log (Meta.Dropped).
package chat
