package proxy

// The hostile local client: requests that try to reach past /v1 on the
// service, or to make gw serve hold resources it should let go.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/reqlog"
	"github.com/modelgateway/gw/standin"
)

// rawRequest sends text as it is (no URL parsing or escaping by a client
// library) on a connection of its own and reads one response.
func rawRequest(t *testing.T, addr, text string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", firstLine(text), err)
	}
	return res, readAll(t, res)
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\r\n"); return l }

func (r *rig) addr() string { return strings.TrimSuffix(strings.TrimPrefix(r.base, "http://"), "/v1") }

func TestHostileClientPathsThatCouldLeaveV1AreRefused(t *testing.T) {
	r := newRig(t, rigOpts{})
	targets := []string{
		`/v1/..\admin`,             // a backslash, as sent
		`/v1/%5c..%5cadmin`,        // encoded backslashes
		`/v1/..%5Cadmin`,           // how gw serve used to forward the first two
		`/v1/models\..\..\admin`,   // climbing with backslashes only
		`/v1/..%2fadmin`,           // an encoded slash making a dot segment
		`/v1/%2e%2e%2fadmin`,       // all of it encoded
		`/v1/models/..%2f..%2fx`,   // two levels up
		`/v1/..%00/admin`,          // NUL: some servers cut the path there
		`/v1/models%00.json`,       // NUL inside a segment
		`/v1/%255c..%255cadmin`,    // encoded twice: a second decoding makes "\"
		`/v1/%252e%252e/admin`,     // encoded twice: a second decoding makes ".."
		`/v1/%c0%ae%c0%ae/admin`,   // overlong UTF-8 for "."
		`/v1/..%c0%afadmin`,        // overlong UTF-8 for "/"
		`/v1/..%c1%9cadmin`,        // overlong UTF-8 for "\"
		`/v1/%ef%bc%8e%ef%bc%8e/x`, // full-width full stops, folded to ".." by NFKC
		`/v1/..%ef%bc%8fadmin`,     // full-width solidus
		`/v1/..;/admin`,            // ";params" dropped by some servers
		`/v1/..;x=1/admin`,
		`/v1/.../admin`,   // trailing dots trimmed on Windows
		`/v1/..%20/admin`, // trailing space trimmed on Windows
		`/v1/%2e/models`,  // "." is a dot segment too
		`/v1/models/..`,   // at the end
		`/v1/..%09/admin`, // a tab
		`/v1/%7f/admin`,   // DEL
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			res, body := rawRequest(t, r.addr(), "GET "+target+" HTTP/1.1\r\nHost: "+r.addr()+
				"\r\nAuthorization: Bearer "+testToken+"\r\n\r\n")
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d, want 404: %s", res.StatusCode, body)
			}
			if e := gwError(t, body); e.Code != CodeNotFound || !strings.Contains(e.Message, "could reach past /v1") {
				t.Errorf("got %+v", e)
			}
		})
	}
	if seen := r.up.Seen(); len(seen) != 0 {
		for _, s := range seen {
			t.Errorf("forwarded to the service: %s", s.Path)
		}
	}
}

func TestHostileClientLookalikePathsStillForward(t *testing.T) {
	r := newRig(t, rigOpts{})
	// Paths that look odd but stay under /v1 on any reading.
	for _, target := range []string{
		"/v1/models",
		"/v1/models/vendor-a%2Fmodel-a-sonnet-4.5", // an id with a slash, encoded
		"/v1/models/vendor-a/model-a-sonnet-4.5",
		"/v1/models/a..b",
		"/v1/models/.hidden",
		"/v1/models;x",
		"/%76%31/models", // /v1 itself encoded
	} {
		res, body := rawRequest(t, r.addr(), "GET "+target+" HTTP/1.1\r\nHost: "+r.addr()+
			"\r\nAuthorization: Bearer "+testToken+"\r\n\r\n")
		if strings.Contains(body, "could reach past /v1") || strings.Contains(body, "gw_error") {
			t.Errorf("%s: refused by gw serve: %d %s", target, res.StatusCode, body)
		}
	}
	for _, s := range r.up.Seen() {
		if !strings.HasPrefix(s.Path, "/v1/") {
			t.Errorf("the service saw %q, outside /v1", s.Path)
		}
	}
}

