package responses

import (
	"bytes"
	"compress/gzip"
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
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/protocol/chat"
)

// Upstream sends a chat-completions request to the service and returns its
// answer; gw serve supplies it (the key, the transport, the base URL). An
// error it returns may be an *api.Error (no key stored…), which the client
// is shown as it is; any other error is classified as a failure to reach
// the service.
type Upstream func(ctx context.Context, req *chat.Request) (*http.Response, error)

// Limits of Serve.
const (
	MaxRequestBody   = 64 << 20 // a Codex request with a few screenshots fits
	maxAnswerBody    = 64 << 20
	maxErrorBody     = 1 << 20
	DefaultKeepAlive = 15 * time.Second
)

// Result is what happened to one request, for gw serve's request log.
type Result struct {
	Status int    // the status the client was answered with (0: the client went away first)
	Model  string // the model the client asked for
	Stream bool
	Usage  *chat.Usage // the service's token count, when it sent one
	Err    error       // why the request failed; nil when it was answered
}

// Serve answers one POST /v1/responses: it translates the request, sends it
// upstream, and translates the answer back, streamed or not. Errors reach
// the client in the Responses API's shape: bad input as a 400 naming the
// field, the service's failures with the spec's message first (see
// FromAPIError), a failure after the stream began as response.failed.
func Serve(w http.ResponseWriter, r *http.Request, upstream Upstream) Result {
	return serve(w, r, upstream, DefaultKeepAlive)
}

// Options adjust ServeWith; the zero Options are Serve's.
type Options struct {
	// Classify reads an error answer of the service (its status, header and
	// body, and the model asked for), whole or inside its stream; nil is
	// api.ClassifyResponse. gw serve passes one that takes its key out of the
	// service's words and says where the key came from.
	Classify func(status int, header http.Header, body []byte, model string) *api.Error
}

// ServeWith is Serve with o.
func ServeWith(w http.ResponseWriter, r *http.Request, upstream Upstream, o Options) Result {
	return o.serve(w, r, upstream, DefaultKeepAlive)
}

func serve(w http.ResponseWriter, r *http.Request, upstream Upstream, keepAlive time.Duration) Result {
	return Options{}.serve(w, r, upstream, keepAlive)
}

func (o Options) classify(status int, header http.Header, body []byte, model string) *api.Error {
	if o.Classify != nil {
		return o.Classify(status, header, body, model)
	}
	return api.ClassifyResponse(status, header, body, model)
}

