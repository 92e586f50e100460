package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"
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

// stream answers a streamed request as the service's chunks arrive, with a
// ping whenever the stream has been idle for the ping interval. The
// service's stream is read and translated in this goroutine; what is
// written is flushed when the stream has nothing more to give without
// waiting (chat.Stream.BeforeWait), so that events which arrived together
// leave in one write. The pings come from a timer, serialised with the
// chunks by a lock.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, out Outcome, meta Meta, resp *http.Response) Outcome {
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "json") {
		// A service that ignored stream: true; its whole answer becomes
		// the stream.
		return h.streamWhole(w, out, meta, resp)
	}
	s := &streamer{h: h, w: w, rc: http.NewResponseController(w), r: r, resp: resp, meta: meta,
		sw: NewStreamWriter(w, meta), out: out}
	// A client that goes away while the service is silent stops the read.
	defer context.AfterFunc(r.Context(), func() { resp.Body.Close() })()
	every := h.PingInterval
	if every <= 0 {
		every = DefaultPingInterval
	}
	// s.idle is set under the lock that ping takes first, so that the
	// timer's function sees it even when it fires at once.
	s.mu.Lock()
	idle := time.AfterFunc(every, func() {
		if s.ping() {
			s.idle.Reset(every)
		}
	})
	s.idle = idle
	s.mu.Unlock()
	defer idle.Stop()

	st := chat.NewStream(resp.Body)
	defer st.Release()
	st.BeforeWait = func() {
		s.mu.Lock()
		s.flush()
		s.mu.Unlock()
	}
	for {
		data, err := st.Next()
		s.mu.Lock()
		done := s.handle(data, err)
		s.mu.Unlock()
		if done {
			if errors.Is(err, io.EOF) {
				st.Drain(resp.Body)
			}
			return s.out
		}
		idle.Reset(every)
	}
}

// streamer is the state of one streamed answer. Its methods but ping are
// called with mu held.
type streamer struct {
	h    *Handler
	w    http.ResponseWriter
	rc   *http.ResponseController
	r    *http.Request
	resp *http.Response
	meta Meta
	sw   *StreamWriter
	out  Outcome
	ev   chat.Event // reused

	mu    sync.Mutex
	idle  *time.Timer // the pings' timer
	begun bool        // the answer's header is written
	dirty bool        // events written since the last flush
	ended bool        // nothing more is written
	lost  error       // a write or flush failed: the client is gone
}

// begin writes the answer's header, once. It waits for the service's first
// event or the first ping, so that a service failing at once is an HTTP
// error, which clients show as such, rather than a stream breaking off.
func (s *streamer) begin() {
	if s.begun {
		return
	}
	s.begun = true
	hd := s.w.Header()
	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	s.out.Status, s.out.Stream = http.StatusOK, true
}

// wrote records that the writer wrote, and whether that failed.
func (s *streamer) wrote(err error) {
	s.dirty = true
	if err != nil && s.lost == nil && !errors.Is(err, ErrEnded) {
		s.lost = err
	}
}

func (s *streamer) flush() {
	if s.dirty && s.lost == nil {
		s.dirty = false
		s.lost = s.rc.Flush()
	}
}

// ping writes a ping, from the idle timer; false: no more pings.
func (s *streamer) ping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || s.lost != nil {
		return false
	}
	s.begin()
	s.wrote(s.sw.Ping())
	s.flush()
	if s.lost != nil {
		s.resp.Body.Close() // the client is gone: stop waiting for the service
		return false
	}
	return true
}

// handle translates one read of the service's stream; true: the answer is
// over, and s.out says how.
func (s *streamer) handle(data []byte, err error) bool {
	switch {
	case s.lost != nil || s.r.Context().Err() != nil:
		s.gone()
		return true
	case err == nil:
	case errors.Is(err, io.EOF):
		s.finish(nil, "")
		return true
	default:
		s.finish(err, "aborted=upstream_stream_broken")
		return true
	}
	if chat.ParseEvent(data, &s.ev) != nil {
		s.finish(badAnswer("stream sent an event that is not a chat chunk"), "aborted=upstream_error")
		return true
	}
	if s.ev.IsError() {
		s.finish(s.h.serviceError(http.StatusOK, s.resp.Header, data, s.meta.Model), "aborted=upstream_error")
		return true
	}
	s.begin()
	err = s.sw.Chunk(&s.ev.Chunk)
	if errors.Is(err, ErrEnded) {
		s.ended = true
		s.out.Usage = s.sw.Usage()
		return true
	}
	s.wrote(err)
	if s.lost != nil {
		s.gone()
		return true
	}
	return false
}

// finish ends the answer with err (nil: a whole answer).
func (s *streamer) finish(err error, note string) {
	s.ended = true
	s.out.Note = joinNote(s.out.Note, note)
	if !s.begun && err != nil {
		s.out = s.h.fail(s.w, s.out, streamError(err))
		return
	}
	s.begin()
	s.wrote(s.sw.End(err))
	s.flush()
	s.out.Usage = s.sw.Usage()
}

// gone ends an answer whose client went away.
func (s *streamer) gone() {
	s.ended = true
	s.out.Note = joinNote(s.out.Note, "aborted=client_gone")
	s.out.Usage = s.sw.Usage()
	if !s.begun {
		s.out.Status = 499
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
	return &chat.Chunk{ID: r.ID, Usage: r.Usage,
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
