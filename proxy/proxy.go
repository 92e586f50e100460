package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/responses"
	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/reqlog"
)

// condition is the request log's name of a failure condition of the
// service's error table; "" for the failures it does not name.
func condition(c api.Condition) string {
	switch c {
	case api.KeyRejected:
		return reqlog.KeyRejected
	case api.ServiceUnreachable:
		return reqlog.ServiceUnreachable
	case api.UnknownModel:
		return reqlog.UnknownModel
	}
	return ""
}

// Options configure the handler. Upstream, Transport, Key and LocalToken are
// required.
type Options struct {
	Upstream   *url.URL          // the hosted base URL, ending in /v1
	Transport  http.RoundTripper // to the upstream (api.NewTransport in gw serve)
	Key        *KeyCache         // the real API key
	LocalToken string            // what clients must send as their Bearer key
	// AcceptHosts are host names accepted in the Host header besides
	// 127.0.0.1, localhost and [::1]: the --listen address when it is not
	// loopback.
	AcceptHosts []string
	// Log receives one line per request; nil writes none.
	Log io.Writer
	// Agent names the agent every request comes from (gw run knows the
	// agent it started); "" names it from each request's User-Agent. It
	// wins over the User-Agent: some agents send another's (Kilo sends
	// OpenCode's).
	Agent string
	// AgentOf names the agent whose requests carry a User-Agent's product
	// (reqlog.Product; the agents' own lists are config/agents'); nil
	// names none.
	AgentOf func(product string) string
	// ModelRoutes are the paths under /v1 gw serve answers itself for an
	// agent, from the account's models (agents.ServeRouter: Codex's catalog;
	// config/agents/all.ServeRoutes lists them).
	ModelRoutes []agents.ServeRoute
	// StateDir, when set, has the request log also appended to serve.log
	// there (reqlog.File), as gw serve's own is: for a handler served
	// without Run (gw run's). Close writes the lines still waiting.
	StateDir string
	// ModelIDs lists the ids an unknown model is compared with for "did you
	// mean"; nil or an error: the built-in catalogue.
	ModelIDs func(ctx context.Context) ([]string, error)
	// Relay tunes the loop of the translated routes (/v1/messages,
	// /v1/responses): its ping interval, idle time-out, limits and the
	// retry of a request whose field the service refused. Its Upstream,
	// Classify, ClassifyTransport and Stopping are gw serve's own.
	Relay relay.Options
	// Warm keeps connections to the service ready ahead of the agents'
	// requests (warm.go); on unless Warm.Off.
	Warm WarmOptions
}

// Handler is gw serve's http.Handler.
type Handler struct {
	filter    *filter
	keys      *KeyCache
	rp        *httputil.ReverseProxy
	upstream  *url.URL
	chatURL   string            // <upstream>/chat/completions, where translated requests go
	transport http.RoundTripper // to the upstream
	log       *logger
	agentsOf  func(product string) string // Options.AgentOf
	modelIDs  func(ctx context.Context) ([]string, error)
	identity  []string // the Accept-Encoding value "identity", shared by every request
	gzip      []string // and "gzip"
	relay     relay.Options
	fileLog   *asyncLog          // serve.log, when Options.StateDir is set
	logFile   *reqlog.File       // what fileLog writes to
	routes    []route            // gw serve's own routes (routes.go)
	refusals  chat.Refusals      // optional fields the service refused, by model
	billed    chat.BilledPrompts // what the service billed for recent prompts (message_start's input tokens)
	warm      *warmer
}

// ErrShuttingDown is the cause given to requests cut off because gw serve
// stopped before they finished.
var ErrShuttingDown = errors.New("gw serve is shutting down")

// callCtx is the context key of the *call of a request.
type callCtx struct{}

// call is what the handler's callbacks (rewrite, modifyResponse,
// errorHandler) need about the request they serve: one allocation and one
// context value per request.
type call struct {
	entry
	auth  []string        // the upstream Authorization header value; never logged
	key   string          // the key, for its masked form in messages; never logged
	from  keychain.Source // where the key came from
	scrub *scrubber       // takes the key out of what is relayed besides a 2xx body
	w     scrubWriter
	route *route // the route that took the request
}