// serveProxy runs gw serve's handler with Serve in front of up and returns
// its address.
func serveProxy(t *testing.T, up http.Handler) string {
	t.Helper()
	return serveUpstream(t, up, time.Second, nil).addr
}

// closedWithin reports whether the server closes conn (a read gives EOF)
// before the deadline.
func closedWithin(conn net.Conn, br *bufio.Reader, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := br.ReadByte()
	return errors.Is(err, io.EOF)
}

func TestHostileClientRefusedConnectionsAreClosed(t *testing.T) {
	up := standin.New(standin.Options{})
	t.Cleanup(up.Close)
	addr := serveProxy(t, up)
	refused := map[string]string{
		"wrong token":  "GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer gw-local-wrong\r\n\r\n",
		"no token":     "GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\n\r\n",
		"browser":      "GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\nOrigin: https://evil.example\r\nAuthorization: Bearer " + testToken + "\r\n\r\n",
		"foreign host": "GET /v1/models HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer " + testToken + "\r\n\r\n",
		"bad path":     "GET /v1/..%5cadmin HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + testToken + "\r\n\r\n",
		// A refused request with a body the server has not read.
		"with a body": "POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 5\r\n\r\nhello",
	}
	// Many at once, each keeping its end open as a keep-alive client would:
	// the server must close every one rather than wait out the idle time-out.
	var wg sync.WaitGroup
	for name, req := range refused {
		for i := range 20 {
			wg.Go(func() {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Error(err)
					return
				}
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := conn.Write([]byte(req)); err != nil {
					t.Error(err)
					return
				}
				br := bufio.NewReader(conn)
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode < 400 || !res.Close {
					t.Errorf("%s: status %d, Connection %q: want a refusal that closes", name, res.StatusCode, res.Header.Get("Connection"))
				}
				if !closedWithin(conn, br, 5*time.Second) && i == 0 {
					t.Errorf("%s: the connection stays open after the refusal", name)
				}
			})
		}
	}
	wg.Wait()
	if n := len(up.Seen()); n != 0 {
		t.Errorf("%d refused requests reached the service", n)
	}
}

