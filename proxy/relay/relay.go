package relay

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/capio"
	"github.com/modelgateway/gw/internal/defaults"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/reqlog"
)

// Upstream sends a chat-completions request to the service, with the real
// key, and returns its answer (any status). An error it returns may be an
// *api.Error (gw serve stopping), which the client is told as it is; any
// other is classified as a failure to reach the service.
type Upstream func(ctx context.Context, call *translate.Call) (*http.Response, error)

// Defaults of Options.
const (
	DefaultPingInterval = 5 * time.Second
	DefaultIdleTimeout  = 5 * time.Minute
)

// Limits bound what one translated request may make gw serve hold. A zero
// field takes its default (DefaultLimits).
type Limits struct {
	Request   int64 // the client's request body, after gzip is decoded
	ErrorBody int64 // what is read of the service's error answer
	Whole     int64 // the service's whole (not streamed) answer
	ToolCall  int64 // one tool call's arguments in a stream
	Block     int64 // one run of text, reasoning or refusal in a stream
	Answer    int64 // everything of a streamed answer a translator keeps until its end
	Stream    int64 // the bytes of the service's stream
}

// DefaultLimits are far above any answer a model gives within its output
// limit (a million tokens are about 4 MiB of text), and keep an endless or
// hostile answer from growing gw serve without end.
var DefaultLimits = Limits{
	Request:   64 << 20, // a Codex request with a few screenshots fits
	ErrorBody: 64 << 10,
	Whole:     64 << 20,
	ToolCall:  8 << 20,
	Block:     8 << 20,
	Answer:    16 << 20,
	Stream:    256 << 20,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	for _, f := range []struct{ v, d *int64 }{
		{&l.Request, &d.Request}, {&l.ErrorBody, &d.ErrorBody}, {&l.Whole, &d.Whole},
		{&l.ToolCall, &d.ToolCall}, {&l.Block, &d.Block}, {&l.Answer, &d.Answer}, {&l.Stream, &d.Stream},
	} {
		*f.v = defaults.Positive(*f.v, *f.d)
	}
	return l
}

// Options are what the loop is given by gw serve.
type Options struct {
	Upstream Upstream
	// Classify reads an error answer of the service (its status, header and
	// body, and the model asked for), whole or inside its stream; nil is
	// api.ClassifyResponse. gw serve passes one that takes its key out of
	// the service's words and says where the key came from.
	Classify func(status int, header http.Header, body []byte, model string) *api.Error
	// ClassifyTransport reads a failure to reach the service; nil is
	// api.ClassifyTransport.
	ClassifyTransport func(err error) *api.Error
	// PingInterval is how long a stream may be idle before a ping; 0 is
	// DefaultPingInterval.
	PingInterval time.Duration
	// IdleTimeout ends a stream whose service has sent nothing for that
	// long with the protocol's error event; 0 is DefaultIdleTimeout, and a
	// negative value waits without end. (The wait for the service's first
	// answer is bounded by the transport's response header time-out.)
	IdleTimeout time.Duration
	Limits      Limits
	// Env is given to the translators; zero fields: the clock and
	// crypto/rand.
	Env translate.Env
	// Stopping is done when gw serve stops: a request cut by it is logged
	// aborted=shutting_down. nil: never.
	Stopping context.Context
	// Retry, when set, is asked once about an error answer of the service
	// before the client is told: a call to send instead (the same request
	// without a field the service refused) and a note for the log; nil
	// tells the client the error.
	Retry func(call *translate.Call, status int, header http.Header, body []byte) (retry *translate.Call, note string)
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

func (o *Outcome) note(s string) { o.Note = JoinNote(o.Note, s) }

// JoinNote joins two log notes with a space, leaving out an empty one.
func JoinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

// Serve answers one request of protocol p.
func Serve(w http.ResponseWriter, r *http.Request, p translate.Protocol, o *Options) Outcome {
	l := &loop{o: o, p: p, lim: o.Limits.withDefaults(), ctx: r.Context(), w: w}
	l.env = o.Env
	if l.env.Now == nil {
		l.env.Now = time.Now
	}
	if l.env.ID == nil {
		l.env.ID = randomHex
	}
	return l.serve(r)
}

func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// loop is one request.
type loop struct {
	o   *Options
	p   translate.Protocol
	lim Limits
	env translate.Env
	ctx context.Context // the client's: done when it goes away
	w   http.ResponseWriter
	out Outcome
	ex  translate.Exchange
}

func (l *loop) serve(r *http.Request) Outcome {
	body, refused := readBody(l.w, r, l.lim.Request)
	if refused != nil {
		if l.ctx.Err() != nil {
			l.out.Status = 499
			l.out.note("aborted=client_gone")
			return l.out
		}
		l.write(l.p.Refusal(refused.status, refused.code, refused.message))
		return l.out
	}
	req := &translate.Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header, Body: body}
	if a, ok := l.p.Local(req, l.env); ok {
		l.out.Model = a.Model
		l.write(a)
		return l.out
	}
	ex, no := l.p.Translate(req, l.env)
	if ex != nil {
		l.ex = ex
		info := ex.Info()
		l.out.Model = info.Model
		for _, n := range info.Notes {
			// A note's value may be the client's words (a tool's type):
			// written as data, it stays one word of one log line.
			if k, v, ok := strings.Cut(n, "="); ok {
				n = reqlog.Note(k, v)
			}
			l.out.note(n)
		}
	}
	if no != nil {
		l.write(*no)
		return l.out
	}
	return l.call()
}

