package standin

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a stand-in. The zero Options serve DefaultAccounts in the
// OpenAI dialect with no fault.
type Options struct {
	// Accounts served; nil means DefaultAccounts(). The slice is copied.
	Accounts []Account
	// Dialect of error bodies: one of Dialects(); "" means DialectOpenAI.
	Dialect string
	// BalanceStatus answers a request from an account whose balance is
	// exhausted: 0 means 402; 401, 403 and 429 are what other gateways use.
	BalanceStatus int
	// ModelStatus answers an unknown model or one outside the plan: 0 means 404; 400 is the other common choice.
	ModelStatus int
	// HideBalanceCause answers an exhausted balance exactly like a wrong key
	// (401, same body), as gateways that do not say which do.
	HideBalanceCause bool
	// ModelsIgnoreBalance lets GET /v1/models list models even when the
	// balance is exhausted. By default the listing is refused like a chat
	// request, so the connectivity check already reveals an empty balance.
	ModelsIgnoreBalance bool
	// CostCents is taken from the balance for every chat completion answered.
	CostCents int64
	// Fault applied to requests; SetFault changes it while serving.
	Fault Fault
	// ContentChunks > 0 sends that many content deltas of ChunkSize bytes
	// (default 16), cycling through the answer text (for benchmarks). 0 sends
	// one delta per word of the answer.
	ContentChunks int
	ChunkSize     int
	// Reasoning is the reasoning dialect (one of ReasoningDialects, with an
	// optional "+redacted") of the models that reason by default: ids ending
	// in -thinking and vendor-b's Gemini-class models. "" keeps each its
	// default: reasoning_content, and gemini (thought signatures).
	Reasoning string
	// ReasoningByModel sets the dialect of single models, any model; a
	// request's X-Standin-Reasoning header overrides both.
	ReasoningByModel map[string]string
	// ContextTokens > 0 is the context window: a prompt of more tokens is
	// refused with the dialect's context-length error.
	ContextTokens int
	// Now is the clock of the prompt cache; nil means time.Now.
	Now func() time.Time
	// HTTP2 offers HTTP/2 besides HTTP/1.1 (TLS ALPN "h2") where the
	// stand-in is served over TLS (StartTLS, gw-standin --tls --http2).
	HTTP2 bool
	// IdleTimeout closes a connection that carried no request for that
	// long, as a service's load balancer does; 0 keeps it open. Used by
	// Start, StartTLS and gw-standin.
	IdleTimeout time.Duration
	// BeforeEvent, if set, is called before SSE event n (0 = the role chunk,
	// the last is "data: [DONE]") is written. A test can block in it to prove
	// a client saw event n-1 first; it must return once ctx is done.
	BeforeEvent func(ctx context.Context, n int)
}

// Seen is one request as it reached the stand-in.
type Seen struct {
	Method string
	Path   string
	Query  string
	Key    string // the bearer key presented; "" when none
	Model  string // the model of a chat request
	Stream bool   // the chat request asked for a stream
	Status int    // the status sent; 0 when no header was sent (hang, reset)
	Events int    // SSE events written
	// Cancelled: the client went away before the answer was complete.
	Cancelled bool
	// Done: the handler has returned, so the fields above are final.
	Done bool

	// What a chat request carried of caching and reasoning, and what the
	// stand-in billed and signed; set once the request was read.
	Breakpoints    []Breakpoint // cache_control markers, in prompt order
	PromptCacheKey string
	User           string
	Reasoning      string     // the reasoning dialect of the answer
	Received       []Received // signatures and encrypted reasoning sent back in assistant messages
	Sent           []string   // signatures and encrypted reasoning in the answer
	// Signed is Sent, each with the field of the answer's message that
	// carried it (e.g. "thinking_blocks[1].data"), as Received names a
	// field of a request's message, without the "messages[i]." before it.
	Signed       []Received
	PromptTokens int // all prompt tokens billed
	// CachedTokens were read from the prompt cache, CacheWriteTokens
	// written to it (breakpoints only).
	CachedTokens     int
	CacheWriteTokens int
}