func (o Options) serve(w http.ResponseWriter, r *http.Request, upstream Upstream, keepAlive time.Duration) Result {
	var res Result
	fail := func(status int, body []byte, err error) Result {
		writeJSON(w, status, body)
		res.Status, res.Err = status, err
		return res
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return fail(http.StatusMethodNotAllowed, errorJSON("/v1/responses takes POST, not "+r.Method, "invalid_request_error", "", "method_not_allowed"), errors.New("method "+r.Method))
	}
	var in io.Reader = http.MaxBytesReader(w, r.Body, MaxRequestBody)
	switch ce := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); ce {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(in)
		if err != nil {
			return fail(http.StatusBadRequest, errorJSON("the request body is not valid gzip ("+err.Error()+"); send it uncompressed", "invalid_request_error", "", "invalid_request"), err)
		}
		in = &capped{r: zr, n: MaxRequestBody}
	default:
		return fail(http.StatusUnsupportedMediaType, errorJSON("the request body is compressed with "+ce+", which gw serve cannot read; send it uncompressed (or gzip)", "invalid_request_error", "", "unsupported_content_encoding"), errors.New("content encoding "+ce))
	}
	body, err := io.ReadAll(in)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) || errors.Is(err, errTooLarge) {
			return fail(http.StatusRequestEntityTooLarge, errorJSON(fmt.Sprintf("the request body is larger than %d MiB; send smaller images or start a new session", MaxRequestBody>>20), "invalid_request_error", "", "request_too_large"), err)
		}
		return fail(http.StatusBadRequest, errorJSON("the request body could not be read: "+err.Error(), "invalid_request_error", "", "invalid_request"), err)
	}
	req, meta, perr := ParseRequest(body)
	res.Model, res.Stream = meta.Model, meta.Stream
	if perr != nil {
		return fail(perr.Status, perr.Body(), perr)
	}

	ctx := r.Context()
	up, err := upstream(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			res.Err = err
			return res
		}
		var ae *api.Error
		if !errors.As(err, &ae) {
			ae = api.ClassifyTransport(err)
		}
		status, b := FromAPIError(ae)
		return fail(status, b, ae)
	}
	defer up.Body.Close()

	if up.StatusCode < 200 || up.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(up.Body, maxErrorBody))
		ae := o.classify(up.StatusCode, up.Header, b, req.Model)
		if ae == nil {
			ae = &api.Error{Kind: api.KindBadResponse, Status: up.StatusCode, Cause: fmt.Sprintf("the service answered %d", up.StatusCode)}
		}
		status, eb := FromAPIError(ae)
		return fail(status, eb, ae)
	}

	isSSE := strings.HasPrefix(strings.ToLower(up.Header.Get("Content-Type")), "text/event-stream")
	if !meta.Stream || !isSSE {
		b, err := io.ReadAll(io.LimitReader(up.Body, maxAnswerBody))
		if err != nil {
			if ctx.Err() != nil {
				res.Err = err
				return res
			}
			ae := api.ClassifyTransport(err)
			status, eb := FromAPIError(ae)
			return fail(status, eb, ae)
		}
		var cr chat.Response
		// A service may answer 200 with an error object; only an answer
		// that names an error is read for one.
		if bytes.Contains(b, []byte(`"error"`)) {
			if ae := o.classify(up.StatusCode, up.Header, b, req.Model); ae != nil {
				status, eb := FromAPIError(ae)
				return fail(status, eb, ae)
			}
		}
		if err := json.Unmarshal(b, &cr); err != nil || len(cr.Choices) == 0 {
			ae := &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindBadResponse, Status: up.StatusCode,
				Cause: "the service's answer is not a chat completion", Fix: remedy.Remedy{Do: remedy.RunDoctor}}
			status, eb := FromAPIError(ae)
			return fail(status, eb, ae)
		}
		res.Usage = cr.Usage
		if meta.Stream { // asked to stream, answered whole: stream it
			return streamWhole(w, meta, &cr, res)
		}
		out, _ := FromResponse(meta, &cr)
		writeJSON(w, http.StatusOK, out)
		res.Status = http.StatusOK
		return res
	}
	return o.streamSSE(ctx, w, meta, req.Model, up.Body, keepAlive, res)
}

func sseHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
}

// streamWhole streams a chat completion the service sent whole.
func streamWhole(w http.ResponseWriter, meta Meta, cr *chat.Response, res Result) Result {
	sseHeaders(w)
	res.Status = http.StatusOK
	sw := NewStreamWriter(w, meta)
	c := cr.Choices[0]
	d := chat.Delta{Content: c.Message.Content, Refusal: c.Message.Refusal}
	if rt := c.Message.ReasoningText(); rt != "" {
		d.ReasoningContent = &rt
	}
	for i, tc := range c.Message.ToolCalls {
		td := chat.ToolCallDelta{Index: i, ID: tc.ID, Type: "function"}
		td.Function.Name, td.Function.Arguments = tc.Function.Name, tc.Function.Arguments
		d.ToolCalls = append(d.ToolCalls, td)
	}
	finish := c.FinishReason
	_ = sw.Chunk(&chat.Chunk{Choices: []chat.ChunkChoice{{Delta: d, FinishReason: &finish}}, Usage: cr.Usage})
	res.Err = sw.End(nil)
	http.NewResponseController(w).Flush()
	return res
}

var errTooLarge = errors.New("request body too large")

