package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"

	"github.com/modelgateway/gw/api/apitest"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

func TestRefusals(t *testing.T) {
	r := newRig(t, rigOpts{})
	port := strings.TrimPrefix(r.base[strings.LastIndex(r.base[:len(r.base)-3], ":"):len(r.base)-3], ":")
	cases := []struct {
		name   string
		method string
		path   string
		hdr    http.Header
		status int
		code   string
		says   string
	}{
		{"foreign host (DNS rebinding)", "GET", "/v1/models", http.Header{"Host": {"evil.example:" + port}}, 403, CodeHostRefused, "DNS rebinding"},
		{"loopback host with another port", "GET", "/v1/models", http.Header{"Host": {"127.0.0.1:1"}}, 403, CodeHostRefused, "with port " + port},
		{"host without port", "GET", "/v1/models", http.Header{"Host": {"localhost"}}, 403, CodeHostRefused, "Host \"localhost\""},
		{"browser origin", "POST", "/v1/chat/completions", http.Header{"Origin": {"https://evil.example"}}, 403, CodeOriginRefused, "web page"},
		{"origin from localhost page", "GET", "/v1/models", http.Header{"Origin": {"http://localhost:3000"}}, 403, CodeOriginRefused, "Origin header"},
		{"cross-site fetch", "GET", "/v1/models", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403, CodeCrossSiteRefused, "cross-site"},
		{"missing local token", "GET", "/v1/models", http.Header{"Authorization": nil}, 401, CodeLocalTokenMissing, "API key invalid or unauthorized: gw serve needs its local token"},
		{"wrong local token", "GET", "/v1/models", http.Header{"Authorization": {"Bearer gw-local-ffff"}}, 401, CodeLocalTokenInvalid, "API key invalid or unauthorized: the client's key is not"},
		{"real key instead of local token", "GET", "/v1/models", http.Header{"Authorization": {"Bearer " + realKey}}, 401, CodeLocalTokenInvalid, "belongs in gw's keychain"},
		{"token with another scheme", "GET", "/v1/models", http.Header{"Authorization": {"Basic " + testToken}}, 401, CodeLocalTokenInvalid, "not this install's"},
		{"path outside /v1", "GET", "/models", nil, 404, CodeNotFound, "only /v1/… paths"},
		{"root", "GET", "/", nil, 404, CodeNotFound, "not found"},
		{"bare /v1", "GET", "/v1", nil, 404, CodeNotFound, "not found"},
		{"dot segments climbing out of /v1", "GET", "/v1/../admin", nil, 404, CodeNotFound, "not found"},
		{"encoded dot segments", "GET", "/v1/%2e%2e/admin", nil, 404, CodeNotFound, "not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := r.do(waitCtx(t), c.method, c.path, "", c.hdr)
			body := readAll(t, res)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, body)
			}
			e := gwError(t, body)
			if e.Code != c.code || !strings.Contains(e.Message, c.says) {
				t.Errorf("got code %q message %q; want code %q and a message saying %q", e.Code, e.Message, c.code, c.says)
			}
			for k := range res.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("refusal carries CORS header %s", k)
				}
			}
			if strings.Contains(body, realKey) || strings.Contains(body, testToken) {
				t.Errorf("refusal echoes a secret: %s", body)
			}
		})
	}
	if seen := r.up.Seen(); len(seen) != 0 {
		t.Errorf("refused requests reached the service: %+v", seen)
	}
	r.h.log.flush() // as gw serve does when it stops
	logs := r.log.String()
	if n := loggedRequests(logs); n != len(cases) {
		t.Errorf("want every request logged (%d), got %d:\n%s", len(cases), n, logs)
	}
	for _, code := range []string{CodeHostRefused, CodeOriginRefused, CodeCrossSiteRefused, CodeLocalTokenMissing, CodeLocalTokenInvalid, CodeNotFound} {
		if !strings.Contains(logs, "refused="+code) {
			t.Errorf("log does not say refused=%s:\n%s", code, logs)
		}
	}
	if strings.Contains(logs, realKey) || strings.Contains(logs, testToken) {
		t.Errorf("log holds a secret:\n%s", logs)
	}
}

func TestAcceptedHostNames(t *testing.T) {
	r := newRig(t, rigOpts{})
	u, _ := url.Parse(r.base)
	for _, host := range []string{"127.0.0.1", "localhost", "LOCALHOST"} {
		res := r.do(waitCtx(t), "GET", "/v1/models", "", http.Header{"Host": {host + ":" + u.Port()}})
		if body := readAll(t, res); res.StatusCode != 200 {
			t.Errorf("Host %s: status %d: %s", host, res.StatusCode, body)
		}
	}
}

