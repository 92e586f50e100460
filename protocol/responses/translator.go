package responses

import (
	"errors"
	"io"
	"net/http"
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
type Protocol struct{}

var _ translate.Protocol = Protocol{}

// Name is the protocol's name in the request log.
func (Protocol) Name() string { return "responses" }

// Local refuses every method but POST. (A stored response, GET
// /v1/responses/{id}, is answered here once responses are kept.)
func (Protocol) Local(req *translate.Request, _ translate.Env) (translate.Answer, bool) {
	if req.Method != http.MethodPost {
		a := jsonAnswer(http.StatusMethodNotAllowed, errorJSON("/v1/responses takes POST, not "+req.Method, "invalid_request_error", "", "method_not_allowed"))
		a.Header.Set("Allow", http.MethodPost)
		return a, true
	}
	return translate.Answer{}, false
}

// Translate reads a Responses request. The response's id and creation time
// come from env.
func (Protocol) Translate(req *translate.Request, env translate.Env) (translate.Exchange, *translate.Answer) {
	creq, meta, perr := ParseRequest(req.Body)
	meta.ResponseID = "resp_" + env.ID(24)
	meta.Created = env.Now().Unix()
	ex := &exchange{req: creq, meta: meta}
	if perr != nil {
		a := jsonAnswer(perr.Status, perr.Body())
		return ex, &a
	}
	return ex, nil
}

// Refusal is one of gw serve's own errors, as WriteError writes it.
func (Protocol) Refusal(status int, code, message string) translate.Answer {
	return jsonAnswer(ClientStatus(status), errorJSON(message, typeOf(status), "", code))
}

// jsonAnswer is a JSON body as writeJSON writes it.
func jsonAnswer(status int, body []byte) translate.Answer {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	return translate.Answer{Status: status, Header: h, Body: append(body, '\n')}
}

// exchange is one Responses request.
type exchange struct {
	req  *chat.Request
	meta Meta
}

func (x *exchange) Info() translate.Info {
	i := translate.Info{Model: x.meta.Model, Stream: x.meta.Stream}
	if len(x.meta.DroppedTools) > 0 {
		i.Notes = []string{"dropped=" + strings.Join(x.meta.DroppedTools, ",")}
	}
	return i
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
	status, body := FromAPIError(e)
	return jsonAnswer(status, body)
}

func (x *exchange) Stream(w io.Writer) translate.Stream {
	return &stream{sw: NewStreamWriter(w, x.meta)}
}

func (x *exchange) Finished(*chat.Usage, []byte) {}

// stream is a StreamWriter as a translate.Stream.
type stream struct{ sw *StreamWriter }

func (s *stream) Chunk(c *chat.Chunk) error { return ended(s.sw.Chunk(c)) }
func (s *stream) End(err error) error       { return ended(s.sw.End(err)) }
func (s *stream) Ping() error               { return ended(s.sw.Ping()) }
func (s *stream) Usage() *chat.Usage        { return s.sw.usage }

func ended(err error) error {
	if errors.Is(err, ErrEnded) {
		return translate.ErrEnded
	}
	return err
}