func callOf(r *http.Request) *call {
	c, _ := r.Context().Value(callCtx{}).(*call)
	return c
}

// New builds the handler.
func New(o Options) (*Handler, error) {
	switch {
	case o.Upstream == nil || o.Upstream.Scheme == "" || o.Upstream.Host == "":
		return nil, errors.New("proxy: an absolute upstream base URL is required")
	case o.Transport == nil:
		return nil, errors.New("proxy: an upstream transport is required")
	case o.Key == nil:
		return nil, errors.New("proxy: a key source is required")
	case o.LocalToken == "":
		return nil, errors.New("proxy: a local token is required")
	}
	up := *o.Upstream
	up.Path = strings.TrimSuffix(up.Path, "/")
	up.RawPath = strings.TrimSuffix(up.RawPath, "/")
	h := &Handler{
		filter:    newFilter(o.LocalToken, o.AcceptHosts),
		keys:      o.Key,
		upstream:  &up,
		chatURL:   up.JoinPath("chat/completions").String(),
		transport: o.Transport,
		log:       &logger{w: o.Log, agent: o.Agent},
		agentsOf:  o.AgentOf,
		modelIDs:  o.ModelIDs,
		identity:  []string{"identity"},
		gzip:      []string{"gzip"},
		relay:     o.Relay,
	}
	h.routes = routes(responses.NewStore(0, 0).LimitBuilt(o.Relay.Limits.Request), &h.billed, o.ModelRoutes)
	if o.StateDir != "" {
		// Created with its first line. A log that cannot be written (a link
		// planted at serve.log) gets nothing: the agent's terminal is not
		// gw's to report it on.
		file := &reqlog.File{Path: filepath.Join(o.StateDir, reqlog.Name)}
		h.logFile = file
		h.fileLog = newAsyncLog(file, maxPendingFile, "gw: %d request log lines dropped: the disk did not keep up", nil)
		if o.Log != nil {
			h.log.w = tee{o.Log, h.fileLog}
		} else {
			h.log.w = h.fileLog
		}
	}
	h.rp = &httputil.ReverseProxy{
		Rewrite:   h.rewrite,
		Transport: o.Transport,
		// 0: ReverseProxy itself flushes every write of a stream (SSE, or no
		// Content-Length) at once; -1 would also split each small complete
		// answer into a header packet and a body packet.
		FlushInterval:  0,
		ModifyResponse: h.modifyResponse,
		ErrorHandler:   h.errorHandler,
		ErrorLog:       log.New(io.Discard, "", 0), // failures are reported in the request log
		BufferPool:     &bufferPool{},
	}
	h.warm = newWarmer(h, o.Warm)
	h.warm.start()
	return h, nil
}

// Close writes the request log lines still waiting for serve.log; call it
// once the handler serves no more (Serve has returned).
func (h *Handler) Close() error {
	if h.fileLog != nil {
		err := h.fileLog.Close()
		_ = h.logFile.Close()
		return err
	}
	return nil
}

