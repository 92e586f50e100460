// Package relay is gw serve's one loop for every translated protocol: it
// reads the client's request (bounded, gzip accepted), lets the protocol's
// translator (protocol/translate) turn it into a chat request, calls the
// service, and relays the answer through the translator — whole, or as a
// stream with pings while the service is silent, flushed whenever the
// service has nothing more to give at once, bounded in every dimension, ended
// in the protocol's error event when the service stalls or breaks off, and
// cancelled upstream when the client hangs up. What happened is returned for
// the request log. package proxy's route table sends every translated
// route here (/v1/messages, /v1/responses, /v1/responses/compact,
// /v1beta/models/…); a new protocol is one more translator and its routes,
// and inherits all of it.
//
// It never knows a protocol's shapes (those are the translator's) and never
// reads the key or the service's address (the caller's upstream call has
// them).
//
// # The loop
//
// The loop (relay.Serve) reads the body (one cap for every protocol, gzip accepted and bounded after
// decoding; 413/415/400 through Refusal), asks Local, then Translate, calls the service (once more with
// Retry's call when it returns one), and answers an error with Exchange.Error plus the service's
// Retry-After and retry-after-ms when they are a delay (seconds, an HTTP date, milliseconds). A whole
// answer is read up to Limits.Whole; an error object in a 200 is an error. A stream is bounded in the loop,
// not in the translators, so a new protocol inherits it: each tool call's arguments (ToolCall), each run of
// text, reasoning or refusal (Block), all a translator keeps until the end (Answer), the bytes of the
// service's stream (Stream), each event (chat.MaxEventSize); past one, the protocol's error event and
// aborted=too_large limit=… in the log. A service silent for IdleTimeout mid-stream (counted in pings, no
// clock read per event) is closed and the answer ends with the error event (aborted=upstream_idle); the
// wait for the answer's header is bounded by the transport (--upstream-header-timeout).
//
// Every translated stream is driven the same way: the service's stream is read, decoded and translated in the
// request's goroutine, with no hand-off per event; what is written goes to the client when chat.Reader is
// about to wait for the network (BeforeWait), so the events of one read leave in one write and none waits;
// pings (keep-alive comments for Codex) come from a time.AfterFunc timer, serialised with the chunks by the
// stream's lock; a client that goes away closes the service's answer (context.AfterFunc); after [DONE]
// the answer is read to its end (Reader.Drain, at most 64 KiB and a quarter second), so that its connection
// goes back to the pool instead of being closed. JSON is read and written with encoding/json/v2's
// implementation under encoding/json's v1 rules (github.com/go-json-experiment/json/v1: the module that is
// the standard library's encoding/json/v2 from Go 1.27, where it becomes an alias): the same results as
// encoding/json (TestParseEventAsEncodingJSON), two to three times faster for the chunks of a stream and
// the requests (docs/benchmarks.md). The events of every delta (text_delta, thinking_delta,
// output_text.delta, argument deltas) are appended field by field with chat.AppendString, held byte for
// byte to encoding/json by TestDeltaEventsAsEncodingJSON and FuzzAppendString; the rest go through the
// encoder.
package relay