// Server is the stand-in of the hosted Model Gateway Service. It is an
// http.Handler; serve it with Start, StartTLS or an http.Server.
type Server struct {
	opts  Options // read-only after New, except through mu below
	cache *PromptCache

	mu       sync.Mutex
	accounts []Account
	fault    Fault
	// seen is a ring of the last maxSeen requests: request n (0-based) is
	// at n%maxSeen while it is among them.
	seen     []Seen
	changed  chan struct{} // closed and replaced whenever seen changes
	requests int           // requests so far

	done      chan struct{} // closed by Close: waiting handlers return
	closeOnce sync.Once
}

// New returns a stand-in serving o. Unknown dialects are served as OpenAI's.
func New(o Options) *Server {
	accts := o.Accounts
	if accts == nil {
		accts = DefaultAccounts()
	}
	copied := make([]Account, len(accts))
	for i, a := range accts {
		a.Plan = slices.Clone(a.Plan)
		copied[i] = a
	}
	if o.BalanceStatus == 0 {
		o.BalanceStatus = http.StatusPaymentRequired
	}
	if o.ModelStatus == 0 {
		o.ModelStatus = http.StatusNotFound
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = 16
	}
	o.Accounts = nil
	o.ReasoningByModel = maps.Clone(o.ReasoningByModel)
	return &Server{
		opts:     o,
		cache:    NewPromptCache(o.Now),
		accounts: copied,
		fault:    o.Fault,
		changed:  make(chan struct{}),
		done:     make(chan struct{}),
	}
}

// Close makes handlers that are waiting (hang, slow faults) return, so the
// http.Server serving s can shut down. It does not stop that server.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
}

// SetFault changes the fault applied to requests that arrive from now on.
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// SetBalance sets the balance of the account with key; false if there is none.
func (s *Server) SetBalance(key string, cents int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.accounts {
		if s.accounts[i].Key == key {
			s.accounts[i].BalanceCents = cents
			return true
		}
	}
	return false
}

// Balance returns the balance of the account with key.
func (s *Server) Balance(key string) (cents int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.accounts {
		if a.Key == key {
			return a.BalanceCents, true
		}
	}
	return 0, false
}

// maxSeen bounds what Seen keeps, so that a long-running stand-in (gw-standin,
// benchmarks) does not grow with every request. Tests look at a few.
const maxSeen = 1000

// Seen returns a copy of the most recent requests that arrived, at most
// 1000, oldest first; older ones are dropped.
func (s *Server) Seen() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seenLocked()
}

// seenLocked unrolls the ring, oldest first. s.mu must be held.
func (s *Server) seenLocked() []Seen {
	if len(s.seen) < maxSeen {
		return slices.Clone(s.seen)
	}
	oldest := s.requests % maxSeen
	return slices.Concat(s.seen[oldest:], s.seen[:oldest])
}

// WaitFor waits until cond holds for the requests seen (checked on every
// change), and returns them; or returns ctx's error. cond gets what Seen
// returns: at most the last 1000 requests.
func (s *Server) WaitFor(ctx context.Context, cond func([]Seen) bool) ([]Seen, error) {
	for {
		s.mu.Lock()
		seen, ch := s.seenLocked(), s.changed
		s.mu.Unlock()
		if cond(seen) {
			return seen, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return seen, ctx.Err()
		}
	}
}

// update changes the record of request n, unless newer requests have
// pushed it out (its slot in the ring now holds another request).
func (s *Server) update(n int, f func(*Seen)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < s.requests-maxSeen {
		return
	}
	f(&s.seen[n%maxSeen])
	close(s.changed)
	s.changed = make(chan struct{})
}

