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
// offers tools and its last message is a user message containing the word
// "tool"; coding agents offer tools on every request and would otherwise loop.
//
// # Faults
//
// Options.Fault (or SetFault while serving) makes the service misbehave: slow
// headers, slow streams, a TCP reset after N events, a 5xx answer, or no
// answer at all. See Fault and ParseFault.
//
// # Tests
//
// Seen and WaitFor report what arrived (the key presented, the model, whether
// the client cancelled), for the last 1000 requests; Options.BeforeEvent
// gates each SSE event.
package standin