// write answers a whole answer.
func (l *loop) write(a translate.Answer) {
	hd := l.w.Header()
	for k, v := range a.Header {
		hd[k] = v
	}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	l.w.WriteHeader(a.Status)
	_, _ = l.w.Write(a.Body)
	l.out.Status = a.Status
}

// fail answers a failure of the service before its answer began.
func (l *loop) fail(e *api.Error, header http.Header) Outcome {
	a := l.ex.Error(e)
	after, ms := header.Get("Retry-After"), header.Get("Retry-After-Ms")
	if (after != "" && validRetryAfter(after)) || (ms != "" && validMillis(ms)) {
		a.Header = a.Header.Clone()
		if a.Header == nil {
			a.Header = http.Header{}
		}
		if validRetryAfter(after) {
			a.Header.Set("Retry-After", after)
		}
		if validMillis(ms) {
			a.Header.Set("Retry-After-Ms", ms)
		}
	}
	l.write(a)
	return l.out
}

// validRetryAfter accepts what Retry-After may hold: seconds, or an HTTP
// date. Anything else (which could carry other words) is not passed on.
func validRetryAfter(v string) bool {
	if len(v) > 64 {
		return false
	}
	if digits(v) {
		return true
	}
	_, err := http.ParseTime(v)
	return err == nil
}

func validMillis(v string) bool {
	i, f, _ := strings.Cut(v, ".")
	return len(v) <= 32 && digits(i) && (f == "" || digits(f))
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (l *loop) gone() Outcome {
	l.out.Status = 499
	l.out.note("aborted=client_gone")
	return l.out
}

func (l *loop) stopping() bool { return l.o.Stopping != nil && l.o.Stopping.Err() != nil }

func (l *loop) classifyTransport(err error) *api.Error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	if l.o.ClassifyTransport != nil {
		if e := l.o.ClassifyTransport(err); e != nil {
			return e
		}
	}
	return api.ClassifyTransport(err)
}

// serviceError classifies an error answer of the service.
func (l *loop) serviceError(status int, header http.Header, body []byte) *api.Error {
	classify := l.o.Classify
	if classify == nil {
		classify = api.ClassifyResponse
	}
	e := classify(status, header, body, l.out.Model)
	if e == nil {
		if status < 300 {
			status = http.StatusBadGateway
		}
		e = &api.Error{Status: status, Kind: api.KindOther, Cause: fmt.Sprintf("the service answered %d without saying why", status)}
	}
	return e
}

// badAnswer is an answer of the service that gw serve cannot read.
func badAnswer(status int, what string) *api.Error {
	return &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindBadResponse, Status: status,
		Cause: "the service's answer " + what, Fix: remedy.Remedy{Do: remedy.RetryLater}}
}

// call sends the request to the service and relays its answer.
func (l *loop) call() Outcome {
	call := l.ex.Call()
	var resp *http.Response
	for attempt := 0; ; attempt++ {
		var err error
		resp, err = l.o.Upstream(l.ctx, call)
		if err != nil {
			if l.ctx.Err() != nil {
				return l.gone()
			}
			if l.stopping() {
				l.out.note("aborted=shutting_down")
			}
			return l.fail(l.classifyTransport(err), nil)
		}
		if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			break
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, l.lim.ErrorBody))
		resp.Body.Close()
		if attempt == 0 && l.o.Retry != nil {
			if again, note := l.o.Retry(call, resp.StatusCode, resp.Header, b); again != nil {
				call = again
				l.out.note(note)
				continue
			}
		}
		return l.fail(l.serviceError(resp.StatusCode, resp.Header, b), resp.Header)
	}
	defer resp.Body.Close()
	info := l.ex.Info()
	if info.Stream && !strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "json") {
		return l.stream(resp)
	}
	return l.whole(resp, info.Stream)
}

