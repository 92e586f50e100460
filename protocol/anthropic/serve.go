package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/protocol/chat"
)

// Upstream sends a chat-completions request to the service, with the real
// key, and returns its answer (any status). gw serve supplies it.
type Upstream func(ctx context.Context, req *chat.Request) (*http.Response, error)

// Defaults of Handler.
const (
	DefaultPingInterval = 5 * time.Second
	DefaultMaxBody      = 32 << 20 // Anthropic's own request limit
	maxErrorBody        = 64 << 10
	maxAnswerBody       = 64 << 20
)

// Handler serves the Messages API (POST …/messages and
// …/messages/count_tokens) on top of the service's chat completions. The
// proxy routes the paths to it after its own checks (local token, host,
// origin) and supplies Upstream.
type Handler struct {
	Upstream Upstream
	// Classify reads an error answer of the service; nil is
	// api.ClassifyResponse. gw serve passes one whose fixes name where the
	// key came from.
	Classify func(status int, header http.Header, body []byte, model string) *api.Error
	// ClassifyTransport reads a failure to reach the service; nil is
	// api.ClassifyTransport.
	ClassifyTransport func(err error) *api.Error
	// PingInterval is how long a stream may be idle before a ping; 0 is
	// DefaultPingInterval.
	PingInterval time.Duration
	// MaxBody bounds a request body; 0 is DefaultMaxBody.
	MaxBody int64
}

// Outcome is what the request log needs of one request.
type Outcome struct {
	Model  string      // as the client sent it
	Status int         // the HTTP status answered; 499 when the client went away first
	Stream bool        // answered as a stream
	Usage  *chat.Usage // as the service reported it; nil when it did not
	// Note says what else happened, log-ready: "dropped=top_k",
	// "aborted=upstream_stream_broken", "aborted=client_gone".
	Note string
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.Serve(w, r) }

// Serve answers one request.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) Outcome {
	path := strings.TrimSuffix(r.URL.Path, "/")
	count := strings.HasSuffix(path, "/messages/count_tokens")
	if !count && !strings.HasSuffix(path, "/messages") {
		return h.fail(w, Outcome{}, &Error{Status: http.StatusNotFound, Type: TypeNotFound, Final: true,
			Message: "gw serve speaks the Messages API at /v1/messages and /v1/messages/count_tokens only, not " + r.URL.Path})
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return h.fail(w, Outcome{}, &Error{Status: http.StatusMethodNotAllowed, Type: TypeInvalidRequest, Final: true,
			Message: r.Method + " " + r.URL.Path + " is not allowed; send POST"})
	}
	limit := h.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return Outcome{Status: 499, Note: "aborted=client_gone"}
	}
	if int64(len(body)) > limit {
		return h.fail(w, Outcome{}, &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeRequestTooLarge, Final: true,
			Message: fmt.Sprintf("the request body is larger than %d MiB; send fewer or smaller images and files", limit>>20)})
	}
	req, meta, perr := ParseRequest(body)
	out := Outcome{Model: meta.Model}
	if len(meta.Dropped) > 0 {
		out.Note = "dropped=" + strings.Join(meta.Dropped, ",")
	}
	if perr != nil {
		perr.Final = true
		return h.fail(w, out, perr)
	}
	if count {
		return countTokens(w, out, req)
	}

	resp, err := h.Upstream(r.Context(), req)
	if err != nil {
		if r.Context().Err() != nil {
			out.Status, out.Note = 499, "aborted=client_gone"
			return out
		}
		return h.fail(w, out, FromAPIError(h.classifyTransport(err)))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return h.fail(w, out, h.serviceError(resp.StatusCode, resp.Header, b, meta.Model))
	}
	if meta.Stream {
		return h.stream(w, r, out, meta, resp)
	}
	return h.whole(w, out, meta, resp)
}

func (h *Handler) fail(w http.ResponseWriter, out Outcome, e *Error) Outcome {
	WriteError(w, e)
	out.Status = e.Status
	return out
}

func (h *Handler) classifyTransport(err error) *api.Error {
	if h.ClassifyTransport != nil {
		if e := h.ClassifyTransport(err); e != nil {
			return e
		}
	}
	return api.ClassifyTransport(err)
}

// serviceError classifies an error answer of the service, with the fix for
// Claude Code's own model ids.
func (h *Handler) serviceError(status int, header http.Header, body []byte, model string) *Error {
	classify := h.Classify
	if classify == nil {
		classify = api.ClassifyResponse
	}
	e := classify(status, header, body, model)
	if e == nil {
		if status < 300 {
			status = http.StatusBadGateway
		}
		e = &api.Error{Status: status, Kind: api.KindOther, Cause: fmt.Sprintf("the service answered %d without saying why", status)}
	}
	return FromAPIError(ForClaudeCode(e, model))
}

// whole answers a request that did not ask for a stream.
func (h *Handler) whole(w http.ResponseWriter, out Outcome, meta Meta, resp *http.Response) Outcome {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBody))
	if err != nil {
		return h.fail(w, out, streamError(err))
	}
	var cr struct {
		chat.Response
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &cr); err != nil {
		return h.fail(w, out, badAnswer("is not a chat completion"))
	}
	if !isNull(cr.Error) {
		return h.fail(w, out, h.serviceError(resp.StatusCode, resp.Header, b, meta.Model))
	}
	data, err := FromResponse(meta, &cr.Response)
	if err != nil {
		return h.fail(w, out, badAnswer("has no choices"))
	}
	out.Usage = cr.Usage
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
	out.Status = http.StatusOK
	return out
}

