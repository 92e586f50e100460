// Package responses translates the OpenAI Responses API (POST /v1/responses,
// as the Codex CLI uses it: stateless, store=false, the whole conversation in
// input) onto the service's chat completions and back.
//
// ParseRequest turns the request into a chat request and a Meta; FromResponse
// and StreamWriter turn the chat answer, whole or streamed, into the
// response object or the Responses API's events; FromAPIError and ErrorBody
// give failures OpenAI's error shape with the spec's message first. Protocol
// puts them together as a translator (protocol/translate), which gw serve's
// one loop (proxy/relay) drives for POST /v1/responses.
//
// Reasoning comes back on the next turn as it came: a reasoning item carries
// the service's signed reasoning sealed in encrypted_content (when include
// asks for it), and a Gemini thought signature rides in the call_id; see
// thinking.go for the encodings.
//
// The package is pure translation: no state is kept between requests, so
// previous_response_id and other server-side state are refused.
package responses
