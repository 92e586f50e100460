// Package standin is a stand-in of the hosted Model Gateway Service: an
// OpenAI-compatible HTTP service with accounts, plans and a balance, used by
// gw's tests, demos and benchmarks in place of the real service.
//
// # Endpoints
//
// Everything lives under /v1; any other path gets a plain-text 404, the way a
// web server answers a client whose base URL is not the service's.
//
//	GET  /v1/models            OpenAI model list, filtered by the account's plan
//	GET  /v1/models/{id}       one model
//	POST /v1/chat/completions  chat completion, streamed (SSE) when "stream": true
//	other /v1 paths            404 "Invalid URL (METHOD PATH)" in the dialect
//
// Requests are checked in this order: the key (Authorization: Bearer), the
// balance, then the model (chat completions only).
//
// # Statuses
//
//	missing or wrong key           401
//	balance exhausted (≤ 0 cents)  Options.BalanceStatus: 402 by default; 401, 403 or 429 as other gateways do;
//	                               with Options.HideBalanceCause exactly the wrong-key answer (401)
//	model not spelled as listed    Options.ModelStatus: 404 by default, or 400 ("unknown model")
//	model not in the plan          Options.ModelStatus, with a different message ("not available on your plan")
//	malformed request              400
//	wrong method                   405
//
// GET /v1/models also checks the balance unless Options.ModelsIgnoreBalance,
// so the connectivity check reveals an exhausted balance, as the service's
// "key rejected" condition says.
//
// # Error dialects
//
// Options.Dialect picks the shape of error bodies, after gateways in use:
//
//	openai      {"error":{"message":"…","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}
//	            balance: type and code "insufficient_quota"; model: code "model_not_found"
//	openrouter  {"error":{"code":402,"message":"Insufficient credits. …"}} (code = the HTTP status, a number)
//	litellm     {"error":{"message":"Authentication Error, …","type":"auth_error","param":null,"code":"401"}}
//	            (code = the HTTP status, a string; balance: type "budget_exceeded")
//	newapi      {"error":{"message":"Invalid token (request id: …)","type":"new_api_error","code":""}}
//	            (new-api/one-api; balance: code "insufficient_user_quota"; model: "model_not_found")
//	flat        {"message":"…"} with OpenAI's wording
//	text        a text/plain body with OpenAI's wording
//
// # Answers
//
// The answer text is Greeting(model), "Hello from the gw stand-in (<model>).",
// so end-to-end tests can find it. Streams follow OpenAI's chunk shapes: a
// role chunk, one content chunk per word (or Options.ContentChunks chunks of
// Options.ChunkSize bytes), tool-call deltas, a finish chunk, a usage chunk
// when stream_options.include_usage is set, then "data: [DONE]". A tool is
// called (its arguments JSON split over several deltas) only when the request
// offers tools and its last message (system turns after it aside) is a user
// message containing the word "tool"; coding agents offer tools on every
// request and would otherwise loop.
// Each `backticked` snippet makes one call with it as the arguments, and a
// snippet `name=value` sets the tool's parameter name (as JSON when it takes
// an array or an object). A user message whose numbered lines ("1. Use the
// Read tool on `a.txt`") ask for tools scripts a multi-step session: one step
// a request, the next once the previous call's result is back, then an
// answer quoting the last result.
//
// # Prompt caching
//
// The stand-in caches prompt prefixes per account (see PromptCache) as the
// gateways that sell Anthropic and OpenAI models over chat completions do:
// Anthropic-style cache_control breakpoints on content parts, messages and
// function tools ({"type":"ephemeral","ttl":"5m"|"1h"}, at most 4), read
// tools first; or, without breakpoints, OpenAI-style prefix matching under a
// prompt_cache_key. prompt_tokens counts every prompt token; the cache
// shows in usage as prompt_tokens_details.cached_tokens (read) and
// cache_write_tokens (written, when breakpoints were sent) as OpenRouter
// reports them, or cache_read_input_tokens and cache_creation_input_tokens
// at the top of usage in the litellm dialect. Tokens are the stand-in's
// estimate: 4 bytes a token, 3 more per message, 256 per image or file.
// A malformed cache_control or a fifth breakpoint is refused (400).
//
// # Reasoning
//
// Models reason in one of the dialects of ReasoningDialects, chosen by the
// request's X-Standin-Reasoning header, Options.ReasoningByModel or
// Options.Reasoning; by default ids ending in -thinking stream
// reasoning_content and vendor-b's Gemini-class models sign their first
// tool call with extra_content.google.thought_signature. The openrouter
// dialect sends reasoning and reasoning_details (reasoning.text with a
// signature, reasoning.encrypted with data), litellm reasoning_content and
// thinking_blocks (thinking with a signature, redacted_thinking with data);
// "+redacted" adds the encrypted block. The mixed dialect puts them all in
// one answer, as a client may meet them behind one gateway: OpenRouter's
// reasoning_details, then LiteLLM's thinking_blocks (another text, signed
// on its own; "mixed+redacted" adds each one's encrypted block), and
// Gemini's thought signature on the first tool call. Reasoning sent back is
// checked: a signature must sign its text, encrypted data must be the
// stand-in's, and in the gemini and mixed dialects a function call of the
// current turn (after the last user message) without its thought_signature
// is refused with Gemini's 400.
//
// # Faults
//
// Options.Fault (or SetFault while serving) makes the service misbehave: slow
// headers, slow streams, a TCP reset after N events, a 5xx answer, a 429,
// 503 or 529 with Retry-After and retry-after-ms, a context-length error in
// the dialect (at once, or as an SSE event mid-stream), or no answer at all.
// See Fault and ParseFault. Options.ContextTokens refuses longer prompts with
// the same context-length error, naming their size.
//
// # Tests
//
// Seen and WaitFor report what arrived (the key presented, the model, whether
// the client cancelled, the cache breakpoints and prompt_cache_key, the
// reasoning signatures sent back and those the answer carried, each with
// the field that carried it, the tokens
// billed and cached), for the last 1000 requests; Options.BeforeEvent gates
// each SSE event.
//
// # The scripted model
//
// Its "model" is scripted by the user's words, for tests of real agents: a tool is called when the last
// message asks for one by name, each backticked snippet making one call (a snippet name=value sets that
// parameter); numbered lines asking for tools script a multi-step session, one call a request, each once the
// previous result is back; after a tool result the answer quotes it. What an agent adds to the user's
// message for the model (a <system-reminder> block: Claude Code's, Qwen Code's skills) is not read as the
// user's words.
package standin