func TestForwardsPathAndQueryWithTheRealKey(t *testing.T) {
	r := newRig(t, rigOpts{})
	res := r.do(waitCtx(t), "GET", "/v1/models?limit=5&after=x%2Fy", "", http.Header{
		"Cookie": {"session=1"}, "X-Forwarded-For": {"10.0.0.1"},
	})
	if body := readAll(t, res); res.StatusCode != 200 || !strings.Contains(body, sonnet) {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	seen := r.up.Seen()
	if len(seen) != 1 {
		t.Fatalf("service saw %d requests, want 1", len(seen))
	}
	if s := seen[0]; s.Path != "/v1/models" || s.Query != "limit=5&after=x%2Fy" || s.Key != realKey {
		t.Errorf("service saw path %q query %q key-is-real=%v", s.Path, s.Query, s.Key == realKey)
	}
}

func TestClientConnectionHeaderCannotStripTheKey(t *testing.T) {
	r := newRig(t, rigOpts{})
	res := r.do(waitCtx(t), "GET", "/v1/models", "", http.Header{"Connection": {"Authorization"}})
	if body := readAll(t, res); res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if seen := r.up.Seen(); len(seen) != 1 || seen[0].Key != realKey {
		t.Fatalf("the service did not get the real key: %+v", seen)
	}
}

func TestStreamsEachEventBeforeTheNextIsSent(t *testing.T) {
	seenByClient := make(chan int, 100)
	var failures = make(chan string, 100)
	r := newRig(t, rigOpts{standin: standin.Options{
		BeforeEvent: func(ctx context.Context, n int) {
			if n == 0 {
				return
			}
			// Event n is sent only once the client has read event n-1: a
			// proxy that held events back would never get here.
			select {
			case got := <-seenByClient:
				if got != n-1 {
					failures <- fmt.Sprintf("before event %d the client had read event %d", n, got)
				}
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
				failures <- fmt.Sprintf("event %d: the client never received event %d", n, n-1)
			}
		},
	}})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true), nil)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if ce := res.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("stream was compressed: %s", ce)
	}
	br := bufio.NewReader(res.Body)
	n := 0
	var content strings.Builder
	for {
		line, err := br.ReadString('\n')
		if d, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
			if d != "[DONE]" && strings.Contains(d, `"content":"`) {
				content.WriteString(d)
			}
			seenByClient <- n
			n++
		}
		if err != nil {
			break
		}
	}
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	if n < 5 {
		t.Errorf("got %d events, want the whole answer", n)
	}
}

func TestClientGoneCancelsTheUpstreamRequest(t *testing.T) {
	release := make(chan struct{})
	r := newRig(t, rigOpts{standin: standin.Options{
		BeforeEvent: func(ctx context.Context, n int) {
			if n >= 2 {
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
		},
	}})
	defer close(release)
	ctx, cancel := context.WithCancel(waitCtx(t))
	res := r.do(ctx, "POST", "/v1/chat/completions", chatBody(sonnet, true), nil)
	br := bufio.NewReader(res.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel() // the client hangs up mid-stream
	res.Body.Close()

	seen, err := r.up.WaitFor(waitCtx(t), func(s []standin.Seen) bool { return len(s) == 1 && s[0].Done })
	if err != nil {
		t.Fatalf("the service's handler is still running after the client left: %+v", seen)
	}
	if !seen[0].Cancelled {
		t.Errorf("the service did not see the request cancelled: %+v", seen[0])
	}
	// The service did nothing wrong: the log must not blame it.
	waitForLog(t, r.log, "aborted=")
	if l := r.log.String(); !strings.Contains(l, "aborted=client_gone") {
		t.Errorf("a client hanging up mid-stream was logged as\n%s\nwant aborted=client_gone", l)
	}
}

func TestUpstreamResetMidStreamEndsTheClientStream(t *testing.T) {
	r := newRig(t, rigOpts{standin: standin.Options{Fault: standin.Fault{Kind: standin.FaultReset, After: 3}}})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true), nil)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	b, err := io.ReadAll(res.Body)
	if err == nil {
		t.Errorf("the client saw a clean end of a broken stream:\n%s", b)
	}
	if strings.Contains(string(b), "gw_error") || strings.Contains(string(b), "[DONE]") {
		t.Errorf("after the 200 the client got more than the events sent:\n%s", b)
	}
	if got := strings.Count(string(b), "data: "); got != 3 {
		t.Errorf("client got %d events, want the 3 sent before the reset", got)
	}
	waitForLog(t, r.log, "aborted=upstream_stream_broken")
}