// request is the state of one request being answered.
type request struct {
	s    *Server
	idx  int // the request's number from 0, for s.update
	id   int // sequence number, for response ids
	w    *statusWriter
	r    *http.Request
	ctx  context.Context
	flt  Fault
	done chan struct{}
	gone bool // a write failed: the client went away

	body    []byte
	bodyErr error // reading the body failed (too large, client gone)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := bearer(r.Header.Get("Authorization"))
	s.mu.Lock()
	n := s.requests
	s.requests++
	q := &request{s: s, idx: n, id: s.requests, r: r, ctx: r.Context(), flt: s.fault, done: s.done}
	sn := Seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Key: key}
	if len(s.seen) < maxSeen {
		s.seen = append(s.seen, sn)
	} else {
		s.seen[n%maxSeen] = sn
	}
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()

	q.w = &statusWriter{ResponseWriter: w}
	// Read the whole body first, as a gateway does before routing: only then
	// does net/http notice a client that goes away (and cancel the context).
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8<<20))
	q.body, q.bodyErr = body, err
	defer func() {
		s.update(q.idx, func(sn *Seen) {
			sn.Status = q.w.status
			sn.Done = true
			if q.gone || q.ctx.Err() != nil && !q.w.complete {
				sn.Cancelled = true
			}
		})
	}()
	q.serve(key)
}

func (q *request) serve(key string) {
	r, f := q.r, q.flt
	if f.applies(r.URL.Path) {
		switch f.Kind {
		case FaultSlowHeaders:
			if !q.sleep(f.delay()) {
				return
			}
		case FaultHang:
			q.sleep(-1)
			return
		case FaultServerError:
			q.serverError(f)
			return
		}
	}

	path := r.URL.Path
	if !strings.HasPrefix(path, "/v1/") {
		// What a web server in front of the gateway answers: the client's
		// base URL is not the service's.
		http.NotFound(q.w, r)
		q.w.complete = true
		return
	}
	switch {
	case path == "/v1/models":
		if q.method(http.MethodGet) && q.authorize(key, !q.s.opts.ModelsIgnoreBalance) != nil {
			q.listModels(key)
		}
	case strings.HasPrefix(path, "/v1/models/"):
		if q.method(http.MethodGet) && q.authorize(key, !q.s.opts.ModelsIgnoreBalance) != nil {
			q.getModel(key, strings.TrimPrefix(path, "/v1/models/"))
		}
	case path == "/v1/chat/completions":
		if q.method(http.MethodPost) {
			if acct := q.authorize(key, true); acct != nil {
				q.chat(*acct)
			}
		}
	default:
		q.fail(apiError{kind: errInvalidURL, status: http.StatusNotFound,
			detail: fmt.Sprintf("Invalid URL (%s %s)", r.Method, path)})
	}
}

// sleep waits d (forever if d < 0); false if the client went away first.
// When the stand-in closes first, the connection is aborted: the client
// must not mistake the cut-short answer for a complete one.
func (q *request) sleep(d time.Duration) bool {
	var after <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-after:
		return true
	case <-q.ctx.Done():
		return false
	case <-q.done:
		panic(http.ErrAbortHandler)
	}
}

func (q *request) fail(e apiError) {
	e.reqID = fmt.Sprintf("standin%08d", q.id)
	writeError(q.w, q.s.opts.Dialect, e)
	q.w.complete = true
}

func (q *request) serverError(f Fault) {
	status := f.status()
	if f.retries() {
		d := f.retryAfter()
		q.w.Header().Set("Retry-After", strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10))
		q.w.Header().Set("Retry-After-Ms", strconv.FormatInt(d.Milliseconds(), 10))
	}
	switch status {
	case http.StatusBadGateway:
		q.w.Header().Set("Content-Type", "text/html")
		q.w.WriteHeader(status)
		_, _ = io.WriteString(q.w, badGatewayHTML)
		q.w.complete = true
		return
	case http.StatusTooManyRequests:
		q.fail(apiError{kind: errRateLimit, status: status})
		return
	case 529:
		q.fail(apiError{kind: errOverloaded, status: status})
		return
	}
	q.fail(apiError{kind: errServer, status: status})
}