// capped reads at most n bytes of r, then fails with errTooLarge: a small
// compressed body cannot expand without end.
type capped struct {
	r io.Reader
	n int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n <= 0 {
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, errTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// streamSSE translates the service's chat stream as it arrives, with a
// keep-alive comment when the service is silent for a while. The stream is
// read and translated in this goroutine; what is written is flushed when
// the stream has nothing more to give without waiting
// (chat.Stream.BeforeWait), so that events which arrived together leave in
// one write. The keep-alives come from a timer, serialised with the chunks
// by mu.
func (o Options) streamSSE(ctx context.Context, w http.ResponseWriter, meta Meta, model string, body io.ReadCloser, keepAlive time.Duration, res Result) Result {
	sseHeaders(w)
	res.Status = http.StatusOK
	rc := http.NewResponseController(w)
	sw := NewStreamWriter(w, meta)
	var (
		mu    sync.Mutex
		dirty bool // events written since the last flush
		ended bool // nothing more is written
	)
	flush := func() {
		if dirty {
			dirty = false
			if err := rc.Flush(); err != nil && sw.err == nil {
				sw.err = err
			}
		}
	}
	// A client that goes away while the service is silent stops the read.
	defer context.AfterFunc(ctx, func() { body.Close() })()
	// idle is set under the lock its function takes first, so that the
	// function sees it even when it fires at once.
	var idle *time.Timer
	mu.Lock()
	idle = time.AfterFunc(keepAlive, func() {
		mu.Lock()
		defer mu.Unlock()
		if ended || sw.err != nil {
			return
		}
		dirty = true
		_ = sw.Ping()
		flush()
		if sw.err != nil {
			body.Close() // the client is gone: stop waiting for the service
			return
		}
		idle.Reset(keepAlive)
	})
	mu.Unlock()
	defer idle.Stop()

	st := chat.NewStream(body)
	defer st.Release()
	st.BeforeWait = func() {
		mu.Lock()
		flush()
		mu.Unlock()
	}
	var ev chat.Event
	for {
		data, err := st.Next()
		mu.Lock()
		var end error
		switch {
		case ctx.Err() != nil:
			res.Err = context.Cause(ctx)
		case sw.err != nil:
			res.Err = sw.err // the client went away
		case errors.Is(err, io.EOF):
			res.Err = sw.End(nil)
			dirty = true
			flush()
			res.Usage = sw.usage
			defer st.Drain(body) // after the lock is released
		case err != nil:
			end = err
		default:
			perr := chat.ParseEvent(data, &ev)
			if perr == nil && !(ev.IsError() && len(ev.Choices) == 0) {
				dirty = true
				if err := sw.Chunk(&ev.Chunk); err != nil {
					res.Err = err // the client went away
					break
				}
				mu.Unlock()
				idle.Reset(keepAlive)
				continue
			}
			if perr != nil && !isErrorEvent(data) {
				end = fmt.Errorf("the service sent an event that is not a chat chunk (%v)", perr)
				break
			}
			// An error the service reports inside its stream.
			ae := o.classify(http.StatusOK, nil, data, model)
			if ae == nil {
				ae = &api.Error{Kind: api.KindOther, Cause: "the service reported an error in its stream"}
			}
			end = ae
		}
		if end != nil {
			res.Usage = sw.usage
			_ = sw.End(end)
			dirty = true
			flush()
			res.Err = end
		}
		ended = true
		mu.Unlock()
		return res
	}
}

// isErrorEvent reports whether a stream event that is no chat chunk is an
// error object.
func isErrorEvent(data []byte) bool {
	var probe struct {
		Error   json.RawMessage `json:"error"`
		Choices json.RawMessage `json:"choices"`
	}
	return json.Unmarshal(data, &probe) == nil && len(probe.Error) > 0 && string(probe.Error) != "null" && len(probe.Choices) == 0
}

// NewChatRequest is the POST of req to url (the service's
// …/v1/chat/completions) that an Upstream sends, without the Authorization
// header, which the caller adds.
func NewChatRequest(ctx context.Context, url string, req *chat.Request) (*http.Request, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &buf)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if req.Stream {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	return hr, nil
}