func badAnswer(what string) *Error {
	return &Error{Status: http.StatusBadGateway, Type: TypeAPI,
		Message: "unable to connect to API: the service's answer " + what + " — retry; if it keeps happening, run: gw doctor"}
}

// event is one read from the service's stream.
type event struct {
	data []byte
	err  error
}

// stream answers a streamed request as the service's chunks arrive, with a
// ping whenever the stream has been idle for the ping interval.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, out Outcome, meta Meta, resp *http.Response) Outcome {
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "json") {
		// A service that ignored stream: true; its whole answer becomes
		// the stream.
		return h.streamWhole(w, out, meta, resp)
	}
	rc := http.NewResponseController(w)
	sw := NewStreamWriter(w, meta)
	// The answer's header waits for the service's first event or the first
	// ping, so that a service failing at once is an HTTP error, which
	// clients show as such, rather than a stream breaking off.
	begun := false
	begin := func() {
		if begun {
			return
		}
		begun = true
		hd := w.Header()
		hd.Set("Content-Type", "text/event-stream; charset=utf-8")
		hd.Set("Cache-Control", "no-cache")
		hd.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		out.Status, out.Stream = http.StatusOK, true
	}
	flushed := func(err error) error {
		if err == nil {
			err = rc.Flush()
		}
		return err
	}
	// finish ends the answer with err (nil: a whole answer).
	finish := func(err error, note string) Outcome {
		out.Note = joinNote(out.Note, note)
		if !begun && err != nil {
			return h.fail(w, out, streamError(err))
		}
		begin()
		_ = flushed(sw.End(err))
		out.Usage = sw.Usage()
		return out
	}
	gone := func() Outcome {
		out.Note = joinNote(out.Note, "aborted=client_gone")
		out.Usage = sw.Usage()
		if !begun {
			out.Status = 499
		}
		return out
	}

	events := make(chan event)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		s := chat.NewStream(resp.Body)
		for {
			data, err := s.Next()
			select {
			case events <- event{data, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	every := h.PingInterval
	if every <= 0 {
		every = DefaultPingInterval
	}
	idle := time.NewTimer(every)
	defer idle.Stop()
	for {
		select {
		case <-r.Context().Done():
			return gone()
		case <-idle.C:
			begin()
			if flushed(sw.Ping()) != nil {
				return gone()
			}
			idle.Reset(every)
		case ev := <-events:
			idle.Reset(every)
			switch {
			case ev.err == nil:
			case r.Context().Err() != nil:
				return gone()
			case errors.Is(ev.err, io.EOF):
				return finish(nil, "")
			default:
				return finish(ev.err, "aborted=upstream_stream_broken")
			}
			var c struct {
				chat.Chunk
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(ev.data, &c); err != nil {
				return finish(badAnswer("stream sent an event that is not a chat chunk"), "aborted=upstream_error")
			}
			if !isNull(c.Error) {
				return finish(h.serviceError(http.StatusOK, resp.Header, ev.data, meta.Model), "aborted=upstream_error")
			}
			begin()
			if err := flushed(sw.Chunk(&c.Chunk)); err != nil {
				if errors.Is(err, ErrEnded) {
					out.Usage = sw.Usage()
					return out
				}
				return gone()
			}
		}
	}
}

// streamWhole streams a whole chat completion the service sent instead of
// a stream.
func (h *Handler) streamWhole(w http.ResponseWriter, out Outcome, meta Meta, resp *http.Response) Outcome {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBody))
	var cr struct {
		chat.Response
		Error json.RawMessage `json:"error"`
	}
	switch {
	case err != nil:
		return h.fail(w, out, streamError(err))
	case json.Unmarshal(b, &cr) != nil:
		return h.fail(w, out, badAnswer("is not a chat completion"))
	case !isNull(cr.Error):
		return h.fail(w, out, h.serviceError(resp.StatusCode, resp.Header, b, meta.Model))
	case len(cr.Choices) == 0:
		return h.fail(w, out, badAnswer("has no choices"))
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	out.Status, out.Stream, out.Usage = http.StatusOK, true, cr.Usage
	sw := NewStreamWriter(w, meta)
	_ = sw.Chunk(chunkOf(&cr.Response))
	_ = sw.End(nil)
	return out
}

// chunkOf is a whole answer as one chunk.
func chunkOf(r *chat.Response) *chat.Chunk {
	c := r.Choices[0]
	m := c.Message
	d := chat.Delta{Content: m.Content, Refusal: m.Refusal}
	if s := m.ReasoningText(); s != "" {
		d.ReasoningContent = &s
	}
	for i, tc := range m.ToolCalls {
		td := chat.ToolCallDelta{Index: i, ID: tc.ID, Type: "function"}
		td.Function.Name, td.Function.Arguments = tc.Function.Name, tc.Function.Arguments
		d.ToolCalls = append(d.ToolCalls, td)
	}
	finish := c.FinishReason
	return &chat.Chunk{ID: r.ID, Model: r.Model, Usage: r.Usage,
		Choices: []chat.ChunkChoice{{Delta: d, FinishReason: &finish, StopReason: c.StopReason}}}
}

func joinNote(a, b string) string { return joinNonEmpty(a, b, " ") }

// countTokens answers count_tokens without asking the service, which has no
// such endpoint: an estimate of one token per 4 bytes of the chat request
// the Messages request translates to (what the service would be sent). It
// is an estimate, not the model's tokenizer.
func countTokens(w http.ResponseWriter, out Outcome, req *chat.Request) Outcome {
	req.Stream, req.StreamOptions = false, nil
	b, _ := json.Marshal(req)
	n := (len(b) + 3) / 4
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\"input_tokens\":%d}\n", n)
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	out.Status = http.StatusOK
	return out
}