// whole relays the service's whole answer; asStream: the client asked for
// a stream, which the service ignored.
func (l *loop) whole(resp *http.Response, asStream bool) Outcome {
	body := io.Reader(resp.Body)
	var watch *idleWatch
	if limit := l.idleLimit(); limit > 0 {
		watch = watchIdle(resp.Body, limit)
		defer watch.stop()
		body = watch
	}
	// A client that goes away while the service is silent stops the read.
	defer context.AfterFunc(l.ctx, func() { resp.Body.Close() })()
	b, err := io.ReadAll(io.LimitReader(body, l.lim.Whole+1))
	if err != nil {
		if l.ctx.Err() != nil {
			return l.gone()
		}
		if watch != nil && watch.idled.Load() {
			l.out.note("aborted=upstream_idle")
			return l.fail(idle(watch.limit), nil)
		}
		if l.stopping() {
			l.out.note("aborted=shutting_down")
		}
		return l.fail(l.classifyTransport(err), nil)
	}
	if int64(len(b)) > l.lim.Whole {
		l.out.note("aborted=too_large limit=whole_answer")
		return l.fail(tooLarge("a whole answer", l.lim.Whole), nil)
	}
	var cr struct {
		chat.Response
		Error json.RawMessage `json:"error"`
	}
	switch {
	case json.Unmarshal(b, &cr) != nil:
		return l.fail(badAnswer(resp.StatusCode, "is not a chat completion"), nil)
	case len(cr.Error) > 0 && string(cr.Error) != "null":
		// A service may answer an error with 200.
		return l.fail(l.serviceError(resp.StatusCode, resp.Header, b), resp.Header)
	case len(cr.Choices) == 0:
		return l.fail(badAnswer(resp.StatusCode, "has no choices"), nil)
	}
	l.out.Usage = cr.Usage
	if asStream {
		s := &streamer{l: l, rc: http.NewResponseController(l.w)}
		s.sw = l.ex.Stream(l.w)
		s.begin()
		_ = s.sw.Chunk(translate.OneChunk(&cr.Response))
		s.wrote(s.sw.End(nil))
		s.flush()
		l.ex.Finished(cr.Usage, nil)
		return l.out
	}
	a, err := l.ex.Whole(&cr.Response)
	if err != nil {
		return l.fail(badAnswer(resp.StatusCode, "has no choices"), nil)
	}
	l.write(a)
	l.ex.Finished(cr.Usage, a.Body)
	return l.out
}

// idleLimit is how long the service may send nothing in the middle of its
// answer (Options.IdleTimeout); 0: without end.
func (l *loop) idleLimit() time.Duration {
	switch d := l.o.IdleTimeout; {
	case d == 0:
		return DefaultIdleTimeout
	case d < 0:
		return 0
	default:
		return d
	}
}

// idleWatch closes a whole answer's body once the service has sent nothing
// of it for limit, so that the read waiting on a silent service returns
// (a stream's silence is the streamer's ping timer's to watch).
type idleWatch struct {
	body  io.ReadCloser
	limit time.Duration
	timer *time.Timer
	idled atomic.Bool
}

func watchIdle(body io.ReadCloser, limit time.Duration) *idleWatch {
	w := &idleWatch{body: body, limit: limit}
	w.timer = time.AfterFunc(limit, func() {
		w.idled.Store(true)
		body.Close()
	})
	return w
}

func (w *idleWatch) Read(p []byte) (int, error) {
	n, err := w.body.Read(p)
	if n > 0 && !w.idled.Load() {
		w.timer.Reset(w.limit)
	}
	return n, err
}

func (w *idleWatch) stop() { w.timer.Stop() }

// tooLarge is the failure of an answer past one of the limits.
func tooLarge(what string, limit int64) *api.Error {
	return &api.Error{Kind: api.KindBadResponse, Status: http.StatusBadGateway,
		Cause: fmt.Sprintf("the service's answer went past gw serve's limit of %s for %s, so gw serve ended it", capio.Size(limit), what),
		Fix:   remedy.Remedy{Do: remedy.RetryLater}}
}

