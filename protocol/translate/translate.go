// Package translate is the one shape of every client protocol gw serve
// translates onto the service's chat completions (the Messages API in
// protocol/anthropic, the Responses API and Codex's compaction in
// protocol/responses, the Gemini API in protocol/gemini; another protocol
// is one more implementation of Protocol and its routes in gw serve's
// route table). A translator is pure:
// it reads and writes bytes and Go values and does no I/O of its own, reads
// no clock and makes no random ids (Env gives them). Every translator reads a
// request the same way — ParseRequest(req *Request, env Env) (*chat.Request,
// Meta, *Error) — and refuses with the one Error (Invalid makes one for a
// field at fault), which it says in its protocol's error shape; its
// StreamWriter is a Stream that writes what chat.Assembler reads in the
// service's chunks. A failure of the service is told in the same words in
// every protocol (Message; a context overflow in the protocol's own), and
// what a stream that broke off mid-answer is told is decided here once
// (StreamFailure): a protocol only chooses its status and type and says it
// in its shape. The loop that drives it —
// reading the client's request, calling the service, pings, flushes, limits,
// the client hanging up — is gw serve's (package proxy/relay), the same for
// every protocol.
package translate

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/protocol/chat"
)

// Request is a client's request as the loop read it.
type Request struct {
	Method string
	Path   string      // the URL's path as the client sent it: /v1/messages/count_tokens
	Query  string      // the raw query, without "?"
	Header http.Header // the client's headers; read only
	Body   []byte      // decoded (gzip) and bounded by the loop; read only
}

// Env is what a translator must not make itself: the time, and fresh ids.
type Env struct {
	Now func() time.Time
	// ID is a fresh random id of n hex digits.
	ID func(n int) string
}

// Answer is a whole HTTP answer: a local one, an error, or a whole (not
// streamed) translated answer.
type Answer struct {
	Status int
	Header http.Header // all of them: Content-Type too
	Body   []byte
	// Model is the model the request named, for the request log of an
	// answer Local gave; "" when none.
	Model string
}

// Protocol is one client API translated onto chat completions. One value
// serves every request of its routes, concurrently.
type Protocol interface {
	// Name is the protocol's name in the request log: "messages".
	Name() string
	// Local answers a request the service is not asked for: one the
	// protocol answers itself (Messages count_tokens, a stored response),
	// or refuses before translating (a wrong method or path). handled false:
	// the request goes on to Translate.
	Local(req *Request, env Env) (answer Answer, handled bool)
	// Translate reads the client's request. A request it refuses comes
	// back as refused, with the Exchange when the request named its model
	// (for the log) and nil otherwise.
	Translate(req *Request, env Env) (ex Exchange, refused *Answer)
	// Refusal is one of gw serve's own errors in the protocol's shape
	// (a refused local token, no key stored, a request body too large):
	// code is gw's code for it ("request_too_large"), message the words.
	Refusal(status int, code, message string) Answer
}

// Exchange is one request being translated: what is sent to the service,
// and how each answer of the service is said to the client.
type Exchange interface {
	// Info is what the request log says of the request.
	Info() Info
	// Call is the chat request for the service. The loop may send a
	// modified copy once more (a service that refused a field).
	Call() *Call
	// Whole is the client's answer to the service's whole chat completion
	// (a request that did not ask for a stream); an error: the completion
	// cannot be translated (it has no choice).
	Whole(r *chat.Response) (Answer, error)
	// Stream begins the streamed answer, written to w (the loop's; it
	// flushes).
	Stream(w io.Writer) Stream
	// Error is a failure of the service (or of reaching it) before the
	// answer began, as the client's error answer. The loop adds the
	// service's Retry-After and retry-after-ms headers.
	Error(e *api.Error) Answer
	// Finished is called once the client has the whole answer (not after a
	// failure): usage is the service's count, whole the answer's body when
	// it was not streamed. A protocol that keeps answers (the Responses
	// API's store) keeps it here.
	Finished(usage *chat.Usage, whole []byte)
}

// Info is what the request log says of a translated request.
type Info struct {
	Model  string // as the client sent it
	Stream bool   // the client asked for a stream
	// Notes are log-ready words of what else happened: "dropped=top_k".
	Notes []string
}

// InfoOf is the Info of a request for model, the fields it dropped noted as
// "dropped=a,b".
func InfoOf(model string, stream bool, dropped []string) Info {
	i := Info{Model: model, Stream: stream}
	if len(dropped) > 0 {
		i.Notes = []string{"dropped=" + strings.Join(dropped, ",")}
	}
	return i
}

// Plural is "1 word" or "n words".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Call is the chat-completions request sent to the service.
type Call struct {
	Chat *chat.Request
	// Extra are top-level fields sent as they are besides Chat's own (a
	// field the client sent that chat.Request has no place for); a field
	// Chat sets wins.
	Extra map[string]json.RawMessage
}