// agentOf names the agent that sent r by its User-Agent ("" when not known);
// the request log prefers the agent gw run started (Options.Agent).
func (h *Handler) agentOf(r *http.Request) string {
	if h.agentsOf == nil {
		return ""
	}
	return h.agentsOf(reqlog.Product(r.Header.Get("User-Agent")))
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := h.routeOf(r)
	c := &call{entry: entry{start: time.Now(), method: r.Method, path: r.URL.Path, peer: r.RemoteAddr, proto: rt.name,
		agent: h.agentOf(r)}, route: rt}
	e := &c.entry
	defer func() {
		if p := recover(); p != nil {
			// ReverseProxy aborts the connection when a stream breaks off;
			// say why in the log, then let the server abort.
			if e.note == "" {
				e.note = abortNote(r.Context())
			}
			h.log.write(e, time.Now())
			panic(p)
		}
		h.log.write(e, time.Now())
	}()

	if r.URL.Path == HelloPath {
		h.hello(w, r, e)
		return
	}
	if isClientProbe(r) {
		h.answerProbe(w, r, e)
		return
	}
	if ref := h.filter.check(r, rt); ref != nil {
		e.status, e.note = ref.status, refusalNote(r, ref.code)
		// A client that is refused gets nothing more from this connection:
		// kept open for the idle time-out, refused connections pile up
		// (a loop of them ran gw serve out of file descriptors).
		w.Header().Set("Connection", "close")
		e.status = writeErrorAs(w, rt.proto, ref.status, ref.code, ref.message)
		return
	}
	kr := h.keys.get(r.Context())
	if kr.err != nil || kr.key == "" {
		status, code, msg := http.StatusUnauthorized, CodeNoKey,
			api.KeyRejected.Message()+": no key stored — run gw auth login" // the contract's words
		if kr.err != nil && !errors.Is(kr.err, keychain.ErrNotFound) {
			fix, ok := remedy.Of(kr.err)
			if !ok {
				fix = remedy.Remedy{Do: remedy.RunDoctor}
			}
			status, code = http.StatusServiceUnavailable, CodeKeyUnavailable
			msg = api.KeyRejected.Message() + ": gw serve could not read the key (" + kr.err.Error() + ") — " + serveFix(fix, kr.from)
		}
		e.note, e.cond = "refused="+code, reqlog.KeyRejected
		e.status = writeErrorAs(w, rt.proto, status, code, msg)
		return
	}
	c.auth, c.scrub, c.key, c.from = kr.auth, kr.scrub, kr.key, kr.from
	h.warm.begin()
	defer h.warm.end()
	out := r.WithContext(context.WithValue(r.Context(), callCtx{}, c))
	switch {
	case rt.serve != nil:
		rt.serve(h, w, out, c)
		return
	case rt.proto != nil:
		h.translate(w, out, c, rt.proto)
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		// The transport may still be sending the body upstream when the
		// answer starts coming back. Without full duplex, net/http drains
		// and closes the body as soon as the answer's header is written;
		// the transport's last read of it then fails, and the transport
		// tears down the upstream connection in the middle of the stream.
		_ = http.NewResponseController(w).EnableFullDuplex()
		if r.Method == http.MethodPost && isJSON(r.Header.Get("Content-Type")) {
			e.model = newModelScanner(r.ContentLength)
			out.Body = &scanBody{ReadCloser: r.Body, s: e.model}
		}
		// Sent again on a new connection if the kept one it went out on
		// turns out closed before any byte of it was written (rewind.go).
		out.Body, out.GetBody = newRewindBody(out.Body, r.ContentLength)
	}
	c.w = scrubWriter{ResponseWriter: w, s: c.scrub}
	h.rp.ServeHTTP(&c.w, out)
	// The transport closes the request body, on a goroutine of its own
	// when it failed to connect, possibly after the answer is written.
	// Closed after this handler returned, the body's last read of the
	// connection would race net/http's read of the next request on it
	// (net/http panics and resets the connection: the client's next
	// request fails). Closed here, it is closed before.
	if r.Body != nil {
		_ = r.Body.Close()
	}
	// Trailers are in the header map by now; net/http sends them once the
	// handler returns.
	c.scrub.header(w.Header())
}

// scrubWriter scrubs the key from every header written through it: the
// final response's and those of 1xx responses, which ReverseProxy relays
// from the transport without passing them through ModifyResponse.
type scrubWriter struct {
	http.ResponseWriter
	s *scrubber
}

func (w *scrubWriter) WriteHeader(code int) {
	w.s.header(w.ResponseWriter.Header())
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets ReverseProxy flush (and hijack, for an upgrade) the
// connection through http.ResponseController.
func (w *scrubWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// abortNote says why a stream that had started was cut: gw serve stopping,
// the client hanging up, or else the upstream.
func abortNote(ctx context.Context) string {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrShuttingDown):
		return "aborted=shutting_down"
	case errors.Is(cause, context.Canceled):
		return "aborted=client_gone"
	}
	return "aborted=upstream_stream_broken"
}