// idle is the failure of a service that went silent mid-stream.
func idle(d time.Duration) *api.Error {
	return &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindTimeout, Status: http.StatusGatewayTimeout,
		Cause: fmt.Sprintf("the service sent nothing for %s in the middle of its answer, so gw serve ended it (gw serve --upstream-idle-timeout)", d),
		Fix:   remedy.Remedy{Do: remedy.RetryLater}}
}

// stream relays the service's stream as its chunks arrive, with a ping
// whenever the stream has been idle for the ping interval. The service's
// stream is read and translated in this goroutine; what is written is
// flushed when the stream has nothing more to give without waiting
// (chat.Reader.BeforeWait), so that events which arrived together leave in
// one write. The pings come from a timer, serialised with the chunks by a
// lock.
func (l *loop) stream(resp *http.Response) Outcome {
	s := &streamer{l: l, rc: http.NewResponseController(l.w), resp: resp, m: meter{lim: l.lim}}
	s.sw = l.ex.Stream(l.w)
	// A client that goes away while the service is silent stops the read.
	defer context.AfterFunc(l.ctx, func() { resp.Body.Close() })()
	every := defaults.Positive(l.o.PingInterval, DefaultPingInterval)
	s.idleLimit = l.idleLimit()
	if s.idleLimit > 0 && s.idleLimit < every {
		every = s.idleLimit
	}
	s.every = every
	// s.timer is set under the lock that ping takes first, so that the
	// timer's function sees it even when it fires at once.
	s.mu.Lock()
	timer := time.AfterFunc(every, func() {
		if s.ping() {
			s.timer.Reset(every)
		}
	})
	s.timer = timer
	s.mu.Unlock()
	defer timer.Stop()

	body := &capio.Reader{R: resp.Body, N: l.lim.Stream, Err: errStreamTooLarge}
	st := chat.NewReader(body)
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
			return l.out
		}
		timer.Reset(every)
	}
}

// streamer is the state of one streamed answer. Its methods but ping are
// called with mu held.
type streamer struct {
	l    *loop
	rc   *http.ResponseController
	resp *http.Response
	sw   translate.Stream
	ev   chat.Event // reused
	m    meter

	mu        sync.Mutex
	timer     *time.Timer // the pings' timer
	every     time.Duration
	idleLimit time.Duration
	silent    time.Duration // since the service last sent an event, in pings
	idled     bool          // the service was silent past idleLimit
	begun     bool          // the answer's header is written
	dirty     bool          // events written since the last flush
	ended     bool          // nothing more is written
	lost      error         // a write or flush failed: the client is gone
}

// begin writes the answer's header, once. It waits for the service's first
// event or the first ping, so that a service failing at once is an HTTP
// error, which clients show as such, rather than a stream breaking off.
func (s *streamer) begin() {
	if s.begun {
		return
	}
	s.begun = true
	hd := s.l.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	hd.Set("X-Content-Type-Options", "nosniff")
	s.l.w.WriteHeader(http.StatusOK)
	s.l.out.Status, s.l.out.Stream = http.StatusOK, true
}

// wrote records that the translator wrote, and whether that failed.
func (s *streamer) wrote(err error) {
	s.dirty = true
	if err != nil && s.lost == nil && !errors.Is(err, translate.ErrEnded) {
		s.lost = err
	}
}

func (s *streamer) flush() {
	if s.dirty && s.lost == nil {
		s.dirty = false
		s.lost = s.rc.Flush()
	}
}

