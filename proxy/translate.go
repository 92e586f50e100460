package proxy

// The protocols gw serve translates onto the service's chat completions, for
// agents that speak no chat completions: the Anthropic Messages API (Claude
// Code), the OpenAI Responses API (Codex) and the Gemini API (Gemini CLI).
// The translators (packages protocol/anthropic, protocol/responses and
// protocol/gemini) do the translation and the route table (routes.go)
// picks one; this file gives it the call to the service, with the key.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/gemini"
	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/reqlog"
)

// translate serves a request of a translated protocol through the loop
// every translator shares (proxy/relay).
func (h *Handler) translate(w http.ResponseWriter, r *http.Request, c *call, tp translate.Protocol) {
	e := &c.entry
	t := &translation{h: h, c: c, ua: r.Header["User-Agent"]}
	// The translator sees the client's context: it ends when the client
	// goes away, and the loop then stops, cancelling its upstream request.
	// gw serve shutting down is not the client going away: it makes the
	// upstream request fail with gw's reason instead, which the translator
	// answers in its protocol (an error, or the stream's error event), so
	// the agent is told why its answer stopped.
	base := r.Context()
	ctx, cancelClient := context.WithCancelCause(context.WithoutCancel(base))
	shut, cancelShut := context.WithCancelCause(context.Background())
	unhook := context.AfterFunc(base, func() {
		if cause := context.Cause(base); errors.Is(cause, ErrShuttingDown) {
			cancelShut(cause)
		} else {
			cancelClient(cause)
		}
	})
	defer func() {
		unhook()
		cancelClient(nil)
		cancelShut(nil)
	}()
	t.shut, t.ctx = shut, ctx
	r = r.WithContext(ctx)

	o := h.relay // a copy: the request's own hooks
	o.Upstream, o.Classify, o.ClassifyTransport, o.Stopping = t.upstream, t.classify, t.classifyTransport, shut
	o.Retry = t.retry
	out := relay.Serve(w, r, tp, &o)
	e.modelID, e.status, e.stream = out.Model, out.Status, out.Stream
	e.note = relay.JoinNote(e.note, out.Note)
	if out.Usage != nil {
		e.usage = usageOf(out.Usage)
		e.hasUsage = true
	}
}

// translation is what a translator is given for one request: the call to
// the service with the key, and the readers of the service's errors.
type translation struct {
	h       *Handler
	c       *call
	retried string          // the optional field the request is being sent again without (retry)
	ua      []string        // the client's User-Agent, passed on as the chat pass-through does
	ctx     context.Context // the client's request: ends when it goes away
	shut    context.Context // done when gw serve stops before the request is finished
}

// shuttingDown is the failure a request cut by gw serve stopping gets:
// unable to connect to API, because of gw serve itself. A translator sees
// it as the upstream call's (or stream's) error.
func shuttingDown(cause string) *api.Error {
	return &api.Error{
		Condition: api.ServiceUnreachable, Kind: api.KindCanceled, Status: http.StatusServiceUnavailable,
		Cause: cause, Fix: remedy.Remedy{Do: remedy.StartServe}, Err: ErrShuttingDown,
	}
}

const stoppedMidAnswer = "gw serve stopped before the service's answer was complete"

