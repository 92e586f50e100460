package gemini

import (
	"net/http"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// errorBody is e in Google's error shape:
// {"error":{"code":…,"message":…,"status":…}}; e.Type is Google's status
// name, "" the one of e.Status (StatusOf).
func errorBody(e *tr.Error) []byte {
	status := e.Type
	if status == "" {
		status = StatusOf(e.Status)
	}
	b, _ := chat.Encode(errorOut{Error: errorDetail{Code: e.Status, Message: e.Message, Status: status}})
	return b
}

type errorOut struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

var statusNames = map[int]string{
	http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusRequestEntityTooLarge: "INVALID_ARGUMENT",
	http.StatusUnauthorized: "UNAUTHENTICATED", http.StatusPaymentRequired: "FAILED_PRECONDITION",
	http.StatusForbidden: "PERMISSION_DENIED", http.StatusNotFound: "NOT_FOUND",
	http.StatusMethodNotAllowed: "UNIMPLEMENTED", http.StatusNotImplemented: "UNIMPLEMENTED",
	http.StatusConflict: "ABORTED", http.StatusTooManyRequests: "RESOURCE_EXHAUSTED", 499: "CANCELLED",
	http.StatusServiceUnavailable: "UNAVAILABLE", http.StatusBadGateway: "UNAVAILABLE",
	http.StatusGatewayTimeout: "DEADLINE_EXCEEDED",
}

// StatusOf is Google's status name (google.rpc.Code) for an HTTP status.
func StatusOf(code int) string {
	if s, ok := statusNames[code]; ok {
		return s
	}
	if code >= 400 && code < 500 {
		return "FAILED_PRECONDITION"
	}
	return "INTERNAL"
}

// jsonType is the Content-Type of Google's JSON answers.
const jsonType = "application/json; charset=UTF-8"

// errorAnswer is e as a whole answer.
func errorAnswer(e *tr.Error) tr.Answer {
	return tr.JSON(e.Status, jsonType, errorBody(e))
}

// FromAPIError is gw's classified failure of the service as a Gemini API
// error: the spec's message for the condition, then gw's cause, then the
// fix ("API key invalid or unauthorized: … — run gw auth login"). The code
// is the service's status (502 when it sent its error with 200), except
// for the spec's three conditions, which Gemini CLI must show at once: it
// retries a 429 and every 5xx, ten times over about two minutes and
// silently, and no retry fixes these.
//
//   - A service gw serve could not reach is a 400 FAILED_PRECONDITION (as
//     Google's API answers a request its environment cannot serve), not a
//     502 or 504.
//   - An unknown model is a 400, whatever the service answered: Gemini CLI
//     also classifies every 404 as its own model not found and applies its
//     model-fallback policy to it, which hides the fix.
//   - A rejected key is a 401, an exhausted balance a 402, also when the
//     service said so with a 429 (OpenAI's insufficient_quota) or a 5xx.
//
// A rate limit and the service's own 5xx (overloaded) keep their status,
// and Gemini CLI retries them.
func FromAPIError(e *api.Error) *tr.Error {
	code := e.Status
	status := ""
	switch {
	case e.Condition == api.ServiceUnreachable:
		code, status = http.StatusBadRequest, "FAILED_PRECONDITION"
	case e.Kind == api.KindContextOverflow:
		code = http.StatusBadRequest // also when it came with 200 or inside a stream: no retry fixes it
	case e.Kind == api.KindRateLimited:
		code = http.StatusTooManyRequests
	case e.Condition == api.UnknownModel:
		code = http.StatusBadRequest
	case e.Condition == api.KeyRejected && (code < 400 || code == http.StatusTooManyRequests || code >= 500):
		code = http.StatusUnauthorized
		if e.Kind == api.KindNoBalance {
			code = http.StatusPaymentRequired
		}
	case code < 400:
		code = http.StatusBadGateway
	}
	return &tr.Error{Status: code, Message: tr.Message(e), Type: status}
}

// invalid is a 400 naming the field at fault and what to do.
func invalid(field, format string, args ...any) *tr.Error { return tr.Invalid(field, format, args...) }

// streamError is a stream that broke off or failed (translate.StreamFailure)
// as Google's error. An answer the connection cut (it ended early, was reset,
// timed out, its read cancelled) is a 502 UNAVAILABLE, which Gemini CLI
// retries, as Claude Code and Codex retry theirs: a new request usually gets
// through. A failure the service reported is said as before the answer began
// (FromAPIError).
func streamError(err error) *tr.Error {
	ae, broke := tr.StreamFailure(err)
	e := FromAPIError(ae)
	if broke {
		e.Status, e.Type = http.StatusBadGateway, ""
	}
	return e
}