func TestHostileClientAcceptedConnectionsStayOpen(t *testing.T) {
	up := standin.New(standin.Options{})
	t.Cleanup(up.Close)
	addr := serveProxy(t, up)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	for range 3 { // one connection, three requests: keep-alive works for a client with the token
		_, _ = conn.Write([]byte("GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + testToken + "\r\n\r\n"))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Close {
			t.Fatalf("status %d, close %v", res.StatusCode, res.Close)
		}
	}
}

// TestHostileClientServerErrorsAreJSON covers the answers net/http writes
// itself, before gw serve's handler runs: they come in the OpenAI shape too.
func TestHostileClientServerErrorsAreJSON(t *testing.T) {
	up := standin.New(standin.Options{})
	t.Cleanup(up.Close)
	addr := serveProxy(t, up)
	auth := "Authorization: Bearer " + testToken + "\r\n"
	big := "X-Pad: " + strings.Repeat("a", MaxHeaderBytes+8<<10) + "\r\n"
	cases := []struct {
		name, req string
		status    int
		code      string
		says      string
	}{
		{"headers over the limit", "GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + big + "\r\n", 431, CodeHeadersTooLarge, "64 KiB"},
		{"many headers over the limit", "GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\n" + auth +
			strings.Repeat("X-Pad: "+strings.Repeat("b", 1000)+"\r\n", 80) + "\r\n", 431, CodeHeadersTooLarge, "larger than"},
		{"a request line over the limit", "GET /v1/models?" + strings.Repeat("q", MaxHeaderBytes+8<<10) + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n", 431, CodeHeadersTooLarge, "larger than"},
		{"no Host", "GET /v1/models HTTP/1.1\r\n" + auth + "\r\n", 400, CodeBadRequest, "missing required Host header"},
		{"two Hosts", "GET /v1/models HTTP/1.1\r\nHost: a\r\nHost: b\r\n" + auth + "\r\n", 400, CodeBadRequest, "bad request: "},
		{"garbage", "HELLO\r\n\r\n", 400, CodeBadRequest, "bad request: "},
		{"a header without a colon", "GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\nnocolon\r\n\r\n", 400, CodeBadRequest, "bad request: "},
		{"an unknown transfer encoding", "POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + "Transfer-Encoding: gzip\r\n\r\n", 501, CodeBadRequest, "not implemented: "},
		{"an unknown protocol version", "GET /v1/models HTTP/9.9\r\nHost: " + addr + "\r\n\r\n", 505, CodeBadRequest, "unsupported protocol version"},
		{"an unknown expectation", "POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + "Expect: teapot\r\nContent-Length: 2\r\n\r\n{}", 417, CodeBadRequest, "Expect: 100-continue"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, body := rawRequest(t, addr, c.req)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q: %s", ct, body)
			}
			if e := gwError(t, body); e.Code != c.code || !strings.Contains(e.Message, c.says) {
				t.Errorf("got %+v, want code %s and a message saying %q", e, c.code, c.says)
			}
		})
	}
	t.Run("after a request on the same connection", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		_, _ = conn.Write([]byte("GET /v1/models HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + "\r\n"))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, res)
		_, _ = conn.Write([]byte("GET /v1/models HTTP/1.1\r\n" + auth + "\r\n"))
		res, err = http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, res); res.StatusCode != 400 || gwError(t, body).Code != CodeBadRequest {
			t.Errorf("second request: %d %s", res.StatusCode, body)
		}
	})
}

// TestHostileClientHeadersJustUnderTheLimitPass: the limit refuses only what
// is over it.
func TestHostileClientHeadersJustUnderTheLimitPass(t *testing.T) {
	up := standin.New(standin.Options{})
	t.Cleanup(up.Close)
	addr := serveProxy(t, up)
	pad := "X-Pad: " + strings.Repeat("a", MaxHeaderBytes-1024) + "\r\n"
	res, body := rawRequest(t, addr, "GET /v1/models HTTP/1.1\r\nHost: "+addr+"\r\nAuthorization: Bearer "+testToken+"\r\n"+pad+"\r\n")
	if res.StatusCode != 200 {
		t.Errorf("status %d: %s", res.StatusCode, body)
	}
}

// A client's routing headers (X-Original-URL, X-Rewrite-URL, X-Forwarded-*, Forwarded, …, in any case and
// spelled with "_") never reach the service, on any route: a front end there could route by them to
// another path or host than the one gw serve chose. Other headers still pass.
func TestHostileClientRoutingHeadersAreNotForwarded(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	r := newRig(t, rigOpts{wrapUp: func(up http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			seen = append(seen, req.Header.Clone())
			mu.Unlock()
			up.ServeHTTP(w, req)
		})
	}})
	routing := http.Header{
		"X-Original-Url": {"/v1/admin"}, "X-Rewrite-Url": {"/v1/admin"}, "X-Original-Host": {"internal"},
		"X-Forwarded-Host": {"internal"}, "X-Forwarded-Prefix": {"/admin"}, "X-Forwarded-Server": {"internal"},
		"Forwarded": {"host=internal"}, "X-Http-Method-Override": {"DELETE"}, "X-Real-Ip": {"10.0.0.1"},
		"x_original_url": {"/v1/admin"},
	}
	hdr := http.Header{"X-Client-Note": {"kept"}}
	for k, v := range routing {
		hdr[k] = v
	}
	for _, path := range []string{"/v1/chat/completions", "/v1/models", "/v1/messages"} {
		method, body := "POST", chatBody(sonnet, false)
		switch path {
		case "/v1/models":
			method, body = "GET", ""
		case "/v1/messages":
			body = `{"model": "` + sonnet + `", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}`
		}
		res := r.do(waitCtx(t), method, path, body, hdr)
		if b := readAll(t, res); res.StatusCode != 200 {
			t.Fatalf("%s: status %d: %s", path, res.StatusCode, b)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("the service saw %d requests, want 3", len(seen))
	}
	for i, h := range seen {
		for k, v := range h {
			for r := range routing {
				if strings.EqualFold(strings.ReplaceAll(k, "_", "-"), strings.ReplaceAll(r, "_", "-")) {
					t.Errorf("request %d: the service got %s: %v", i, k, v)
				}
			}
		}
		if i < 2 && h.Get("X-Client-Note") != "kept" { // the translated route sends headers of its own
			t.Errorf("request %d: another header was dropped too: %v", i, h)
		}
	}
}

