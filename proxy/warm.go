package proxy

import (
	"context"
	"crypto/x509"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/defaults"
)

// A new connection to a service tens or hundreds of milliseconds away costs
// two round trips (the TCP and TLS handshakes) before the request's own. gw serve outlives the
// agents' sessions and their pauses, so it keeps connections to the service
// ready for them:
//
//   - at start it loads the trust roots and the key and opens one
//     connection (TCP and TLS), in the background: neither start-up nor
//     anything else waits for it, and an unreachable service changes
//     nothing but a connection that is not there. The agent's first
//     request takes that connection, waiting for its handshake if it is
//     still under way (api.Conns.Prepare); if none came within
//     WarmOptions.grace after the handshake, a GET of /models (which
//     spends nothing) puts it in the transport's pool. Sent at once, that
//     GET would keep an HTTP/1.1 connection busy for a round trip just when
//     the agent's first request comes (as it does with gw run), which would
//     then open one of its own;
//   - while agents are active (a request in the last WarmOptions.Window) it
//     opens a replacement as soon as the service or a middlebox closes one
//     of the connections, up to the recent peak of concurrent requests for
//     an HTTP/1.1 service (one for HTTP/2, which multiplexes); the transport
//     keeps idle connections a little longer (api.DefaultIdleConnTimeout)
//     and sends HTTP/2 PINGs on them;
//   - once no request came for the window, it opens nothing more, and its
//     idle connections end within the transport's idle time-out.
//
// Its own requests are never an agent's: an agent's request that meets a
// closed connection is retried by the transport only when nothing of it
// was written (see rewindBody), so none reaches the service twice.

// WarmOptions tune how gw serve keeps connections to the service ready.
type WarmOptions struct {
	// Off sends nothing of gw serve's own: no connection is opened before
	// an agent's request needs it.
	Off bool
	// Window is how long after an agent's request connections are kept
	// ready; 0 is DefaultWarmWindow.
	Window time.Duration
	// MaxConns bounds the connections kept ready for an HTTP/1.1 service;
	// 0 is DefaultWarmConns.
	MaxConns int
	// StartConns is how many connections to open at start (0: one): more
	// for a gw serve started because an agent is about to send its first
	// burst (gw serve --on-demand), which over HTTP/1.1 needs a connection
	// per request. Those past the first are kept as the first is (grace,
	// then a little), then closed if no request took them.
	StartConns int

	// gap is the least time between two rounds of replacements, so that a
	// service that closes idle connections at once costs a handshake per
	// gap at most; 0 is warmGap.
	gap time.Duration
	// grace is how long the connection opened at start waits for an
	// agent's request after its handshake before the warmer's own GET
	// takes it; 0 is warmGrace.
	grace time.Duration
}

const (
	// DefaultWarmWindow covers a user's pause to read and think between
	// turns. It is a minute shorter than api.DefaultIdleConnTimeout, so
	// that the agent's last connection, closed by the transport once idle
	// that long, is not replaced: after the window gw serve opens nothing,
	// and its idle connections end within the idle time-out.
	DefaultWarmWindow = 14 * time.Minute
	DefaultWarmConns  = 16
	warmGap           = 2 * time.Second
	// warmGrace is short: nothing reads the connection before a request
	// takes it, so a service closing it in the meantime would fail the
	// request that does (a new connection's request is not retried), and
	// servers allow a new connection some seconds for its first request
	// (Go's 10 s for HTTP/2's preface, for one).
	warmGrace = 2 * time.Second
	// warmRetries bounds the rounds after a close that open fewer
	// connections than meant.
	warmRetries = 2
	// warmKeep is how long, past grace, the connection opened at start is
	// kept for a request to take it (the warmer's GET does at grace).
	warmKeep = time.Second
	// warmTimeout bounds one request of the warmer's.
	warmTimeout = 30 * time.Second
	// warmBodyLimit is read of the model list before the connection goes
	// back to the pool; a longer list costs that connection, nothing else.
	warmBodyLimit = 4 << 20
)