// isJSON reports whether a request's Content-Type may hold a JSON body with
// a "model": JSON, or not said (some clients send none).
func isJSON(contentType string) bool {
	return contentType == "" || containsFold(contentType, "json")
}

// containsFold is strings.Contains ignoring ASCII case, without lower-casing
// a copy.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// bufferPool lends ReverseProxy its 32 KiB copy buffers, which it would
// otherwise allocate (and the collector reclaim) once per request.
type bufferPool struct{ p sync.Pool }

const copyBufferSize = 32 << 10

func (b *bufferPool) Get() []byte {
	if a, ok := b.p.Get().(*[copyBufferSize]byte); ok {
		return a[:]
	}
	return make([]byte, copyBufferSize)
}

func (b *bufferPool) Put(buf []byte) {
	if len(buf) == copyBufferSize {
		b.p.Put((*[copyBufferSize]byte)(buf))
	}
}

// rewrite maps /v1/<rest>?<query> to <upstream base>/<rest>?<query> and puts
// the real key in place of whatever the client sent.
func (h *Handler) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	out.URL.Path = strings.TrimPrefix(pr.In.URL.Path, "/v1")
	out.URL.RawPath = ""
	if rp := pr.In.URL.RawPath; rp != "" {
		out.URL.RawPath = strings.TrimPrefix(rp, "/v1")
	}
	pr.SetURL(h.upstream)

	// Shared slices, not copies: the transport only reads header values.
	if c := callOf(pr.In); c != nil {
		out.Header["Authorization"] = c.auth
	}
	// Headers that only make sense between the client and gw serve
	// (X-Api-Key and X-Goog-Api-Key may carry the local token).
	out.Header.Del("Cookie")
	out.Header.Del("Proxy-Authorization")
	out.Header.Del("X-Api-Key")
	dropRoutingHeaders(out.Header)
	out.Header.Del("X-Goog-Api-Key")
	// Without an Accept-Encoding the transport asks for gzip on its own and
	// the upstream may compress, and so hold back, SSE events. And gw serve
	// must be able to read an error body to scrub the key from it: gzip,
	// which it decodes, is the only compression passed on.
	switch ae := out.Header.Get("Accept-Encoding"); {
	case ae == "gzip": // as Go's clients send it
	case ae == "" || !acceptsGzip(ae):
		out.Header["Accept-Encoding"] = h.identity
	default:
		out.Header["Accept-Encoding"] = h.gzip
	}
	// A WebSocket upgrade needs HTTP/1.1: a connection opened for it offers
	// no other protocol, as net/http's own would (api.OnlyHTTP1).
	if strings.EqualFold(out.Header.Get("Upgrade"), "websocket") {
		pr.Out = out.WithContext(api.OnlyHTTP1(out.Context()))
	}
}

// dropRoutingHeaders removes from h the request headers by which a front end in the service's own
// infrastructure may take a request to another path, host or method than the URL gw serve sends it to,
// or believe it came from another client (X-Original-URL, X-Rewrite-URL, X-Forwarded-*, …). Only gw serve
// decides where a request goes; a client's say is dropped. (ReverseProxy itself drops only Forwarded and
// X-Forwarded-For, -Host and -Proto.) Names are matched as such servers read them: in any case, with "_"
// for "-".
func dropRoutingHeaders(h http.Header) {
	var buf [64]byte // most names fit; a longer one is lowered in a copy of its own
	for k := range h {
		name := []byte(k)
		if len(k) <= len(buf) {
			name = buf[:len(k)]
			copy(name, k)
		}
		for i, c := range name {
			switch {
			case c == '_':
				name[i] = '-'
			case 'A' <= c && c <= 'Z':
				name[i] = c + ('a' - 'A')
			}
		}
		if isRoutingHeader(name) {
			delete(h, k)
		}
	}
}