// upstream sends the translated chat request to the service: POST
// <upstream>/chat/completions with the real key, over gw serve's
// transport, uncompressed (an SSE stream must not wait in a gzip buffer).
func (t *translation) upstream(ctx context.Context, call *translate.Call) (*http.Response, error) {
	if send, left := t.h.refusals.Apply(call.Chat); len(left) > 0 {
		call = &translate.Call{Chat: send, Extra: call.Extra}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(t.shut, func() { cancel(ErrShuttingDown) })
	release := func() {
		unhook()
		cancel(nil)
	}
	hr, err := relay.NewChatRequest(ctx, t.h.chatURL, call)
	if err != nil {
		release()
		return nil, err
	}
	hr.Header["Authorization"] = t.c.auth
	hr.Header["Accept-Encoding"] = t.h.identity
	hr.Body = headerFirst{hr.Body}
	if t.ua != nil {
		hr.Header["User-Agent"] = t.ua
	}
	res, err := t.h.transport.RoundTrip(hr)
	if err != nil {
		shutting := errors.Is(context.Cause(ctx), ErrShuttingDown)
		release()
		if shutting {
			return nil, shuttingDown(stoppedMidAnswer)
		}
		return nil, err
	}
	if t.retried != "" && res.StatusCode >= 200 && res.StatusCode <= 299 &&
		t.h.refusals.Remember(call.Chat.Model, t.retried) {
		t.c.note = relay.JoinNote(t.c.note, reqlog.Note("refused_from_now_on", t.retried))
	}
	res.Body = &upstreamBody{ReadCloser: res.Body, ctx: ctx, release: release}
	return res, nil
}

// headerFirst hides that a request body is in memory, so that the
// transport writes the header on its own first: on a kept connection the
// service has just closed, that write fails with nothing sent, and the
// transport sends the request again on a new connection (GetBody gives the
// body again). With a body it knows is in memory it writes header and body
// together, and a failure in the body's copy is taken for an error reading
// the body, which it never retries.
type headerFirst struct{ io.ReadCloser }

// retry is asked once about the service's error answer: a 400 that refuses
// one of the optional fields gw adds (cache_control, prompt_cache_key,
// user: chat.RefusedField) is sent again without it, and once that succeeds
// gw serve leaves the field out for that model until it stops — a service
// that does not cache never fails an agent's request for it.
func (t *translation) retry(call *translate.Call, status int, header http.Header, body []byte) (*translate.Call, string) {
	f := chat.RefusedField(status, t.c.scrub.errorBody(header.Clone(), body), call.Chat)
	if f == "" {
		return nil, ""
	}
	t.retried = f
	return &translate.Call{Chat: chat.Without(call.Chat, f), Extra: call.Extra}, "retried_without=" + f
}

// upstreamBody is the service's answer as a translator reads it: a read
// cut by gw serve stopping fails with shuttingDown's error, and Close
// releases the request's context.
type upstreamBody struct {
	io.ReadCloser
	ctx     context.Context
	release func()
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), ErrShuttingDown) {
		err = shuttingDown(stoppedMidAnswer)
	}
	return n, err
}

func (b *upstreamBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// classify reads an error answer of the service for a translator: the key
// is taken out of the service's words first (the translators put them in
// the message the agent shows), and a refused key is explained.
func (t *translation) classify(status int, header http.Header, body []byte, model string) *api.Error {
	body = t.c.scrub.errorBody(header, body)
	ae := api.ClassifyResponse(status, header, body, model)
	if ae != nil {
		t.c.cond = condition(ae.Condition)
	}
	if ae != nil && ae.Condition == api.KeyRejected {
		t.c.note = relay.JoinNote(t.c.note, "rejected="+string(ae.Kind))
	}
	if ae != nil && ae.Condition == api.UnknownModel {
		ae = t.forAccount(ae, model)
	}
	return explainKeyRejected(ae, t.c.key, t.c.from)
}

// forAccount says an unknown model's cause and fix from the account's own
// list of models when gw serve can get it, as the chat pass-through's
// suggestion does: the closest id the account may use, or that the id
// meant is not in its subscription. The catalogue alone could name an id
// the account lacks, and the agent's next request would fail again.
func (t *translation) forAccount(ae *api.Error, model string) *api.Error {
	if t.h.modelIDs == nil || t.ctx == nil {
		return ae
	}
	ids, err := t.h.modelIDs(t.ctx)
	if err != nil || len(ids) == 0 {
		return ae
	}
	me := api.ModelError(model, ids)
	if me == nil {
		return ae // listed, yet refused: the service's own words say more
	}
	e := *ae
	e.Kind, e.Cause, e.Fix = me.Kind, me.Cause, me.Fix
	switch {
	case ae.Status != 0 && ae.ServiceMessage != "":
		e.Cause += fmt.Sprintf(" (the service answered %d: %q)", ae.Status, ae.ServiceMessage)
	case ae.Status != 0:
		e.Cause += fmt.Sprintf(" (the service answered %d)", ae.Status)
	}
	return &e
}

// classifyTransport: the shutdown error as it is, any other failure to
// reach the service classified.
func (t *translation) classifyTransport(err error) *api.Error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		ae = api.ClassifyTransport(err)
	}
	if ae != nil && ae.Kind != api.KindCanceled {
		t.c.cond = condition(ae.Condition)
	}
	return ae
}