// warmer keeps connections to the service ready (see above). Its zero
// value (Off) does nothing.
type warmer struct {
	off    bool
	h      *Handler
	conns  *api.Conns // nil: a transport not made by api.NewTransport, whose connections gw cannot count
	unhook func()
	window time.Duration
	max    int
	gap    time.Duration
	grace  time.Duration
	now    func() time.Time
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	last     time.Time // the last agent request began or ended
	inFlight int
	peak     int             // the most agent requests in flight at once lately
	peakAt   time.Time       // when peak was last reached
	h2       bool            // the service answered the last warm request over HTTP/2
	prep     *api.Prepared   // the connection opened at start, if prepared
	extra    []*api.Prepared // the others opened at start (WarmOptions.StartConns)
	warming  int             // warm requests under way
	roundOK  bool            // one of the warm requests under way got an answer
	followUp bool            // a connection closed since the last round began: check again after it
	// retries left to rounds that ended with fewer connections than the
	// target and no close since (one of their requests met a connection
	// closing under it, or found another's idle before it was dialled).
	retries int
	nextAt  time.Time // no round of replacements before this
	timer   *time.Timer
	stopped bool
	wg      sync.WaitGroup

	startConns int
}

func newWarmer(h *Handler, o WarmOptions) *warmer {
	if o.Off {
		return &warmer{off: true}
	}
	w := &warmer{h: h, conns: api.ConnsOf(h.transport), now: time.Now, startConns: o.StartConns,
		window: defaults.Positive(o.Window, DefaultWarmWindow), max: defaults.Positive(o.MaxConns, DefaultWarmConns),
		gap: defaults.Positive(o.gap, warmGap), grace: defaults.Positive(o.grace, warmGrace)}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	if w.conns != nil {
		w.unhook = w.conns.OnClose(w.check)
	}
	return w
}

// start loads the trust roots and opens the first connection, in the
// background.
func (w *warmer) start() {
	if w.off {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Starting counts as activity: the agent is usually on its way.
	w.last = w.now()
	// Go reads the system's trust roots once, at the first handshake that
	// needs them; read here, the first request does not wait.
	roots := func() { _, _ = x509.SystemCertPool() }
	if w.conns != nil {
		w.prep = w.conns.Prepare(w.h.upstream, w.grace+warmKeep)
		for i := 1; w.prep != nil && i < w.startConns; i++ {
			if p := w.conns.PrepareAnother(w.h.upstream, w.grace+warmKeep); p != nil {
				w.extra = append(w.extra, p)
			}
		}
	}
	if w.prep == nil {
		// Not a connection gw dials itself (an HTTP proxy in front of the
		// service, say): the GET opens one.
		w.launch(1, roots)
		return
	}
	w.roundOK, w.followUp = false, false
	w.warming++
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		// While the handshakes are under way: the roots, and the key,
		// which the GET or the agent's first request will need.
		roots()
		_ = w.h.keys.get(w.ctx)
	}()
	go func() {
		defer w.wg.Done()
		w.ended(w.prepared(w.prep))
	}()
}

// prepared waits for the connection opened at start, and for an agent's
// request to take it, for grace after its handshake; if none did, the GET
// takes it. It returns as request does.
func (w *warmer) prepared(p *api.Prepared) int {
	select {
	case <-p.Ready():
	case <-w.ctx.Done():
		p.Close()
		return -1
	}
	if p.Err() != nil {
		return -1 // the agent's request, dialling its own, will say what is wrong
	}
	h2 := 0
	if p.Protocol() == "h2" {
		h2 = 1
	}
	select {
	case <-p.Taken():
		return h2
	default:
	}
	t := time.NewTimer(w.grace)
	defer t.Stop()
	select {
	case <-p.Taken():
		return h2
	case <-t.C:
		return w.request()
	case <-w.ctx.Done():
		p.Close()
		return -1
	}
}