// isRoutingHeader reports whether name, lower case with "-" for "_", is a
// routing header's; it takes the bytes of a buffer so that the name of
// every request header is not copied to a string of its own.
func isRoutingHeader(name []byte) bool {
	switch string(name) {
	case "forwarded", "via",
		"x-original-url", "x-original-uri", "x-rewrite-url", "x-original-host", "x-original-method",
		"x-host", "x-http-host-override", "x-http-method-override", "x-http-method", "x-method-override",
		"x-real-ip", "x-client-ip", "x-cluster-client-ip", "true-client-ip", "x-envoy-original-path":
		return true
	}
	return bytes.HasPrefix(name, []byte("x-forwarded-"))
}

// acceptsGzip reports whether an Accept-Encoding value allows gzip.
func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		coding, params, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip", "*":
			q := strings.ReplaceAll(strings.ToLower(params), " ", "")
			if !strings.HasPrefix(q, "q=0") || strings.Trim(strings.TrimPrefix(q, "q=0"), ".0") != "" {
				return true
			}
		}
	}
	return false
}

func (h *Handler) modifyResponse(res *http.Response) error {
	c := callOf(res.Request)
	if c == nil {
		return nil
	}
	e := &c.entry
	e.status = res.StatusCode
	if res.StatusCode < 200 || res.StatusCode > 299 {
		h.relayError(res, c)
		return nil
	}
	if ce := res.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		return nil // compressed at the client's request: passed through as is
	}
	ct := res.Header.Get("Content-Type")
	switch {
	case res.Request.Method != http.MethodPost:
		// Usage is only reported for the work a POST asked for; model
		// lists and other GETs are not inspected.
	case hasPrefixFold(ct, "text/event-stream"):
		e.stream = true
		res.Body = &usageReader{ReadCloser: res.Body, sse: true, e: e}
	case containsFold(ct, "json") && res.ContentLength <= maxSniffLine:
		res.Body = &usageReader{ReadCloser: res.Body, e: e, want: res.ContentLength}
	}
	return nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// relayError prepares a non-2xx answer for the client: the key scrubbed
// from its body (a 2xx body is relayed byte for byte) and, for an unknown
// model, the closest listed id added to its message. The body is read
// decoded, through every Content-Encoding the service names, and relayed
// decoded; it is read whole, up to maxDecodedError once decoded. A body in
// an encoding gw serve cannot decode, or a bigger one (a gzip bomb), is not
// relayed: gw serve's own error takes its place.
func (h *Handler) relayError(res *http.Response, c *call) {
	if res.Request.Method == http.MethodHead || res.StatusCode == http.StatusNotModified || res.StatusCode < 200 {
		return // no body
	}
	orig := res.Body
	body, codings, decoded, ok := decoder(res.Header, orig)
	if !ok {
		withholdBody(res, fmt.Sprintf("with a body in %s encoding, which gw serve cannot check for the API key", quoteShort(codings)))
		return
	}
	read, err := io.ReadAll(io.LimitReader(body, maxDecodedError+1))
	if len(read) > maxDecodedError {
		size := fmt.Sprintf("over %d MiB", maxDecodedError>>20)
		if decoded {
			size += " once decoded"
		}
		withholdBody(res, "with an error body "+size+", far more than an error message needs")
		return
	}
	if err != nil {
		// Cut off: what came is relayed, then the client's connection is
		// cut as the service's was. Its end may be the start of the key.
		out := c.scrub.scrubCut(read)
		res.Body = readCloser{io.MultiReader(bytes.NewReader(out), errReader{err}), orig}
		unknownLength(res)
		return
	}
	out := c.scrub.scrub(read)
	out = h.explainError(res, c, out)
	if decoded || !bytes.Equal(out, read) {
		res.ContentLength = int64(len(out))
		res.Header.Set("Content-Length", strconv.Itoa(len(out)))
		res.Header.Del("Content-Encoding")
	}
	res.Body = readCloser{bytes.NewReader(out), orig}
}

// errReader returns err once what was read before it has been relayed.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func unknownLength(res *http.Response) {
	res.ContentLength = -1
	res.Header.Del("Content-Length")
	res.Header.Del("Content-Encoding")
}