// explainKeyRejected says, for a key the service refused, that it is the key
// gw serve sends (masked, and where it came from) and not the agent's local
// token, which gw serve accepted; the fix is said for where the key came
// from. The translators say a fix without knowing that, so the fix said
// here ends the cause and the returned error has none of its own. Other
// errors are returned as they are; e is not modified.
func explainKeyRejected(e *api.Error, key string, from keychain.Source) *api.Error {
	if e == nil || e.Condition != api.KeyRejected || key == "" {
		return e
	}
	x := *e
	sent := "the key gw serve sends (" + keyWords(key, from) + ")"
	said := ""
	if e.ServiceMessage != "" {
		said = fmt.Sprintf(": %q", e.ServiceMessage)
	}
	status := ""
	if e.Status != 0 {
		status = fmt.Sprintf(" (%d)", e.Status)
	}
	switch e.Kind {
	case api.KindNoBalance:
		x.Cause = "the account of " + sent + " has no balance left" + status + said + "; the agent's local token is fine"
	case api.KindWrongKey:
		x.Cause = "the service refused " + sent + " as invalid" + status + said + "; the agent's local token is fine"
	default:
		x.Cause = "the service refused " + sent + status + said +
			": either that key is wrong or the account's balance is exhausted; the agent's local token is fine"
	}
	if fix := serveFix(e.Fix, from); fix != "" {
		x.Cause += " — " + fix
	}
	x.Fix = remedy.Remedy{}
	return &x
}

// keyWords names a key for a message: masked, and where it came from.
func keyWords(key string, from keychain.Source) string {
	s := keychain.Mask(key)
	switch from {
	case keychain.SourceKeychain:
		s += ", from the keychain"
	case keychain.SourceEnv:
		s += ", from " + keychain.EnvVar
	case keychain.SourceFile:
		s += ", from gw's credentials file"
	}
	return s
}

// serveFix is a fix in the words of gw serve's answers to an agent, for a
// key from the source from ("" when not known).
func serveFix(r remedy.Remedy, from keychain.Source) string {
	return render.Text(r, render.Context{Where: render.Serve, Key: from.Fix()})
}

// geminiModels answers the Gemini API's model list (GET /v1beta/models,
// and one model under it) from the account's model ids, which a translator
// cannot ask the service for itself.
func (h *Handler) geminiModels(w http.ResponseWriter, r *http.Request, c *call) {
	e := &c.entry
	var ids []string
	if h.modelIDs != nil {
		listed, err := h.modelIDs(r.Context())
		if err != nil {
			ae := (&translation{h: h, c: c}).classifyTransport(err)
			a := gemini.Protocol{}.Refusal(http.StatusBadGateway, CodeUnreachable, translate.Message(ae))
			e.status = writeAnswer(w, a)
			return
		}
		ids = listed
	}
	if ids == nil {
		ids = api.CatalogIDs()
	}
	a := gemini.Models(r.URL.Path, ids)
	e.modelID = a.Model
	e.status = writeAnswer(w, a)
}

// writeAnswer writes a translator's whole answer; it returns its status.
func writeAnswer(w http.ResponseWriter, a translate.Answer) int {
	hd := w.Header()
	for k, v := range a.Header {
		hd[k] = v
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
	return a.Status
}
