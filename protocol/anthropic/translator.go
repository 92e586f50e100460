package anthropic

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// Protocol is the Messages API (POST …/messages and
// …/messages/count_tokens) as a translator onto the service's chat
// completions; gw serve's loop (proxy/relay) drives it.
type Protocol struct {
	// Billed, when set, remembers what the service billed for recent
	// prompts, so that message_start and count_tokens say a later turn's
	// size from it (chat.BilledPrompts) rather than from the estimate
	// alone. gw serve gives one for its life.
	Billed *chat.BilledPrompts
}

var _ tr.Protocol = Protocol{}

// Name is the protocol's name in the request log.
func (Protocol) Name() string { return "messages" }

// Local answers count_tokens, which the service has no endpoint for, and
// refuses a wrong path or method.
func (p Protocol) Local(req *tr.Request, env tr.Env) (tr.Answer, bool) {
	path := strings.TrimSuffix(req.Path, "/")
	count := strings.HasSuffix(path, "/messages/count_tokens")
	if !count && !strings.HasSuffix(path, "/messages") {
		return errorAnswer(&tr.Error{Status: http.StatusNotFound, Type: TypeNotFound, Final: true,
			Message: "gw serve speaks the Messages API at /v1/messages and /v1/messages/count_tokens only, not " + req.Path}), true
	}
	if req.Method != http.MethodPost {
		a := errorAnswer(&tr.Error{Status: http.StatusMethodNotAllowed, Type: TypeInvalidRequest, Final: true,
			Message: req.Method + " " + req.Path + " is not allowed; send POST"})
		a.Header.Set("Allow", http.MethodPost)
		return a, true
	}
	if !count {
		return tr.Answer{}, false
	}
	creq, meta, perr := ParseRequest(req, env)
	if perr != nil {
		perr.Final = true
		a := errorAnswer(perr)
		a.Model = meta.Model
		return a, true
	}
	meta.InputTokens = p.Billed.InputTokens(creq, meta.InputTokens)
	a := countTokens(meta)
	a.Model = meta.Model
	return a, true
}

// Translate reads a Messages request.
func (p Protocol) Translate(req *tr.Request, env tr.Env) (tr.Exchange, *tr.Answer) {
	creq, meta, perr := ParseRequest(req, env)
	if perr == nil {
		meta.InputTokens = p.Billed.InputTokens(creq, meta.InputTokens)
	}
	ex := &exchange{req: creq, meta: meta, billed: p.Billed}
	if perr != nil {
		perr.Final = true
		a := errorAnswer(perr)
		return ex, &a
	}
	return ex, nil
}

// Refusal is one of gw serve's own errors: final, since no retry fixes it.
func (Protocol) Refusal(status int, _, message string) tr.Answer {
	return errorAnswer(&tr.Error{Status: status, Type: TypeForStatus(status), Message: message, Final: true})
}

// errorAnswer is e as an answer: final, it tells Claude Code not to retry.
func errorAnswer(e *tr.Error) tr.Answer {
	a := tr.JSON(e.Status, "application/json", errorBody(e))
	if e.Final {
		a.Header.Set("X-Should-Retry", "false")
	}
	return a
}

// exchange is one Messages request.
type exchange struct {
	req    *chat.Request
	meta   Meta
	billed *chat.BilledPrompts
}

func (x *exchange) Info() tr.Info {
	return tr.InfoOf(x.meta.Model, x.meta.Stream, x.meta.Dropped)
}

func (x *exchange) Call() *tr.Call { return &tr.Call{Chat: x.req} }

func (x *exchange) Whole(r *chat.Response) (tr.Answer, error) {
	data, err := FromResponse(x.meta, r)
	if err != nil {
		return tr.Answer{}, err
	}
	return tr.JSON(http.StatusOK, "application/json", data), nil
}

// Error is a failure of the service, with the fix for Claude Code's own
// model ids.
func (x *exchange) Error(e *api.Error) tr.Answer {
	return errorAnswer(FromAPIError(ForClaudeCode(withPromptSize(e, x.meta.InputTokens), x.meta.Model)))
}

// withPromptSize gives a context overflow whose words did not say the
// prompt's size the request's own estimate, when that is over the limit:
// Claude Code reads both numbers to decide how much to compact. e is not
// modified.
func withPromptSize(e *api.Error, estimate int) *api.Error {
	if e == nil || e.Kind != api.KindContextOverflow || e.Tokens != 0 || e.Limit == 0 || estimate <= e.Limit {
		return e
	}
	x := *e
	x.Tokens = estimate
	return &x
}

func (x *exchange) Stream(w io.Writer) tr.Stream { return NewStreamWriter(w, x.meta) }

// Finished remembers what the service billed for the prompt, for the
// next turn's message_start.
func (x *exchange) Finished(u *chat.Usage, _ []byte) {
	if u != nil {
		x.billed.Remember(x.req, u.PromptTokens)
	}
}

// countTokens answers count_tokens without asking the service, which has no
// such endpoint: the estimate message_start carries too (chat.EstimateTokens
// of the chat request the Messages request translates to: what the service
// would be sent). It is an estimate, not the model's tokenizer.
func countTokens(meta Meta) tr.Answer {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\"input_tokens\":%d}\n", meta.InputTokens)
	return tr.JSON(http.StatusOK, "application/json", buf.Bytes())
}
