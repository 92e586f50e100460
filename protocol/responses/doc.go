// Package responses translates the OpenAI Responses API (POST /v1/responses,
// as the Codex CLI uses it) onto the service's chat completions and back.
package responses