// ping writes a ping, from the timer; false: no more pings. A service
// silent past the idle limit is stopped here: its read then fails, and the
// loop ends the answer.
func (s *streamer) ping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || s.lost != nil {
		return false
	}
	s.silent += s.every
	if s.idleLimit > 0 && s.silent >= s.idleLimit {
		s.idled = true
		s.resp.Body.Close()
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
// over, and s.l.out says how.
func (s *streamer) handle(data []byte, err error) bool {
	l := s.l
	s.silent = 0
	switch {
	case s.lost != nil || l.ctx.Err() != nil:
		s.gone()
		return true
	case err == nil:
	case errors.Is(err, io.EOF):
		s.finish(nil, "")
		return true
	case s.idled:
		s.finish(idle(s.idleLimit), "aborted=upstream_idle")
		return true
	case errors.Is(err, errStreamTooLarge):
		s.finish(tooLarge("the bytes of one streamed answer", l.lim.Stream), "aborted=too_large limit=stream")
		return true
	case errors.Is(err, chat.ErrEventTooLarge):
		s.finish(tooLarge("one event of its stream", chat.MaxEventSize), "aborted=too_large limit=event")
		return true
	case l.stopping():
		s.finish(err, "aborted=shutting_down")
		return true
	default:
		s.finish(err, "aborted=upstream_stream_broken")
		return true
	}
	if perr := chat.ParseEvent(data, &s.ev); perr != nil || (s.ev.IsError() && len(s.ev.Choices) == 0) {
		if perr != nil && !isErrorEvent(data) {
			s.finish(badAnswer(http.StatusOK, "stream sent an event that is not a chat chunk"), "aborted=upstream_error")
			return true
		}
		// An error the service reports inside its stream.
		e := l.serviceError(http.StatusOK, s.resp.Header, data)
		s.finish(e, "aborted=upstream_error")
		return true
	}
	if what, limit := s.m.add(&s.ev.Chunk); what != "" {
		s.finish(tooLarge(what, limit), "aborted=too_large limit="+strings.ReplaceAll(what, " ", "_"))
		return true
	}
	s.begin()
	err = s.sw.Chunk(&s.ev.Chunk)
	if errors.Is(err, translate.ErrEnded) {
		s.ended = true
		l.out.Usage = s.sw.Usage()
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
	l := s.l
	s.ended = true
	l.out.note(note)
	if !s.begun && err != nil {
		l.fail(l.broke(err), nil)
		return
	}
	s.begin()
	s.wrote(s.sw.End(err))
	s.flush()
	l.out.Usage = s.sw.Usage()
	if err == nil && s.lost == nil {
		l.ex.Finished(l.out.Usage, nil)
	}
}

// broke is a stream that broke off before its answer began, as a failure.
func (l *loop) broke(err error) *api.Error {
	var ae *api.Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindReset, Status: http.StatusBadGateway,
			Cause: "the service's stream ended before the answer was complete", Fix: remedy.Remedy{Do: remedy.RetryLater}}
	}
	c := *l.classifyTransport(err)
	if c.Condition == "" {
		c.Condition, c.Kind = api.ServiceUnreachable, api.KindNetwork
	}
	c.Cause = "the service's stream broke off: " + c.Cause
	return &c
}