func waitForLog(t *testing.T, log *testutil.SyncBuffer, want string) {
	t.Helper()
	ctx := waitCtx(t)
	for !strings.Contains(log.String(), want) {
		select {
		case <-ctx.Done():
			t.Fatalf("log never said %q:\n%s", want, log.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestKeepAliveAfterUnreachableUpstream: an agent's next request on the same
// connection, after the service could not be reached, is answered too. The
// transport closes the request body on a goroutine of its own when it
// cannot connect; closed after the handler returned, that close raced
// net/http's read of the next request, and the agent's next request was
// reset.
func TestKeepAliveAfterUnreachableUpstream(t *testing.T) {
	r := newRig(t, rigOpts{proxy: func(o *Options) { o.Upstream, _ = url.Parse("http://" + apitest.ClosedAddr(t) + "/v1") }})
	for i := range 50 {
		for _, rt := range testRoutes {
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
			if ce := readClientError(t, rt.proto, res); ce.Status != http.StatusBadGateway {
				t.Fatalf("request %d to %s: %+v", i, rt.path, ce)
			}
		}
	}
}

func TestUnreachableUpstream(t *testing.T) {
	r := newRig(t, rigOpts{proxy: func(o *Options) {
		// Port 1 on loopback: nothing listens there, the connection is refused.
		o.Upstream, _ = url.Parse("http://127.0.0.1:1/v1")
	}})
	res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
	body := readAll(t, res)
	if res.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	e := gwError(t, body)
	if e.Code != CodeUnreachable || !strings.HasPrefix(e.Message, "unable to connect to API: ") {
		t.Errorf("got %+v", e)
	}
	if !strings.Contains(strings.ToLower(e.Message), "refused") {
		t.Errorf("message does not name the cause: %q", e.Message)
	}
	// The log says the service failed, not that gw serve refused the request.
	waitForLog(t, r.log, "status=502")
	if logs := r.log.String(); !strings.Contains(logs, " failed=upstream_unreachable") || strings.Contains(logs, "refused=") {
		t.Errorf("log line:\n%s", logs)
	}
}

func TestNoKeyStored(t *testing.T) {
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) {
		return "", fmt.Errorf("%w: keychain, file; run: gw auth login", keychain.ErrNotFound)
	}})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true), nil)
	body := readAll(t, res)
	if res.StatusCode != 401 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if e := gwError(t, body); e.Message != "API key invalid or unauthorized: no key stored — run gw auth login" || e.Code != CodeNoKey {
		t.Errorf("got %+v", e)
	}
	if len(r.up.Seen()) != 0 {
		t.Error("a request without a key reached the service")
	}
}

func TestKeychainFailureIsNotReportedAsNoKey(t *testing.T) {
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) {
		return "", errors.New("keychain did not answer within 3s")
	}})
	res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
	body := readAll(t, res)
	e := gwError(t, body)
	if res.StatusCode != 503 || e.Code != CodeKeyUnavailable || !strings.Contains(e.Message, "did not answer within 3s") {
		t.Errorf("status %d, %+v", res.StatusCode, e)
	}
}

func TestUpstreamErrorsPassThroughUnchanged(t *testing.T) {
	t.Run("5xx", func(t *testing.T) {
		for _, status := range []int{500, 502, 503} {
			r := newRig(t, rigOpts{standin: standin.Options{Fault: standin.Fault{Kind: standin.FaultServerError, Status: status}}})
			direct := directCall(t, r.upURL+"/models", realKey)
			res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
			body := readAll(t, res)
			if res.StatusCode != status || body != direct.body || res.Header.Get("Retry-After") != direct.retryAfter {
				t.Errorf("%d through gw serve: %d %s\ndirect: %s", status, res.StatusCode, body, direct.body)
			}
		}
	})
}

type directResult struct {
	status                  int
	body, ctype, retryAfter string
}

