package responses

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/translate"
)

// How Codex (0.169) treats an error answer, which decides the statuses below:
// every HTTP status but 400 and 429 is retried five times ("Reconnecting...
// 1/5"), a 5xx up to thirty times; 500 is shown as "We're currently
// experiencing high demand" instead of the message; 429 is shown without the
// message; a 400 is shown with its whole body and not retried. In a stream,
// response.failed is retried unless its code is one Codex knows to be final
// (model_not_found, invalid_prompt, context_length_exceeded, …).
//
// So a rejected key and an unknown model, which no retry can fix, are
// answered 400, and a 500 of the service 502, so that Codex shows gw's
// message at once; everything else keeps its status.

// ClientStatus is the status a Responses client is answered with for an
// error of the given status: 401, 402, 403 and 404 (a rejected key, an
// unknown model) and 413 and 415 (a body too large, or compressed in a way
// gw serve does not read: sent again as it is, it fails again) become 400,
// which Codex shows instead of retrying; 500 becomes 502; others are kept.
func ClientStatus(status int) int {
	switch status {
	case http.StatusUnauthorized, http.StatusPaymentRequired, http.StatusForbidden, http.StatusNotFound,
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		return http.StatusBadRequest
	case http.StatusInternalServerError:
		return http.StatusBadGateway
	}
	return status
}

// ErrorBody is an error body in the Responses API's (OpenAI's) shape:
// {"error":{"message","type","param","code"}}. An empty errType is derived
// from status.
func ErrorBody(status int, errType, message string) []byte {
	if errType == "" {
		errType = typeOf(status)
	}
	return errorJSON(message, errType, "", "")
}

func typeOf(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// Message is what a client is told of a classified failure: translate.Message
// (the spec's message for the condition, then gw's cause and fix), or a
// context overflow in OpenAI's words (ContextExceeded).
func Message(e *api.Error) string {
	if e.Kind == api.KindContextOverflow {
		return ContextExceeded(e)
	}
	return translate.Message(e)
}

// ContextExceeded is the message of a context overflow, in OpenAI's words
// with the counts when known.
func ContextExceeded(e *api.Error) string {
	msg := "Your input exceeds the context window of this model"
	switch {
	case e.Tokens > 0 && e.Limit > 0:
		msg += fmt.Sprintf(" (%d tokens > %d maximum)", e.Tokens, e.Limit)
	case e.Limit > 0:
		msg += fmt.Sprintf(" of %d tokens", e.Limit)
	}
	msg += ". Please adjust your input and try again"
	if e.ServiceMessage != "" && !(e.Tokens > 0 && e.Limit > 0) {
		msg += fmt.Sprintf(" (the service said: %q)", e.ServiceMessage)
	}
	return msg + "."
}

// FromAPIError is the error a Responses client gets for a classified
// failure of the service (or of reaching it).
func FromAPIError(e *api.Error) *translate.Error {
	status, typ, code, param := classOf(e)
	return &translate.Error{Status: status, Type: typ, Code: code, Param: param, Message: Message(e)}
}

// classOf maps a failure to status, error type, code and param.
func classOf(e *api.Error) (status int, typ, code, param string) {
	switch e.Condition {
	case api.KeyRejected:
		if e.Kind == api.KindNoBalance {
			return http.StatusBadRequest, "insufficient_quota", "insufficient_quota", ""
		}
		return http.StatusBadRequest, "invalid_request_error", "invalid_api_key", ""
	case api.UnknownModel:
		return http.StatusBadRequest, "invalid_request_error", "model_not_found", "model"
	case api.ServiceUnreachable:
		if e.Kind == api.KindTimeout {
			return http.StatusGatewayTimeout, "server_error", "upstream_timeout", ""
		}
		return http.StatusBadGateway, "server_error", "upstream_unreachable", ""
	}
	switch {
	case e.Kind == api.KindContextOverflow:
		return http.StatusBadRequest, "invalid_request_error", "context_length_exceeded", "input"
	case e.Overloaded() && (e.Status == 529 || e.Status < 500):
		return http.StatusServiceUnavailable, "server_error", "server_is_overloaded", ""
	}
	switch e.Kind {
	case api.KindRateLimited:
		return http.StatusTooManyRequests, "rate_limit_error", "rate_limit_exceeded", ""
	case api.KindServerError:
		s := e.Status
		if s < 500 {
			s = http.StatusBadGateway
		}
		return ClientStatus(s), "server_error", "server_error", ""
	}
	s := e.Status
	if s < 400 {
		s = http.StatusBadGateway
	}
	code = e.Code
	if code == "" || code == strconv.Itoa(e.Status) {
		code = ""
	}
	return ClientStatus(s), typeOf(s), code, ""
}

// streamError is the code and message of response.failed for an error that
// ended a stream (translate.StreamFailure). A failure reported in the stream
// keeps its code (an unknown model's model_not_found, which Codex does not
// retry); a stream that broke off is a server_error, which Codex retries.
func streamError(err error) (code, message string) {
	e, broke := translate.StreamFailure(err)
	code = "server_error"
	if _, _, c, _ := classOf(e); c != "" && !broke {
		code = c
	}
	return code, Message(e)
}