// Routing headers are dropped whatever their case, with "_" for "-", and
// however long; others are kept.
func TestRoutingHeadersDroppedInAnySpelling(t *testing.T) {
	long := "X_FORWARDED_" + strings.Repeat("Ab", 60)
	h := http.Header{long: {"x"}, "X-Forwarded-For": {"1"}, "x_REAL_ip": {"2"}, "Via": {"3"},
		"X-Forwardedx": {"kept"}, "X-" + strings.Repeat("Q", 80): {"kept"}, "Content-Type": {"kept"}}
	dropRoutingHeaders(h)
	if len(h) != 3 || h.Get("X-Forwardedx") == "" || h.Get("Content-Type") == "" {
		t.Errorf("left %v", h)
	}
}

// TestHostileClientItemReferencesPast64MiBAreRefused: a client stores one
// 1 MiB input item, then sends a few kilobytes naming it 80 times (then
// 1,000 times). What gw serve would build from its store is bounded like
// what it receives (64 MiB): the request is refused with a 400 naming the
// cause, before the body is built (a few MiB allocated, not 80), and the
// service is sent nothing.
func TestHostileClientItemReferencesPast64MiBAreRefused(t *testing.T) {
	r := newRig(t, rigOpts{})
	big := strings.Repeat("x", 1<<20)
	res := r.do(waitCtx(t), "POST", "/v1/responses",
		`{"model":"`+sonnet+`","input":[{"type":"message","id":"msg_big","role":"user","content":"`+big+`"}]}`, nil)
	if body := readAll(t, res); res.StatusCode != 200 {
		t.Fatalf("storing a 1 MiB item: %d %.300s", res.StatusCode, body)
	}
	before := len(r.up.Seen())
	for _, n := range []int{80, 1000} {
		refs := strings.TrimSuffix(strings.Repeat(`{"type":"item_reference","id":"msg_big"},`, n), ",")
		body := `{"model":"` + sonnet + `","store":false,"input":[` + refs + `]}`
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		res := r.do(waitCtx(t), "POST", "/v1/responses", body, nil)
		ce := readClientError(t, "responses", res)
		runtime.ReadMemStats(&m1)
		if ce.Status != 400 || !strings.Contains(ce.Message, "item_reference") || !strings.Contains(ce.Message, "64 MiB") {
			t.Errorf("%d references to a 1 MiB item (a %d-byte request): %+v", n, len(body), ce)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%d references to a 1 MiB item: gw serve allocated %d MiB refusing them", n, alloc>>20)
		}
	}
	if seen := r.up.Seen(); len(seen) != before {
		t.Errorf("the service was sent %d requests built from references past the limit", len(seen)-before)
	}
}

// paddedBody is a request of route rt whose one user message makes it n
// bytes long.
func paddedBody(t testing.TB, rt testRoute, n int) []byte {
	t.Helper()
	small := rt.body(sonnet, false)
	var doc map[string]any
	if err := json.Unmarshal([]byte(small), &doc); err != nil {
		t.Fatal(err)
	}
	msg := map[string]any{"role": "user", "content": "PAD"}
	if rt.proto == "responses" {
		doc["input"] = []any{msg}
	} else {
		doc["messages"] = []any{msg}
	}
	b, _ := json.Marshal(doc)
	pad := n - len(b) + len("PAD")
	if pad < 0 {
		t.Fatalf("a body of %d bytes cannot hold %s", n, b)
	}
	return bytes.Replace(b, []byte("PAD"), bytes.Repeat([]byte("a"), pad), 1)
}