// begin notes an agent's request, end its end.
func (w *warmer) begin() {
	if w.off {
		return
	}
	w.mu.Lock()
	now := w.now()
	w.last = now
	w.inFlight++
	if w.inFlight >= w.peak || now.Sub(w.peakAt) > w.window {
		w.peak, w.peakAt = w.inFlight, now
	}
	w.mu.Unlock()
}

func (w *warmer) end() {
	if w.off {
		return
	}
	w.mu.Lock()
	w.inFlight--
	w.last = w.now()
	w.mu.Unlock()
}

// target is how many connections to keep ready; 0 once the agents stopped.
func (w *warmer) target(now time.Time) int {
	if w.last.IsZero() || now.Sub(w.last) > w.window {
		return 0
	}
	if w.h2 {
		return 1
	}
	return min(max(w.peak, 1), w.max)
}

// check opens replacements when fewer connections are open than the
// target; the transport calls it after a connection closed. A round of
// replacements sends as many requests at once as the target, so that an
// HTTP/1.1 transport, whose open connections are idle in its pool and each
// carry one of them, opens the rest.
func (w *warmer) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.followUp, w.retries = true, warmRetries
	w.checkLocked()
}

func (w *warmer) checkLocked() {
	if w.stopped || w.conns == nil || w.warming > 0 {
		return // a round under way checks again when it ends
	}
	now := w.now()
	target := w.target(now)
	if w.conns.Open() >= target {
		return
	}
	if wait := w.nextAt.Sub(now); wait > 0 {
		if w.timer == nil {
			w.timer = time.AfterFunc(wait, func() {
				w.mu.Lock()
				defer w.mu.Unlock()
				w.timer = nil
				w.checkLocked()
			})
		}
		return
	}
	w.nextAt = now.Add(w.gap)
	w.launch(target, nil)
}

// launch starts n warm requests at once (so that an HTTP/1.1 transport
// opens up to n connections); w.mu is held.
func (w *warmer) launch(n int, first func()) {
	if w.stopped {
		return
	}
	w.roundOK, w.followUp = false, false
	w.warming += n
	w.wg.Add(n)
	for range n {
		go func() {
			defer w.wg.Done()
			if first != nil {
				first()
			}
			w.ended(w.request())
		}()
	}
}

// ended notes the end of a warm request (h2 as request returns).
func (w *warmer) ended(h2 int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warming--
	if h2 >= 0 {
		w.h2, w.roundOK = h2 == 1, true
	}
	// A connection that closed while the round was under way is replaced
	// by the next one; after a round that failed (the service unreachable,
	// say) nothing is tried again until the agent's next request, which
	// says what is wrong.
	if w.warming == 0 && w.roundOK && (w.followUp || w.retries > 0) {
		if !w.followUp {
			w.retries--
		}
		w.checkLocked()
	}
}

// request sends GET <upstream>/models with the key, which spends nothing,
// and reads the answer so that its connection goes back to the pool. It
// returns 1 when the answer came over HTTP/2, 0 over HTTP/1, -1 on failure
// (the service unreachable, say: the agent's own request will say so).
func (w *warmer) request() int {
	ctx, cancel := context.WithTimeout(w.ctx, warmTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.h.upstream.JoinPath("models").String(), nil)
	if err != nil {
		return -1
	}
	if kr := w.h.keys.get(ctx); kr.err == nil && kr.key != "" {
		req.Header["Authorization"] = kr.auth
	}
	res, err := w.h.transport.RoundTrip(req)
	if err != nil {
		return -1
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, warmBodyLimit))
	_ = res.Body.Close()
	if res.ProtoMajor == 2 {
		return 1
	}
	return 0
}

// stop ends the warm requests under way and sends no more; it returns once
// they ended.
func (w *warmer) stop() {
	if w.off {
		return
	}
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	extra := w.extra
	w.mu.Unlock()
	if w.unhook != nil {
		w.unhook()
	}
	w.cancel()
	w.wg.Wait()
	if w.prep != nil {
		w.prep.Close() // unless a request took it
	}
	for _, p := range extra {
		p.Close()
	}
}