func (q *request) method(want string) bool {
	if q.r.Method == want {
		return true
	}
	q.w.Header().Set("Allow", want)
	q.fail(apiError{kind: errMethod, status: http.StatusMethodNotAllowed,
		detail: fmt.Sprintf("Method %s not allowed for %s; use %s", q.r.Method, q.r.URL.Path, want)})
	return false
}

// authorize returns the account of key, or answers the refusal and returns nil.
func (q *request) authorize(key string, needBalance bool) *Account {
	o := q.s.opts
	if key == "" {
		q.fail(apiError{kind: errMissingKey, status: http.StatusUnauthorized})
		return nil
	}
	q.s.mu.Lock()
	var acct *Account
	for _, a := range q.s.accounts {
		if a.Key == key {
			acct = &a
			break
		}
	}
	q.s.mu.Unlock()
	switch {
	case acct == nil:
		q.fail(apiError{kind: errWrongKey, status: http.StatusUnauthorized})
		return nil
	case needBalance && acct.BalanceCents <= 0 && o.HideBalanceCause:
		q.fail(apiError{kind: errWrongKey, status: http.StatusUnauthorized})
		return nil
	case needBalance && acct.BalanceCents <= 0:
		q.fail(apiError{kind: errNoBalance, status: o.BalanceStatus})
		return nil
	}
	return acct
}

// checkModel answers an id that is not listed, or not in acct's plan.
func (q *request) checkModel(acct Account, id string) bool {
	status := q.s.opts.ModelStatus
	switch {
	case !slices.Contains(ModelIDs(), id):
		q.fail(apiError{kind: errUnknownModel, status: status, model: id})
		return false
	case !slices.Contains(acct.planModels(), id):
		q.fail(apiError{kind: errNotInPlan, status: status, model: id, plan: acct.planModels()})
		return false
	}
	return true
}

// modelCreated is a fixed creation time per model, so listings are stable.
func modelCreated(i int) int64 { return 1_767_225_600 + int64(i)*86_400 }

func modelObject(id string) map[string]any {
	i := slices.Index(ModelIDs(), id)
	owner, _, _ := strings.Cut(id, "/")
	return map[string]any{"id": id, "object": "model", "created": modelCreated(i), "owned_by": owner}
}

func (q *request) listModels(key string) {
	acct := q.account(key)
	data := []map[string]any{}
	for _, id := range acct.planModels() {
		data = append(data, modelObject(id))
	}
	q.writeJSON(http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (q *request) getModel(key, id string) {
	if acct := q.account(key); q.checkModel(acct, id) {
		q.writeJSON(http.StatusOK, modelObject(id))
	}
}

func (q *request) account(key string) Account {
	q.s.mu.Lock()
	defer q.s.mu.Unlock()
	for _, a := range q.s.accounts {
		if a.Key == key {
			return a
		}
	}
	return Account{}
}

func (q *request) writeJSON(status int, v any) {
	q.w.Header().Set("Content-Type", "application/json")
	q.w.WriteHeader(status)
	_, _ = q.w.Write(append(mustJSON(v), '\n'))
	q.w.complete = true
}

// bearer returns the key of an "Authorization: Bearer <key>" header.
func bearer(h string) string {
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(key)
}

// statusWriter remembers the status sent and whether the answer was complete.
type statusWriter struct {
	http.ResponseWriter
	status   int
	complete bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// reset cuts the connection with a TCP RST, as a crashing gateway or a
// middlebox does. Without a hijackable connection (HTTP/2) the stream is aborted.
func (q *request) reset() {
	rc := http.NewResponseController(q.w)
	if q.w.status != 0 {
		_ = rc.Flush() // what was written reaches the client before the cut
	}
	conn, _, err := rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	raw := conn
	if tc, ok := conn.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