// Stream writes one streamed answer. It is not safe for concurrent use: the
// loop serialises its pings with the chunks.
type Stream interface {
	// Chunk translates one chunk of the service's stream. An error means
	// the loop stops: writing failed (the client is gone), or ErrEnded.
	Chunk(c *chat.Chunk) error
	// End ends the answer with its one terminal event: err nil, the
	// service's stream ended normally ([DONE]); otherwise the stream broke
	// off or failed (an *api.Error, io.ErrUnexpectedEOF, a transport
	// error), and the client is told so in the protocol's error event
	// (StreamFailure).
	// Calls after the first do nothing.
	End(err error) error
	// Ping writes traffic that keeps an idle stream open; clients ignore it.
	// After End it returns ErrEnded.
	Ping() error
	// Usage is the usage the service reported so far, nil when none.
	Usage() *chat.Usage
}

// ErrEnded is returned by a Stream used after its answer ended.
var ErrEnded = errors.New("the answer has ended")

// OneChunk is a whole chat completion as one chunk of a stream: what a
// stream is given when the service answered a streamed request whole (its
// reasoning in every dialect and its tool calls' thought signatures kept).
// nil when r has no choice.
func OneChunk(r *chat.Response) *chat.Chunk {
	if len(r.Choices) == 0 {
		return nil
	}
	return chat.ChunkOf(r)
}

// JSON is a whole JSON answer, with the headers every JSON answer of gw
// serve's has: contentType ("application/json", or with its charset as a
// protocol sends it), no caching, no sniffing.
func JSON(status int, contentType string, body []byte) Answer {
	h := http.Header{}
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	return Answer{Status: status, Header: h, Body: body}
}

// Error is a request a translator refuses, or a failure it answers, before
// it is said in the protocol's error shape (each translator writes its own
// body from it).
type Error struct {
	Status int // the HTTP status
	// Type is the protocol's name of the error: the Messages and Responses
	// APIs' type (invalid_request_error), Google's status (INVALID_ARGUMENT);
	// "" takes the protocol's name for Status.
	Type    string
	Code    string // the Responses API's code (model_not_found); "" none
	Param   string // the Responses API's param, the field at fault; "" none
	Message string
	// Final asks the client not to retry (the Messages API's
	// x-should-retry: false).
	Final bool
}

func (e *Error) Error() string { return e.Message }

// Invalid is a 400 naming the field at fault ("" none) and what to do:
// "messages.0.content: must be a string or an array". A protocol adds its
// own type and code.
func Invalid(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Status: http.StatusBadRequest, Message: msg}
}

// Message is what a client is told of a classified failure of the service
// (or of reaching it), in every protocol: the spec's message for the
// condition, gw's cause, then what to do, said for an agent's user
// (render.Serve): "API key invalid or unauthorized: the service refused the
// key … — create a new key on the dashboard and run: gw auth login". A
// protocol with its own words for a context overflow says that itself.
func Message(e *api.Error) string {
	msg := e.Error()
	if msg == "" {
		msg = "the service failed"
	}
	if fix := render.Text(e.Fix, render.Context{Where: render.Serve}); fix != "" {
		msg += " — " + fix
	}
	return msg
}

// StreamFailure is the failure that ended a streamed answer after it began
// (Stream.End's err), decided once for every protocol, which says it in its
// shape as it says any failure (its FromAPIError, with Message's words).
//
// A failure reported in the stream or by gw serve (an *api.Error: the
// service's error event, one of gw serve's limits, a silent service, gw
// serve stopping) is itself, and broke is false. Otherwise the service's
// stream broke off, and broke is true: the service unreachable, the spec's
// message first, in words that say the answer had begun, and what to do:
//
//   - it ended early (io.ErrUnexpectedEOF, Kind reset): "unable to connect
//     to API: the service's stream broke off before the answer was complete
//     — retry; …";
//   - its connection was reset (Kind reset): "…: the service's stream broke
//     off: the connection was cut before the answer was complete — …", not
//     "closed before it answered";
//   - another failure of the connection, as api.ClassifyTransport names it:
//     "…: the service's stream broke off: " and its cause;
//   - one it does not name as the service unreachable (a cancelled read,
//     its Kind kept): "…: the service's stream failed: " and err.
//
// err is not nil.
func StreamFailure(err error) (e *api.Error, broke bool) {
	if errors.As(err, &e) {
		return e, false
	}
	retry := remedy.Remedy{Do: remedy.RetryStream}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindReset, Err: err, Fix: retry,
			Cause: "the service's stream broke off before the answer was complete"}, true
	}
	c := *api.ClassifyTransport(err)
	switch {
	case c.Condition == "":
		c.Condition, c.Fix, c.Cause = api.ServiceUnreachable, retry, "the service's stream failed: "+err.Error()
	case c.Kind == api.KindReset:
		c.Cause = "the service's stream broke off: the connection was cut before the answer was complete"
	default:
		c.Cause = "the service's stream broke off: " + c.Cause
	}
	return &c, true
}
