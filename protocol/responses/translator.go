package responses

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/translate"
)

// Protocol is the Responses API (POST /v1/responses) as a translator onto
// the service's chat completions; gw serve's loop (proxy/relay) drives it.
// Errors reach the client in the Responses API's shape: bad input as a 400
// naming the field, the service's failures with the spec's message first
// (see FromAPIError), a failure after the stream began as response.failed.
//
// With a Store, answers are kept as the API keeps them (store: true, the
// default): GET and DELETE /v1/responses/{id} (and its input_items) are
// answered from it, and previous_response_id and item_reference are resolved
// against it; without one (nil), nothing is kept and both are refused.
type Protocol struct {
	Store *Store
}

var _ translate.Protocol = Protocol{}

// Name is the protocol's name in the request log.
func (Protocol) Name() string { return "responses" }

// Local answers a kept response (GET or DELETE /v1/responses/{id}, its
// input_items) and refuses every method but POST on /v1/responses.
func (p Protocol) Local(req *translate.Request, _ translate.Env) (translate.Answer, bool) {
	if status, body, ok := p.Store.Answer(req.Method, &url.URL{Path: req.Path, RawQuery: req.Query}); ok {
		return jsonAnswer(status, body), true
	}
	if strings.HasPrefix(req.Path, "/v1/responses/") && req.Path != "/v1/responses/" {
		return jsonAnswer(http.StatusNotFound, errorJSON("gw serve speaks the Responses API at /v1/responses and /v1/responses/{id} only, not "+req.Path, "invalid_request_error", "", "not_found")), true
	}
	if req.Method != http.MethodPost {
		a := jsonAnswer(http.StatusMethodNotAllowed, errorJSON("/v1/responses takes POST, not "+req.Method, "invalid_request_error", "", "method_not_allowed"))
		a.Header.Set("Allow", http.MethodPost)
		return a, true
	}
	return translate.Answer{}, false
}

// Translate reads a Responses request. The response's id and creation time
// come from env.
func (p Protocol) Translate(req *translate.Request, env translate.Env) (translate.Exchange, *translate.Answer) {
	creq, meta, turn, perr := p.Store.Parse(req, env)
	ex := &exchange{req: creq, meta: meta, store: p.Store, turn: turn}
	if perr != nil {
		a := jsonAnswer(perr.Status, errorBody(perr))
		return ex, &a
	}
	return ex, nil
}

// Refusal is one of gw serve's own errors (no key stored, a refused local
// token…): the status through ClientStatus, the body in OpenAI's shape
// with code.
func (Protocol) Refusal(status int, code, message string) translate.Answer {
	return jsonAnswer(ClientStatus(status), errorJSON(message, typeOf(status), "", code))
}

// jsonAnswer is a JSON body as writeJSON writes it.
func jsonAnswer(status int, body []byte) translate.Answer {
	a := translate.JSON(status, "application/json", append(body, '\n'))
	a.Header.Set("Content-Length", strconv.Itoa(len(a.Body)))
	return a
}

// exchange is one Responses request.
type exchange struct {
	req   *chat.Request
	meta  Meta
	store *Store
	turn  Turn
	sw    *StreamWriter // the streamed answer, once begun
}

func (x *exchange) Info() translate.Info {
	return translate.InfoOf(x.meta.Model, x.meta.Stream, append(append([]string(nil), x.meta.DroppedTools...), x.meta.Dropped...))
}

func (x *exchange) Call() *translate.Call { return &translate.Call{Chat: x.req} }

func (x *exchange) Whole(r *chat.Response) (translate.Answer, error) {
	out, err := FromResponse(x.meta, r)
	if err != nil {
		return translate.Answer{}, err
	}
	return jsonAnswer(http.StatusOK, out), nil
}

func (x *exchange) Error(e *api.Error) translate.Answer {
	pe := FromAPIError(e)
	return jsonAnswer(pe.Status, errorBody(pe))
}

func (x *exchange) Stream(w io.Writer) translate.Stream {
	x.sw = NewStreamWriter(w, x.meta)
	return x.sw
}

// Finished keeps the answer in the Store: the response object the client
// got, whole or as the stream's last event.
func (x *exchange) Finished(_ *chat.Usage, whole []byte) {
	if x.store == nil || !x.turn.Store {
		return // Record keeps nothing: the streamed response is not encoded again
	}
	if whole == nil && x.sw != nil {
		whole = x.sw.Response()
	}
	x.store.Record(x.turn, whole)
}