// sendBody posts body to gw serve: with its length, chunked (length
// unknown), or gzip-encoded.
func (r *rig) sendBody(path string, body []byte, how string) *http.Response {
	r.t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if how == "chunked" {
		rd = io.MultiReader(rd) // no length: sent chunked
	}
	req, err := http.NewRequestWithContext(waitCtx(r.t), "POST", strings.TrimSuffix(r.base, "/v1")+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	if how == "gzip" {
		req.Header.Set("Content-Encoding", "gzip")
	}
	res, err := r.client.Do(req)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	return res
}

// allocated is what the process allocated while f ran.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestHostileClientBodyPast64MiBCostsAtMost64MiB: a body past the one
// request limit (64 MiB) is refused on both translated routes, and costs
// gw serve no more than the limit whatever its shape: 64 MiB + 1 KiB with
// its length, the same chunked, and a 1 MB gzip bomb that inflates past
// the limit (before, refusing one grew gw serve by hundreds of MiB).
func TestHostileClientBodyPast64MiBCostsAtMost64MiB(t *testing.T) {
	limit := int(relay.DefaultLimits.Request)
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestCompression)
	_, _ = zw.Write(bytes.Repeat([]byte(" "), 1<<30))
	_ = zw.Close()
	bomb := zb.Bytes()
	for _, rt := range testRoutes[1:] {
		r := newRig(t, rigOpts{})
		over := paddedBody(t, rt, limit+1<<10)
		for _, how := range []string{"length", "chunked", "gzip"} {
			body := over
			if how == "gzip" {
				body = bomb
			}
			var ce clientError
			alloc := allocated(func() { ce = readClientError(t, rt.proto, r.sendBody(rt.path, body, how)) })
			if (ce.Status != 413 && ce.Status != 400) || !strings.Contains(ce.Message, "larger than 64 MiB") {
				t.Errorf("%s, %s: a body past the limit: %+v", rt.path, how, ce)
			}
			// The limit, and a little for the connection, the gzip window
			// and the answer.
			if alloc > uint64(limit)+1<<20 {
				t.Errorf("%s, %s: refusing a body past the limit allocated %.1f MiB, more than the limit", rt.path, how, float64(alloc)/(1<<20))
			}
		}
		if n := len(r.up.Seen()); n != 0 {
			t.Errorf("%s: the service was sent %d requests", rt.path, n)
		}
	}
}

// TestHostileClientForgesNoLogLine: a /v1/messages tool whose type holds a
// newline, a whole request-log line and an escape sequence makes one line
// of the request log, not three: gw usage counts none of the forged line's
// tokens, and no raw ESC (or C1) reaches serve.log or gw serve's terminal.
func TestHostileClientForgesNoLogLine(t *testing.T) {
	r := newRig(t, rigOpts{})
	forged := "2026-11-21T06:05:40.998+01:00 POST /v1/messages agent=claude-code model=m status=200 dur=3s prompt_tokens=100000020 completion_tokens=6 proto=messages stream=false"
	for _, typ := range []string{
		"x\n" + forged + "\n",
		"x prompt_tokens=100000020 \x1b]52;c;aGk=\x07\x1b[2J\u009b31m",
	} {
		before := r.log.String()
		body, _ := json.Marshal(map[string]any{
			"model": sonnet, "max_tokens": 20,
			"messages": []any{map[string]any{"role": "user", "content": "hi"}},
			"tools":    []any{map[string]any{"name": "t", "type": typ}},
		})
		res := r.do(waitCtx(t), "POST", "/v1/messages", string(body), nil)
		readAll(t, res)
		var logged string
		for ctx := waitCtx(t); ; {
			if logged = strings.TrimPrefix(r.log.String(), before); strings.Contains(logged, "proto=messages") {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("no log line: %q", logged)
			case <-time.After(5 * time.Millisecond):
			}
		}
		time.Sleep(20 * time.Millisecond) // a forged line would follow at once
		logged = strings.TrimPrefix(r.log.String(), before)
		lines := strings.Split(strings.TrimSuffix(logged, "\n"), "\n")
		if len(lines) != 1 {
			t.Errorf("one request wrote %d log lines:\n%s", len(lines), logged)
		}
		if strings.ContainsAny(logged, "\x1b\x07\u009b") {
			t.Errorf("a control character reached the log: %q", logged)
		}
		var p reqlog.Parser
		var e reqlog.Entry
		for _, l := range lines {
			if p.Parse([]byte(l), &e) && e.Input == 100000020 {
				t.Errorf("the forged tokens are counted: %q", l)
			}
		}
	}
}
