package standin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The error dialects: the shapes real OpenAI-compatible gateways give their
// error bodies. Clients of the service must classify all of them.
const (
	DialectOpenAI     = "openai"     // {"error":{"message","type","param","code"}}, code a string or null
	DialectOpenRouter = "openrouter" // {"error":{"code":402,"message"}}, code the HTTP status as a number
	DialectLiteLLM    = "litellm"    // {"error":{"message","type","param":null,"code":"401"}}, code the status as a string
	DialectNewAPI     = "newapi"     // {"error":{"message","type":"new_api_error","code"}} (new-api / one-api)
	DialectFlat       = "flat"       // {"message":"..."}
	DialectText       = "text"       // a plain-text body
)

// Dialects lists the accepted Options.Dialect values.
func Dialects() []string {
	return []string{DialectOpenAI, DialectOpenRouter, DialectLiteLLM, DialectNewAPI, DialectFlat, DialectText}
}

type errKind int

const (
	errMissingKey errKind = iota
	errWrongKey
	errNoBalance
	errUnknownModel
	errNotInPlan
	errBadRequest
	errInvalidURL
	errMethod
	errServer
	errContextLength // the prompt exceeds the context window
	errRateLimit     // 429
	errOverloaded    // 529 (and 503 with the overloaded wording)
)

// apiError is one refusal, before it is put into a dialect.
type apiError struct {
	kind   errKind
	status int
	model  string // the id asked for (unknown model, not in plan)
	param  string // the offending request field (bad request)
	detail string // what is wrong (bad request, invalid URL, method)
	plan   []string
	reqID  string
	tokens int // context length: the prompt's tokens
	limit  int // context length: the window
}

// shortModel keeps a pasted essay from being echoed back whole.
func shortModel(m string) string {
	if len(m) > 200 {
		return m[:200] + "…"
	}
	return m
}

