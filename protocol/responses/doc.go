// Package responses translates the OpenAI Responses API (POST /v1/responses,
// as the Codex CLI uses it: store=false, the whole conversation in input)
// onto the service's chat completions and back, and Codex's remote
// compaction (POST /v1/responses/compact: Compact).
//
// ParseRequest turns the request into a chat request and a Meta (the
// response's id and time from translate.Env); FromResponse and StreamWriter
// turn the chat answer, whole or streamed (as chat.Assembler reads it), into
// the response object or the Responses API's events; FromAPIError and ErrorBody
// give failures OpenAI's error shape with the spec's message first, in the
// words the translators share (translate.Message; a stream that broke off,
// translate.StreamFailure, fails with code server_error). Protocol
// puts them together as a translator (protocol/translate), which gw serve's
// one loop (proxy/relay) drives for /v1/responses; Compact is the
// translator of /v1/responses/compact: the conversation summarised by the
// model, answered as the history Codex goes on with (its user messages,
// then the summary).
//
// Reasoning comes back on the next turn as it came: a reasoning item carries
// the service's signed reasoning sealed in encrypted_content (when include
// asks for it), and a Gemini thought signature rides in the call_id; see
// thinking.go for the encodings.
//
// The translation is pure: ParseRequest keeps nothing between requests, and
// without a Store previous_response_id and item_reference are refused. A
// Store (store.go, which gw serve gives its Protocol) keeps the answers of
// requests that did not say store=false, in memory, bounded, until gw serve
// stops: GET and DELETE /v1/responses/{id} (and input_items) are answered
// from it, and previous_response_id and item_reference are resolved
// against it.
//
// # Decisions
//
// Input items map to chat messages: developer/system → system, in place (where they were said), input_text/output_text parts → text,
// input_image (data: or http(s) URL) → image_url parts of a user message; function_call,
// custom_tool_call (as arguments {"input": …}) and local_shell_call join the assistant message before
// them as tool_calls; their outputs become tool messages (images in an output follow in a user message).
// reasoning items go back on the assistant message after them (see "Thinking across turns"); every other
// item or part kind, conversation, background, prompt and images by file id are refused with a 400
// (previous_response_id and item_reference too, unless a Store resolved them first). Tools: function as
// is, custom (freeform, e.g. apply_patch) as a function with one string parameter input (its grammar in
// the description), namespace tools by their own names (prefixed namespace__ only on a clash),
// local_shell as a function local_shell with a command array; hosted tools (web_search,
// file_search, …) are not offered. reasoning.effort becomes reasoning_effort (reasoning models only) at a
// level the model takes (chat.Effort: xhigh → high, minimal and none → low), text.format response_format,
// text.verbosity verbosity (left out for a service that refuses it). The answer's tool calls come back as the item kind the client's tool
// expects (function_call with its namespace, custom_tool_call with input, local_shell_call with
// action). Streams: response.created, response.in_progress, per item output_item.added → content
// parts and deltas (output_text, refusal, reasoning_text and reasoning_summary_text for the service's
// reasoning, function_call_arguments, custom_tool_call_input) → output_item.done, then one of
// response.completed (usage), response.incomplete (finish length or content_filter) or
// response.failed; every event has sequence_number. A failed stream marks no open item done: a client
// would run a tool call with cut-off arguments.
//
// Statuses are chosen for Codex 0.169, which retries every HTTP error but 400 and 429 five times, shows a 500
// as "high demand" without the message, and shows a 400's body as it is (or, for code model_not_found, only
// the message): a rejected key and an unknown model are answered 400 (codes invalid_api_key,
// insufficient_quota, model_not_found), a 500 of the service 502; an unreachable service is 502/504 and
// retried by Codex.
//
// Types are gw's own, not openai-go's: the SDK's Responses types are built to send requests and read
// OpenAI's answers, while this package must read every item kind Codex sends (including custom_tool_call,
// namespace tools and fields the SDK does not know), refuse unknown kinds by name instead of dropping them,
// and write events field by field in the API's order; a few small structs do that without a large dependency.
// The goldens in testdata/codex/ are real requests of Codex 0.171.0 (GW_RECORD_CODEX=/path/to/codex go
// test -run TestRecordCodex ./protocol/responses records them again).
package responses