func directCall(t *testing.T, u, key string) directResult {
	t.Helper()
	req, _ := http.NewRequestWithContext(waitCtx(t), "GET", u, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	return directResult{res.StatusCode, readAll(t, res), res.Header.Get("Content-Type"), res.Header.Get("Retry-After")}
}

func TestUnknownModelGainsTheClosestID(t *testing.T) {
	for _, d := range standin.Dialects() {
		t.Run(d, func(t *testing.T) {
			r := newRig(t, rigOpts{standin: standin.Options{Dialect: d}})
			res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody("vendor-a/model-a-sonet-4.5", false), nil)
			body := readAll(t, res)
			if res.StatusCode < 400 {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			if !strings.Contains(body, `did you mean \"vendor-a/model-a-sonnet-4.5\"?`) &&
				!strings.Contains(body, `did you mean "vendor-a/model-a-sonnet-4.5"?`) {
				t.Errorf("no suggestion in %s", body)
			}
			if got := res.Header.Get("Content-Length"); got != fmt.Sprint(len(body)) {
				t.Errorf("Content-Length %s for a body of %d bytes", got, len(body))
			}
		})
	}
}

func TestModelNotInPlanGetsNoSuggestion(t *testing.T) {
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) { return standin.DemoKeyPartial, nil }})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody("vendor-a/model-a-opus-4.6", false), nil)
	body := readAll(t, res)
	if res.StatusCode < 400 || strings.Contains(body, "did you mean") {
		t.Errorf("status %d: %s", res.StatusCode, body)
	}
}

func TestLogLineForAStream(t *testing.T) {
	r := newRig(t, rigOpts{})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions?api-key=should-not-be-logged", chatBody(sonnet, true), nil)
	events, err := sseEvents(res.Body)
	res.Body.Close()
	if err != nil || len(events) < 3 {
		t.Fatalf("events %d, err %v", len(events), err)
	}
	waitForLog(t, r.log, "\n")
	line := r.log.String()
	for _, want := range []string{" POST /v1/chat/completions model=" + sonnet + " status=200 dur=", " prompt_tokens=", " completion_tokens="} {
		if !strings.Contains(line, want) {
			t.Errorf("log line lacks %q: %s", want, line)
		}
	}
	if strings.Contains(line, "should-not-be-logged") || strings.Contains(line, realKey) || strings.Contains(line, testToken) || strings.Contains(line, "hi") && strings.Contains(line, "messages") {
		t.Errorf("log line holds what it must not: %s", line)
	}
	// The usage the log reports is the one the stream carried.
	last := events[len(events)-2]
	if !strings.Contains(last, `"usage"`) {
		t.Fatalf("no usage chunk: %s", last)
	}
	m := regexp.MustCompile(`"prompt_tokens":(\d+),"completion_tokens":(\d+)`).FindStringSubmatch(last)
	if m == nil || !strings.Contains(line, "prompt_tokens="+m[1]+" completion_tokens="+m[2]) {
		t.Errorf("log %s does not match usage %s", line, last)
	}
}

func TestLogLineForANonStreamedAnswer(t *testing.T) {
	r := newRig(t, rigOpts{})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, false), nil)
	readAll(t, res)
	waitForLog(t, r.log, "completion_tokens=")
	if !strings.Contains(r.log.String(), "model="+sonnet+" status=200") {
		t.Errorf("log: %s", r.log.String())
	}
}

// Claude Code's HEAD /api/hello at start, without a token, and a GET
// /healthz are answered by gw serve itself and logged as probes; nothing
// reaches the service. A web page asking the same is refused.
func TestClientProbesAreAnsweredAndLoggedAsProbes(t *testing.T) {
	r := newRig(t, rigOpts{})
	for _, c := range []struct {
		method, path string
		hdr          http.Header
		status       int
	}{
		{"HEAD", "/api/hello", http.Header{"Authorization": nil}, 200},
		{"GET", "/healthz", http.Header{"Authorization": nil}, 200},
		{"HEAD", "/api/hello", http.Header{"Authorization": nil, "Origin": {"https://evil.example"}}, 403},
	} {
		res := r.do(waitCtx(t), c.method, c.path, "", c.hdr)
		body := readAll(t, res)
		if res.StatusCode != c.status {
			t.Errorf("%s %s %v: status %d, want %d: %s", c.method, c.path, c.hdr, res.StatusCode, c.status, body)
		}
	}
	if seen := r.up.Seen(); len(seen) != 0 {
		t.Errorf("probes reached the service: %+v", seen)
	}
	r.h.log.flush()
	logs := r.log.String()
	if strings.Count(logs, " status=200 ") != 2 || strings.Count(logs, " probe\n") != 2 || !strings.Contains(logs, "refused=origin_refused") {
		t.Errorf("the probes were not logged as such:\n%s", logs)
	}
}