// gone ends an answer whose client went away.
func (s *streamer) gone() {
	s.ended = true
	s.l.out.note("aborted=client_gone")
	s.l.out.Usage = s.sw.Usage()
	if !s.begun {
		s.l.out.Status = 499
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

var errStreamTooLarge = errors.New("the service's stream is larger than gw serve's limit")

// meter counts what a streamed answer makes a translator keep: each tool
// call's arguments, each run of text or reasoning, and all of it.
type meter struct {
	lim    Limits
	calls  map[int]*callMeter
	kind   byte // the open run: 't' text, 'r' reasoning, 'f' refusal
	run    int64
	answer int64
}

// perCall is what each tool call costs a translator to keep beyond its
// bytes, counted against the answer limit: a stream of empty calls is
// bounded like any other.
const perCall = 256

type callMeter struct {
	id string
	n  int64
}

// add counts a chunk; what names the limit it goes past ("" none).
func (m *meter) add(c *chat.Chunk) (what string, limit int64) {
	for i := range c.Choices {
		d := &c.Choices[i].Delta
		// Reasoning as the translators read it: the structured dialects
		// when present (their text repeats reasoning_content's), else the
		// plain text.
		r := len(d.ReasoningText())
		switch {
		case len(d.ReasoningDetails) > 0:
			r = 0
			for _, x := range d.ReasoningDetails {
				r += len(x.Text) + len(x.Summary) + len(x.Data) + len(x.Signature) + len(x.ID) + len(x.Format)
			}
		case len(d.ThinkingBlocks) > 0:
			r = 0
			for _, x := range d.ThinkingBlocks {
				r += len(x.Thinking) + len(x.Signature) + len(x.Data)
			}
		}
		if r > 0 {
			if w := m.text('r', r); w != "" {
				return w, m.lim.Block
			}
		}
		if d.Content != nil && *d.Content != "" {
			if w := m.text('t', len(*d.Content)); w != "" {
				return w, m.lim.Block
			}
		}
		if d.Refusal != nil && *d.Refusal != "" {
			if w := m.text('f', len(*d.Refusal)); w != "" {
				return w, m.lim.Block
			}
		}
		for j := range d.ToolCalls {
			tc := &d.ToolCalls[j]
			if m.calls == nil {
				m.calls = map[int]*callMeter{}
			}
			cm := m.calls[tc.Index]
			if cm == nil || (tc.ID != "" && cm.id != "" && tc.ID != cm.id) {
				cm = &callMeter{id: tc.ID}
				m.calls[tc.Index] = cm
				m.answer += perCall
			}
			cm.id = cmp.Or(cm.id, tc.ID)
			n := int64(len(tc.Function.Arguments) + len(tc.Function.Name) + len(tc.ID))
			cm.n += n
			m.answer += n
			if cm.n > m.lim.ToolCall {
				return "tool call arguments", m.lim.ToolCall
			}
		}
		if m.answer > m.lim.Answer {
			return "one answer", m.lim.Answer
		}
	}
	return "", 0
}

func (m *meter) text(kind byte, n int) string {
	if m.kind != kind {
		m.kind, m.run = kind, 0
	}
	m.run += int64(n)
	m.answer += int64(n)
	if m.run > m.lim.Block {
		return "one content block"
	}
	return ""
}

// reqRefusal is a request the loop refuses before a translator sees it.
type reqRefusal struct {
	status        int
	code, message string
}

// readBody reads the client's request body, gzip decoded, up to limit
// bytes (after decoding). A body past the limit costs no more than the
// limit to refuse (one whose Content-Length says so, nothing: it is not
// read); one under it, up to about one and a half times its size (twice
// when its length is not said) — see capio.ReadAll.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *reqRefusal) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	var in io.Reader = http.MaxBytesReader(w, r.Body, limit)
	length := r.ContentLength
	switch ce := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); ce {
	case "", "identity":
	case "gzip", "x-gzip":
		if length > limit {
			return nil, tooLargeBody(limit)
		}
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, &reqRefusal{http.StatusBadRequest, "invalid_request",
				"the request body is not valid gzip (" + err.Error() + "); send it uncompressed"}
		}
		in, length = zr, -1 // a small compressed body cannot expand without end: ReadAll caps it
	default:
		return nil, &reqRefusal{http.StatusUnsupportedMediaType, "unsupported_content_encoding",
			"the request body is compressed with " + ce + ", which gw serve cannot read; send it uncompressed (or gzip)"}
	}
	body, err := capio.ReadAll(in, length, limit, errTooLarge)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) || errors.Is(err, errTooLarge) {
			return nil, tooLargeBody(limit)
		}
		return nil, &reqRefusal{http.StatusBadRequest, "invalid_request", "the request body could not be read: " + err.Error()}
	}
	return body, nil
}

func tooLargeBody(limit int64) *reqRefusal {
	return &reqRefusal{http.StatusRequestEntityTooLarge, "request_too_large",
		fmt.Sprintf("the request body is larger than %s; send fewer or smaller images and files, or start a new session", capio.Size(limit))}
}

var errTooLarge = errors.New("request body too large")

// NewChatRequest is the POST of call to url (the service's
// …/v1/chat/completions) that an Upstream sends, without the Authorization
// header, which the caller adds. call.Extra's fields join the body's top
// level where the chat request has none of that name.
func NewChatRequest(ctx context.Context, url string, call *translate.Call) (*http.Request, error) {
	b, err := chat.Encode(call.Chat)
	if err == nil && len(call.Extra) > 0 {
		b, err = withExtra(b, call.Extra)
	}
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if call.Chat.Stream {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	return hr, nil
}

// withExtra adds extra's fields to the JSON object body, in the order of
// their names, skipping those body has.
func withExtra(body []byte, extra map[string]json.RawMessage) ([]byte, error) {
	var have map[string]json.RawMessage
	if err := json.Unmarshal(body, &have); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(extra))
	for k := range extra {
		if _, ok := have[k]; !ok && json.Valid(extra[k]) {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return body, nil
	}
	slices.Sort(names)
	out := bytes.TrimRight(body, " \n")
	out = out[:len(out)-1] // the closing brace
	for i, k := range names {
		if i > 0 || len(have) > 0 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(k)
		out = append(out, key...)
		out = append(out, ':')
		out = append(out, bytes.TrimSpace(extra[k])...)
	}
	return append(out, "}\n"...), nil
}
