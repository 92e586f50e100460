// Package anthropic lets gw serve speak the Anthropic Messages API, the only
// protocol Claude Code speaks, on top of the service's chat completions.
//
// ParseRequest translates a Messages request into one chat request (and the
// Meta its answer needs); FromResponse and StreamWriter translate the answer
// back, whole or as server-sent events (from chat.Assembler's pieces); errors (a translate.Error) come in
// Anthropic's shape with the spec's message first, in the words the translators share (FromAPIError,
// translate.Message; a stream that broke off, translate.StreamFailure). Protocol puts them together
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
//
// # Decisions
//
// Small types of its own rather than anthropic-sdk-go's: the SDK's request types are for building requests,
// not for reading whatever a client sends (unknown fields, betas, mid-conversation system turns,
// tool_reference blocks), and the answer's events need an exact field order and shape. Decisions, each
// checked against the real Claude Code (requests recorded in testdata/claude-code/, re-recorded with
// GW_RECORD_CLAUDE_CODE=1): the system prompt (and role: "system" turns before the first user turn) become
// one leading system message, without Claude Code's x-anthropic-billing-header block (it changes every
// request and would defeat the service's prompt cache); a system turn said later (Claude Code's
// "# Environment" turn after the first user message, reminders) stays a system message where it was said,
// since moving it to the front would change the start of the prompt and miss the service's prompt cache
// (a service that takes a system message only first gets them joined, chat.FieldLateSystem); thinking blocks coming back
// go to the service on the same assistant message in the dialect they came in (see "Thinking across turns"
// below); a tool_result becomes a tool message (its images follow in a user message; an error result starts
// with Error: ); deferred tools are offered once a tool_reference loaded them;
// thinking/output_config.effort become reasoning_effort for the catalogue's reasoning models only (the
// effort alone too; adaptive thinking without one is high); a tool's strict stays on its function, and
// structured output (output_config.format, or the beta's output_format) becomes a strict json_schema
// response_format;
// Anthropic's server tools and top_k are left out and named in Meta.Dropped, except that a request that wants
// a server tool alone (forced by tool_choice, or the only tool: Claude Code's WebSearch) is a 400 saying, in
// words the model reads as the tool's result, that web search is not available through this service. In the stream, thinking and
// text go out as they come, but a tool call goes out whole once its arguments are complete (as {"arguments":
// "…"} when they are not a JSON object): Claude Code repeats a request without end when a tool_use block
// stops with arguments that do not parse. A cut stream ends with an error event (never message_stop); an
// immediate failure is an HTTP error (the answer's header waits for the first event or the first ping). The
// spec's three conditions are sent with x-should-retry: false (Claude Code otherwise retries a 401 or 502
// for minutes), and an unknown model is a 400, not a 404, because Claude Code replaces every 404's message
// with its own. count_tokens is answered locally, never asked of the service: on a conversation's first
// turn one token per 4 bytes of the translated request, an estimate (later turns: below).
//
// context_management edits (clearing old tool results or thinking) are not applied: measured on a long
// session (docs/benchmarks.md, "Context editing", BenchmarkContextEdits), clearing tool results sends 17%
// fewer prompt tokens but bills 1.93× as many, since each turn's clearing moves where the prompt changes
// and the service's prompt cache misses from there on; Claude Code's own edit (clear_thinking, keep all)
// changes nothing.
//
// Prompt caching is carried over in the shape gateways selling these models over chat completions
// (OpenRouter, LiteLLM) accept: a Messages cache_control (with its ttl) stays on the content part its
// block became (the system message is then a list of text parts), a tool's on the function tool, a
// tool_use's on the tool call, a tool_result's on its tool message's text part (or on the last image
// after it); a top-level one (automatic caching) goes on the last part. metadata.user_id becomes user;
// Codex's prompt_cache_key is passed on. Usage comes back as each API counts it: Anthropic's input_tokens
// without the cached (cached_tokens, or LiteLLM's cache_read_input_tokens) and written
// (cache_write_tokens, cache_creation_tokens, cache_creation_input_tokens) tokens, which are
// cache_read_input_tokens and cache_creation_input_tokens; the Responses API's input_tokens with
// cached_tokens among them. Until the service has counted, message_start and response.created carry
// chat.EstimateTokens of the translated request (Meta.InputTokens; images count 1600 tokens each, not
// their bytes); from a conversation's second turn, message_start and count_tokens say what the service
// billed for the earlier prompt the turn repeats plus the estimate of what it adds (Protocol.Billed,
// chat.BilledPrompts). A service that refuses one of these optional fields (a 400 naming it: chat.RefusedField) is
// sent the request again without it (chat.Without: as it was before breakpoints), and chat.Refusals
// remembers that per model for the life of gw serve.
package anthropic
