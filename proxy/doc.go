// Package proxy is gw serve's handler: a localhost-only /v1 reverse proxy to
// the hosted service that swaps the client's local token for the real key.
//
// A request passes a filter (no browser Origin, no cross-site fetch, a
// loopback Host with the listener's port, the local token, a /v1/ path)
// before httputil.ReverseProxy forwards it. Rewrite, not Director, sets the
// key: Rewrite runs after hop-by-hop headers are removed, so a client's
// "Connection: Authorization" cannot strip it. Responses stream through
// unbuffered; usage is read from the stream as it passes.
//
// Three other protocols are translated onto the service's chat completions
// instead of being forwarded (translate.go): POST /v1/messages and
// /v1/messages/count_tokens (the Anthropic Messages API, for Claude Code),
// POST /v1/responses and /v1/responses/compact (the OpenAI Responses API
// and its compaction, for Codex) and /v1beta/models/… (the Gemini API, for
// Gemini CLI). Which route takes a request is one table (routes.go: path,
// methods, a header → a translator, or an answer of gw serve's own); they
// pass the same filter, and gw serve's own errors on them come in their
// protocol's shape (the translator's Refusal).
//
// It owns gw serve: the handler, the key cache, the runtime (Run: listen,
// signals, grace, serve.log) and Probe, how a client of gw finds out that a
// port is this install's gw serve. It never lets the key out: not into an
// answer, a header, a log line or an error (the key is masked wherever the
// service echoes it); it never follows a redirect with the key; it never
// answers a browser, a foreign Host or a request without the local token. The
// translation itself is the protocol packages'; the loop around it is
// proxy/relay's.
//
// # Who is listening (Probe)
//
// Probe is how gw run, gw doctor and a second gw serve decide that the listener on gw serve's port is this
// install's gw serve before they send it the local token or point an agent at it. It refuses an address off
// loopback; on Linux it refuses a port whose listening socket (/proc/net/tcp{,6}) belongs to another user,
// naming the process and user (holder_linux.go); then it asks GET /gw/hello?nonce=<hex> (hello.go, no
// token needed, Origin and Host checked) and verifies the answer, HMAC-SHA256 keyed by the local token over a
// label, the nonce and the address the connection reached: a stranger cannot compute it, nor get it from a gw
// serve elsewhere (another address). Sent with ProbeHeader, the hello is logged as probe.
//
// A client's own probe — GET or HEAD of a path reqlog.IsProbePath names, without a token (Claude Code's
// HEAD /api/hello at start) — passes the browser and Host checks and is answered 200 with nothing of the
// account (hello.go), logged as probe: no failure in gw usage, shown by gw logs only with --probes.
//
// # Routes
//
// Routes (the table in routes.go, first match), after the filter and the key check: /v1/messages and
// /v1/messages/count_tokens → relay.Serve with anthropic.Protocol, /v1/responses/compact → relay.Serve with
// responses.Compact, /v1/responses (and /v1/responses/{id}…, the kept responses) → relay.Serve
// with responses.Protocol and gw serve's Store, /v1beta/models/… (the Gemini API, the one path outside /v1 the filter lets
// through) → relay.Serve with gemini.Protocol, except GET /v1beta/models[/{id}], which gw serve answers
// itself with gemini.Models from the account's model ids (other methods on these paths: their 405, from the
// translator's Local); two model lists gw serve answers itself from the account's GET /models
// (api.Client.Models with the real key), errors included in their client's shape: GET /v1/models with an
// anthropic-version header in Anthropic's shape, paged (models_anthropic.go), and an agent's own routes,
// Options.ModelRoutes (agents.ServeRouter): GET /v1/codex/models, Codex's catalog (context windows, images,
// reasoning efforts, apply_patch), which the model_catalog_url of gw's Codex provider names
// (models_codex.go); every other path → the
// ReverseProxy. A translator's upstream call is POST <upstream>/chat/completions with the real key, gw
// serve's transport, Accept-Encoding: identity and the client's User-Agent; its Classify decodes the
// service's error body (scrubber.errorBody: gzip layers, bounded; another encoding drops the words) and
// scrubs the key from the service's words (whole answers and errors inside a stream) before
// api.ClassifyResponse. The translator's context ends when the client goes away (the upstream request is
// cancelled with it); gw serve stopping instead fails the upstream call or stream with an *api.Error
// ("unable to connect to API: gw serve stopped…"), so the translator ends the answer in its protocol (an
// error, or the stream's error event). At the end of the grace period connections are closed only once
// net/http has finished the cut answers. The loop's Outcome fills the log line's model, status, stream,
// usage and note (dropped=…, aborted=client_gone|shutting_down|upstream_stream_broken|upstream_error|
// upstream_idle|too_large limit=…, retried=…); whether gw serve was stopping is told by
// Options.Stopping, not read from an error's words.
//
// # A refused key, the local token, the log line
//
// A key the service refuses (api.KeyRejected: wrong key, exhausted balance, either) is explained on every
// route (explainKeyRejected): the cause names the key gw serve sends (keychain.Mask, and its source from
// the key cache) and says the agent's local token is fine; the fix is said for the key's source. On the chat
// route the relayed body keeps its status and, in OpenAI's shape, its other fields, with that message
// (keyRejectedBody); the translators put it in their own shapes. Other upstream errors pass through (key
// scrubbed; an unknown model gains the closest id).
//
// The local token is accepted as Authorization: Bearer, in X-Api-Key or in X-Goog-Api-Key (either one
// right is enough); X-Api-Key and X-Goog-Api-Key are never forwarded. Log line (reqlog.Entry): <time>
// <method> <path> [agent=] [model=] status= [condition=] dur= [prompt_tokens= cached_tokens=
// completion_tokens= reasoning_tokens=] proto=chat|messages|responses|gemini (the route's name)
// stream=true|false [note].
//
// # Errors gw serve writes itself
//
// Errors gw serve writes itself: {"error":{"message","type":"gw_error","code"}} (on the translated routes
// the protocol's shape, its translator's Refusal: the Messages API's final; the Responses API's 400 for what
// no retry fixes),
// with the spec's message first (a foreign Host is "unable to connect to API", a browser's request "API key
// invalid or unauthorized"), codes origin_refused, cross_site_refused, host_refused,
// local_token_missing, local_token_invalid, not_found, no_key, key_unavailable,
// upstream_unreachable, upstream_body_withheld (a non-2xx body in an encoding gw cannot decode, or over 1
// MiB once decoded), bad_hello, and bad_request/headers_too_large for what net/http answers itself
// before the handler (a malformed request, headers over MaxHeaderBytes = 64 KiB): Serve wraps each
// connection, and a write made while no handler serves it is rewritten into that shape (proxy/conn.go).
//
// # Hardening
//
// A filter refusal answers Connection: close; paths are refused unless printable ASCII without
// \ or % once decoded, and free of dot segments (..;x, ... included); the real key, in any spelling
// (scrub.go: each character as itself in either case, a JSON/JS escape, an HTML reference or
// percent-encoded, twice too, mixed), is replaced by keychain.Mask(key) in non-2xx bodies (read whole
// through every Content-Encoding, up to 1 MiB decoded; a stack other than gzip, or a bigger body, is
// withheld), in every header, 1xx and trailer; the upstream is asked only for gzip or identity. 2xx bodies
// pass byte for byte.
//
// # The runtime and its logs
//
// In Run, SIGPIPE is caught (signal.Notify) so a closed stderr fails writes instead of
// killing; stderr and serve.log have separate async writers (stderr's drops and counts, serve.log's keeps
// every line), and every stderr message after start goes through stderr's writer. serve.log is opened with
// fsutil.OpenAppend (never through a link). The request log (log.go) writes a peer's repeated refusals
// (same client address, same refusal) as one line per 10 s with a count ( ×37, refusals.go): the first at
// once, the count with the next line after the window or when gw serve stops. The request's "model" is read with
// gjson, which walks the body's top-level keys without decoding their values, and the answer's "usage" with
// encoding/json (sniff.go): the request body is copied as it passes (up to 4 MiB, into a buffer reused by
// the next request once the model is read) and read when the log line or a suggestion needs the model,
// after the answer; only the SSE line or answer holding a usage object is decoded. serve.log and its lock
// file stay open between lines (reqlog.File).
//
// # Tests with the official SDKs
//
// The SDK tests
// (proxy/sdk_test.go) run one table of scenarios for every official SDK as a client of the handler over the
// protocol it speaks, with the stand-in behind it: @anthropic-ai/sdk over Messages, openai over Responses,
// the AI SDK over both, @google/genai over the Gemini API. One node process per SDK
// (proxy/testdata/sdk/*.mjs, the SDKs pinned in .cache/ by scripts/test.sh) runs the turns written on its
// stdin, one JSON line each, and answers each in the same terms for every SDK (text, calls, reasoning,
// usage, error), with the status and retry headers of each attempt (read through fetch) and the delays
// the SDK chose to sleep before retrying (recorded, not timed). A client declares, with the reason, what
// its protocol cannot express (proxy/sdk_clients_test.go).
package proxy