// writeError writes e in the dialect d.
func writeError(w http.ResponseWriter, d string, e apiError) {
	ctype, body := renderError(d, e)
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

func renderError(d string, e apiError) (ctype string, body []byte) {
	const jsonType = "application/json"
	m := shortModel(e.model)
	switch d {
	case DialectOpenRouter:
		msg := map[errKind]string{
			errMissingKey:   "No auth credentials found",
			errWrongKey:     "User not found.",
			errNoBalance:    "Insufficient credits. Add more credits on the dashboard.",
			errUnknownModel: m + " is not a valid model ID",
			errNotInPlan:    "No endpoints found for " + m + " on your plan.",
			errBadRequest:   e.detail,
			errInvalidURL:   "Not Found",
			errMethod:       e.detail,
			errServer:       "Internal Server Error",
			errContextLength: fmt.Sprintf("This endpoint's maximum context length is %d tokens. However, you requested about %d tokens (%d of text input). "+
				"Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.", e.limit, e.tokens, e.tokens),
			errRateLimit:  "Rate limit exceeded: free-models-per-min. ",
			errOverloaded: "Overloaded",
		}[e.kind]
		return jsonType, mustJSON(map[string]any{"error": map[string]any{"code": e.status, "message": msg}})

	case DialectLiteLLM:
		var msg, typ string
		param := any(nil)
		switch e.kind {
		case errMissingKey:
			msg, typ = "Authentication Error, No api key passed in.", "auth_error"
		case errWrongKey:
			msg, typ = "Authentication Error, Invalid proxy server token passed. valid_token=None.", "auth_error"
		case errNoBalance:
			msg, typ = "Budget has been exceeded! Current cost: 0.0, Max budget: 0.0", "budget_exceeded"
		case errUnknownModel:
			msg, typ, param = "Invalid model name passed in model="+m+". Call `/v1/models` to view available models for your key.", "invalid_request_error", "model"
		case errNotInPlan:
			msg, typ, param = fmt.Sprintf("key not allowed to access model. This key can only access models=%s. Tried to access %s", "['"+strings.Join(e.plan, "', '")+"']", m), "key_model_access_denied", "model"
		case errBadRequest:
			msg, typ, param = e.detail, "invalid_request_error", e.param
		case errInvalidURL, errMethod:
			msg, typ = e.detail, "invalid_request_error"
		case errContextLength:
			msg, typ = fmt.Sprintf("litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: %d tokens > %d maximum", e.tokens, e.limit), "invalid_request_error"
		case errRateLimit:
			msg, typ = "litellm.RateLimitError: RateLimitError: AnthropicException - Number of request tokens has exceeded your per-minute rate limit", "throttling_error"
		case errOverloaded:
			msg, typ = "litellm.InternalServerError: AnthropicException - Overloaded", "overloaded_error"
		default:
			msg, typ = "Internal Server Error", "internal_server_error"
		}
		return jsonType, mustJSON(map[string]any{"error": map[string]any{
			"message": msg, "type": typ, "param": param, "code": strconv.Itoa(e.status)}})

	case DialectNewAPI:
		var msg, code string
		switch e.kind {
		case errMissingKey:
			msg = "No token provided"
		case errWrongKey:
			msg = "Invalid token"
		case errNoBalance:
			msg, code = "User quota is not enough", "insufficient_user_quota"
		case errUnknownModel:
			msg, code = "No available channel for model "+m+" under group default (distributor)", "model_not_found"
		case errNotInPlan:
			msg, code = "This token has no permission to access model "+m, "model_not_allowed"
		case errBadRequest:
			msg, code = e.detail, "invalid_request"
		case errInvalidURL, errMethod:
			msg, code = e.detail, "invalid_request"
		case errContextLength:
			msg, code = fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", e.limit, e.tokens), "context_length_exceeded"
		case errRateLimit:
			msg, code = "The upstream of the current group is saturated, please try again later", "rate_limit_exceeded"
		case errOverloaded:
			msg, code = "upstream overloaded", "model_overloaded"
		default:
			msg, code = "Internal Server Error", "internal_error"
		}
		return jsonType, mustJSON(map[string]any{"error": map[string]any{
			"message": msg + " (request id: " + e.reqID + ")", "type": "new_api_error", "code": code}})

	case DialectFlat:
		msg, _, _ := openAIParts(e, m)
		return jsonType, mustJSON(map[string]any{"message": msg})

	case DialectText:
		msg, _, _ := openAIParts(e, m)
		return "text/plain; charset=utf-8", []byte(msg + "\n")

	default: // DialectOpenAI
		msg, typ, code := openAIParts(e, m)
		var param any
		if e.param != "" {
			param = e.param
		}
		if e.kind == errContextLength {
			param = "messages"
		}
		return jsonType, mustJSON(map[string]any{"error": map[string]any{
			"message": msg, "type": typ, "param": param, "code": code}})
	}
}

// openAIParts gives OpenAI's own wording; the flat and text dialects reuse it.
func openAIParts(e apiError, m string) (msg, typ string, code any) {
	switch e.kind {
	case errMissingKey:
		return "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", "invalid_request_error", nil
	case errWrongKey:
		return "Incorrect API key provided. You can find your API key on the dashboard.", "invalid_request_error", "invalid_api_key"
	case errNoBalance:
		return "You exceeded your current quota, please check your plan and billing details. Your balance is insufficient.", "insufficient_quota", "insufficient_quota"
	case errUnknownModel:
		return "The model `" + m + "` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found"
	case errNotInPlan:
		return "The model `" + m + "` is not available on your plan.", "invalid_request_error", "model_not_found"
	case errBadRequest, errInvalidURL, errMethod:
		return e.detail, "invalid_request_error", nil
	case errContextLength:
		return fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", e.limit, e.tokens), "invalid_request_error", "context_length_exceeded"
	case errRateLimit:
		return "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.", "requests", "rate_limit_exceeded"
	case errOverloaded:
		return "The engine is currently overloaded, please try again later.", "server_error", "overloaded"
	default:
		return "The server had an error while processing your request. Sorry about that!", "server_error", nil
	}
}

// mustJSON encodes v without escaping <, > and &, as the Python and
// JavaScript gateways write JSON.
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only maps and structs of strings and numbers are marshalled here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// badGatewayHTML is what a front proxy (nginx) shows when the gateway behind it is down.
const badGatewayHTML = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
`
