package gemini

import (
	"io"
	"net/http"
	"net/url"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// Protocol is the Gemini API (POST /v1beta/models/{model}:generateContent,
// :streamGenerateContent with alt=sse, :countTokens) as a translator onto
// the service's chat completions; gw serve's loop (proxy/relay) drives it.
// The model listing (GET /v1beta/models) needs the service's list, which a
// translator cannot ask for: gw serve answers it with Models.
type Protocol struct{}

var _ tr.Protocol = Protocol{}

// Name is the protocol's name in the request log.
func (Protocol) Name() string { return "gemini" }

// Local answers countTokens, which the service has no endpoint for, and
// refuses a path, method or stream format it does not serve.
func (Protocol) Local(req *tr.Request, env tr.Env) (tr.Answer, bool) {
	act, model, ok := route(req.Path)
	if !ok {
		return errorAnswer(&tr.Error{Status: http.StatusNotFound, Message: "gw serve speaks the Gemini API at " + Prefix +
			"/{model}:generateContent, :streamGenerateContent and :countTokens, and " + Prefix + " for the models; not " + req.Path}), true
	}
	want := http.MethodPost
	if act == actList || act == actGet {
		want = http.MethodGet
	}
	if req.Method != want {
		a := errorAnswer(&tr.Error{Status: http.StatusMethodNotAllowed, Message: req.Method + " " + req.Path + " is not allowed; send " + want})
		a.Header.Set("Allow", want)
		a.Model = model
		return a, true
	}
	switch act {
	case actList, actGet:
		a := errorAnswer(&tr.Error{Status: http.StatusNotImplemented, Message: "the model list is gw serve's to answer, not the translator's"})
		return a, true
	case actCount:
		return countTokens(req, model, env), true
	case actStream:
		q, _ := url.ParseQuery(req.Query)
		if q.Get("alt") != "sse" {
			a := errorAnswer(invalid("alt", "gw serve streams Gemini answers as server-sent events only; add ?alt=sse (as @google/genai does)"))
			a.Model = model
			return a, true
		}
	}
	return tr.Answer{}, false
}

// Translate reads a generateContent request.
func (Protocol) Translate(req *tr.Request, env tr.Env) (tr.Exchange, *tr.Answer) {
	creq, meta, perr := ParseRequest(req, env)
	ex := &exchange{req: creq, meta: meta, env: env}
	if perr != nil {
		a := errorAnswer(perr)
		return ex, &a
	}
	return ex, nil
}

// Refusal is one of gw serve's own errors in Google's shape.
func (Protocol) Refusal(status int, _, message string) tr.Answer {
	return errorAnswer(&tr.Error{Status: status, Message: message})
}

// exchange is one generateContent request.
type exchange struct {
	req  *chat.Request
	meta Meta
	env  tr.Env
}

func (x *exchange) Info() tr.Info {
	return tr.InfoOf(x.meta.Model, x.meta.Stream, x.meta.Dropped)
}

func (x *exchange) Call() *tr.Call { return &tr.Call{Chat: x.req, Extra: x.meta.Extra} }

func (x *exchange) Whole(r *chat.Response) (tr.Answer, error) {
	data, err := FromResponse(x.answer(), r)
	if err != nil {
		return tr.Answer{}, err
	}
	return tr.JSON(http.StatusOK, jsonType, data), nil
}

func (x *exchange) Error(e *api.Error) tr.Answer { return errorAnswer(FromAPIError(e)) }

func (x *exchange) Stream(w io.Writer) tr.Stream {
	return NewStreamWriter(w, x.answer())
}

func (x *exchange) Finished(*chat.Usage, []byte) {}

// answer is the Meta of an answer: with a fresh responseId, in Gemini's
// length.
func (x *exchange) answer() Meta {
	m := x.meta
	m.ResponseID = x.env.ID(22)
	return m
}