// withholdBody replaces an error body gw serve does not relay with its own
// error, keeping the service's status; why says what the body was.
func withholdBody(res *http.Response, why string) {
	msg := fmt.Sprintf("the service answered %d %s %s, so it was not passed on",
		res.StatusCode, http.StatusText(res.StatusCode), why)
	b, _ := json.Marshal(errorBody{Error: errorDetail{Message: msg, Type: "gw_error", Code: CodeBodyWithheld}})
	b = append(b, '\n')
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(b))
	res.ContentLength = int64(len(b))
	res.Header.Set("Content-Length", strconv.Itoa(len(b)))
	res.Header.Set("Content-Type", "application/json")
	res.Header.Del("Content-Encoding")
}

// explainError adds what gw knows to an error body (scrubbed already) that
// the agent cannot know: for a refused key, that the service refused the key
// gw serve sends (masked, and where it came from), with the fix; for an
// unknown model, the closest listed id. Every other error body is returned
// unchanged.
func (h *Handler) explainError(res *http.Response, c *call, body []byte) []byte {
	e := &c.entry
	model := ""
	if e.model != nil {
		model = e.model.Model()
	}
	ae := api.ClassifyResponse(res.StatusCode, res.Header, body, model)
	if ae != nil {
		e.cond = condition(ae.Condition)
	}
	if ae != nil && ae.Condition == api.KeyRejected && c.key != "" {
		e.note = "rejected=" + string(ae.Kind)
		return keyRejectedBody(body, explainKeyRejected(ae, c.key, c.from), res.Header)
	}
	if model == "" {
		return body
	}
	suggestion := ""
	if ae != nil && ae.Condition == api.UnknownModel {
		suggestion = h.closestID(res.Request.Context(), model)
	}
	if suggestion != "" && suggestion != model {
		e.note = reqlog.Note("suggested", suggestion)
		return addSuggestion(body, res.Header.Get("Content-Type"), suggestion)
	}
	return body
}

func (h *Handler) closestID(ctx context.Context, model string) string {
	var ids []string
	if h.modelIDs != nil {
		if listed, err := h.modelIDs(ctx); err == nil {
			ids = listed
		}
	}
	if len(ids) == 0 {
		ids = api.CatalogIDs()
	}
	return api.ClosestID(model, ids)
}

type readCloser struct {
	io.Reader
	io.Closer
}

func (h *Handler) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	e := &entry{}
	if c := callOf(r); c != nil {
		e = &c.entry
	}
	ctx := r.Context()
	switch {
	case errors.Is(context.Cause(ctx), ErrShuttingDown):
		e.status, e.note = http.StatusServiceUnavailable, "aborted=shutting_down"
		writeError(w, e.status, CodeUnreachable, translate.Message(shuttingDown("gw serve stopped before the service answered")))
	case ctx.Err() != nil:
		// The client went away: nobody to answer. 499 as nginx logs it.
		e.status, e.note = 499, "aborted=client_gone"
	default:
		unreachable := api.ServiceUnreachable.Message()
		msg := unreachable + ": " + err.Error()
		if ae := api.ClassifyTransport(err); ae != nil {
			msg = translate.Message(ae)
			if !strings.HasPrefix(msg, unreachable) {
				msg = unreachable + ": " + msg
			}
		}
		// Not a refusal by gw serve: the service could not be reached.
		e.status, e.note, e.cond = http.StatusBadGateway, "failed="+CodeUnreachable, reqlog.ServiceUnreachable
		writeError(w, e.status, CodeUnreachable, msg)
	}
}

// addSuggestion appends "(did you mean …?)" to the message of an error body,
// whatever shape the upstream used; other fields are kept.
func addSuggestion(body []byte, contentType, id string) []byte {
	hint := fmt.Sprintf(" (did you mean %q?)", id)
	if doc, ok := decodeObject(body); ok {
		if appendToMessage(doc, hint) {
			if b, err := marshalNoEscape(doc); err == nil {
				return b
			}
		}
		return body
	}
	if strings.Contains(contentType, "json") {
		return body
	}
	return append(bytes.TrimRight(body, "\r\n"), append([]byte(hint), '\n')...)
}
