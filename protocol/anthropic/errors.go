package anthropic

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// errorBody is e in the Messages API's error shape:
// {"type":"error","error":{"type":…,"message":…}}. An error is Final when
// retrying cannot help: Claude Code would otherwise retry a 401 or a 5xx for
// minutes before showing the message.
func errorBody(e *tr.Error) []byte { return ErrorBody(e.Status, e.Type, e.Message) }

// The error types of the Messages API.
const (
	TypeInvalidRequest  = "invalid_request_error"
	TypeAuthentication  = "authentication_error"
	TypeBilling         = "billing_error"
	TypePermission      = "permission_error"
	TypeNotFound        = "not_found_error"
	TypeRequestTooLarge = "request_too_large"
	TypeRateLimit       = "rate_limit_error"
	TypeAPI             = "api_error"
	TypeTimeout         = "timeout_error"
	TypeOverloaded      = "overloaded_error"
)

var typeForStatus = map[int]string{
	http.StatusBadRequest: TypeInvalidRequest, http.StatusUnauthorized: TypeAuthentication,
	http.StatusPaymentRequired: TypeBilling, http.StatusForbidden: TypePermission,
	http.StatusNotFound: TypeNotFound, http.StatusRequestEntityTooLarge: TypeRequestTooLarge,
	http.StatusTooManyRequests: TypeRateLimit, http.StatusGatewayTimeout: TypeTimeout, 529: TypeOverloaded,
}

// TypeForStatus is the Messages API's error type for an HTTP status.
func TypeForStatus(status int) string {
	if t, ok := typeForStatus[status]; ok {
		return t
	}
	if status >= 400 && status < 500 {
		return TypeInvalidRequest
	}
	return TypeAPI
}

// ErrorBody is an error in the Messages API's shape; errType "" takes the
// type of the status.
func ErrorBody(status int, errType, message string) []byte {
	if errType == "" {
		errType = TypeForStatus(status)
	}
	b, _ := chat.Encode(errorOut{Type: "error", Error: errorDetail{Type: errType, Message: message}})
	return b
}

// FromAPIError is gw's classified failure of the service as a Messages API
// error. The message is the spec's message for the condition, then gw's
// cause, then the fix: "API key invalid or unauthorized: the account's
// balance is exhausted (402) — top up …". The status is the service's (502
// when it could not be reached or sent its error with 200; 401 for a key
// it refused that way), except for an unknown model: Claude Code
// replaces the message of every 404 with its own ("There's an issue with
// the selected model…"), which would hide the fix, so it is a 400. The
// spec's three conditions are final (no retry); other failures (rate
// limits, server errors) are left to the client's retry policy.
func FromAPIError(e *api.Error) *tr.Error {
	status := e.Status
	switch {
	case e.Kind == api.KindContextOverflow:
		return &tr.Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Message: PromptTooLong(e)}
	case e.Kind == api.KindRateLimited:
		status = http.StatusTooManyRequests // also when it came inside a stream
	case e.Overloaded():
		status = 529 // overloaded_error, which the client retries after a pause
	case e.Condition == api.UnknownModel && (status == http.StatusNotFound || status < 400):
		status = http.StatusBadRequest
	case e.Condition == api.KeyRejected && status < 400:
		// An error the service sent with 200 (or inside its stream).
		status = http.StatusUnauthorized
	case status < 400:
		status = http.StatusBadGateway
	}
	return &tr.Error{Status: status, Type: TypeForStatus(status), Message: tr.Message(e), Final: e.Condition != ""}
}

// PromptTooLong is the message of a context overflow in Anthropic's words,
// which Claude Code compacts its conversation on and reads the counts of:
// "prompt is too long: N tokens > M maximum" exactly when both counts are
// known; else the same beginning, the window when known, and the service's
// words.
func PromptTooLong(e *api.Error) string {
	if e.Tokens > 0 && e.Limit > 0 {
		return fmt.Sprintf("prompt is too long: %d tokens > %d maximum", e.Tokens, e.Limit)
	}
	msg := "prompt is too long: the conversation exceeds the model's context window"
	if e.Limit > 0 {
		msg += fmt.Sprintf(" of %d tokens", e.Limit)
	}
	if e.ServiceMessage != "" {
		msg += fmt.Sprintf(" (the service said: %q)", e.ServiceMessage)
	}
	return msg
}

// IsClaudeModel reports whether id is one of Claude Code's own model ids
// (claude-opus-…, claude-sonnet-…, claude-3-5-haiku-…): what Claude Code
// asks for when its model settings were not pointed at gw's ids.
func IsClaudeModel(id string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(id)), "claude-")
}

// ForClaudeCode adjusts an unknown-model failure of one of Claude Code's own
// model ids: the cause says where the id came from and the fix how to set
// gw's ids (remedy.SetClaudeModels: they are never mapped to the service's
// ids behind the user's back, the user picks the ids). Other failures are returned unchanged; e is not modified.
func ForClaudeCode(e *api.Error, model string) *api.Error {
	if e == nil || e.Condition != api.UnknownModel || !IsClaudeModel(model) {
		return e
	}
	c := *e
	c.Cause = fmt.Sprintf("%q is Claude Code's own model id, which the service does not offer", model)
	c.Fix = remedy.Remedy{Do: remedy.SetClaudeModels}
	return &c
}

// invalid is a 400 naming the field at fault and what to do.
func invalid(field, format string, args ...any) *tr.Error {
	e := tr.Invalid(field, format, args...)
	e.Type = TypeInvalidRequest
	return e
}

// streamError is the error event for a stream that broke off or failed
// (translate.StreamFailure). A cut or a failed connection is an api_error,
// which Claude Code retries (and after a few attempts reports as a server
// error mid-response); an error the service sent mid-stream keeps its type,
// and Claude Code shows its message.
func streamError(err error) *tr.Error {
	e, _ := tr.StreamFailure(err)
	return FromAPIError(e)
}
