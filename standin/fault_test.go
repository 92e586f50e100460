package standin

import (
	"bufio"
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func chatRequestTo(t *testing.T, ctx context.Context, rs *Running, stream bool) *http.Request {
	req, err := http.NewRequestWithContext(ctx, "POST", rs.BaseURL+"/chat/completions",
		strings.NewReader(chatBody("vendor-a/model-a-haiku-4.5", stream)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DemoKeyFull)
	return req
}

// readEvents reads data lines until the stream ends or fails.
func readEvents(r io.Reader) ([]string, error) {
	var out []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok && err == nil {
			out = append(out, data)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func TestParseFault(t *testing.T) {
	for in, want := range map[string]Fault{
		"none":                      {},
		"slow-headers":              {Kind: FaultSlowHeaders},
		"slow-headers:3s":           {Kind: FaultSlowHeaders, Delay: 3 * time.Second},
		"slow-stream:50ms":          {Kind: FaultSlowStream, Delay: 50 * time.Millisecond},
		"reset":                     {Kind: FaultReset, After: 2},
		"reset:0@/chat/completions": {Kind: FaultReset, Path: "/chat/completions"},
		"502":                       {Kind: FaultServerError, Status: 502},
		"5xx@/models":               {Kind: FaultServerError, Status: 500, Path: "/models"},
		"hang":                      {Kind: FaultHang},
		"429:1500ms":                {Kind: FaultServerError, Status: 429, RetryAfter: 1500 * time.Millisecond},
		"529":                       {Kind: FaultServerError, Status: 529},
		"overflow":                  {Kind: FaultOverflow},
		"overflow:3":                {Kind: FaultOverflow, After: 3},
	} {
		got, err := ParseFault(in)
		if err != nil || got != want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, _ := ParseFault(got.String()); again.String() != got.String() {
			t.Errorf("ParseFault(%q.String() = %q) = %+v", in, got.String(), again)
		}
	}
	for _, in := range []string{"slow", "reset:-1", "slow-stream:fast", "hang:1", "404", "500@models", "none:1", "500:1s", "429:soon", "overflow:x"} {
		if _, err := ParseFault(in); err == nil || !strings.Contains(err.Error(), "use none, slow-headers") && !strings.Contains(err.Error(), "path suffix") {
			t.Errorf("ParseFault(%q): error %v, want one that lists the valid faults", in, err)
		}
	}
}

func TestFault_SlowHeaders(t *testing.T) {
	rs := start(t, Options{Fault: Fault{Kind: FaultSlowHeaders, Delay: time.Hour}})
	tr := rs.Client().Transport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 50 * time.Millisecond
	defer tr.CloseIdleConnections()
	_, err := (&http.Client{Transport: tr}).Do(chatRequestTo(t, t.Context(), rs, false))
	if err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Fatalf("want a response-header time-out, got %v", err)
	}
	// A short delay only delays: the answer still comes.
	rs.SetFault(Fault{Kind: FaultSlowHeaders, Delay: time.Millisecond})
	if status, _, body := do(t, rs, "GET", "/v1/models", DemoKeyFull, ""); status != 200 {
		t.Errorf("after the delay: %d %s", status, body)
	}
}

func TestFault_SlowStreamAndCancel(t *testing.T) {
	rs := start(t, Options{Fault: Fault{Kind: FaultSlowStream, Delay: time.Hour}})
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := rs.Client().Do(chatRequestTo(t, ctx, rs, true))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"role":"assistant"`) {
		t.Fatalf("first event %q, %v", line, err)
	}
	cancel() // the client gives up while the stand-in waits to send event 1
	seen, err := rs.WaitFor(waitCtx(t), func(s []Seen) bool { return len(s) == 1 && s[0].Done })
	if err != nil {
		t.Fatal(err)
	}
	if !seen[0].Cancelled || seen[0].Events != 1 || seen[0].Status != 200 {
		t.Errorf("seen %+v, want cancelled after 1 event", seen[0])
	}
}

func TestFault_ResetMidStream(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		var rs *Running
		if useTLS {
			var err error
			if rs, err = StartTLS(Options{Fault: Fault{Kind: FaultReset, After: 3}}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(rs.Close)
		} else {
			rs = start(t, Options{Fault: Fault{Kind: FaultReset, After: 3}})
		}
		resp, err := rs.Client().Do(chatRequestTo(t, t.Context(), rs, true))
		if err != nil {
			t.Fatal(err)
		}
		events, err := readEvents(resp.Body)
		resp.Body.Close()
		if len(events) != 3 || err == nil {
			t.Fatalf("tls=%v: %d events, error %v; want 3 events then a failed read", useTLS, len(events), err)
		}
		if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("tls=%v: read error %v, want a connection reset", useTLS, err)
		}
		// A non-streamed answer is cut before any header.
		_, err = rs.Client().Do(chatRequestTo(t, t.Context(), rs, false))
		if err == nil {
			t.Errorf("tls=%v: non-streamed request under reset succeeded", useTLS)
		}
	}
}

func TestFault_ServerErrors(t *testing.T) {
	rs := start(t, Options{Dialect: DialectOpenRouter})
	for _, tc := range []struct {
		status int
		ctype  string
		body   string
	}{
		{500, "application/json", `{"error":{"code":500,"message":"Internal Server Error"}}`},
		{502, "text/html", "<center><h1>502 Bad Gateway</h1></center>"},
		{503, "application/json", `{"error":{"code":503,"message":"Internal Server Error"}}`},
	} {
		rs.SetFault(Fault{Kind: FaultServerError, Status: tc.status})
		status, ctype, body := do(t, rs, "GET", "/v1/models", DemoKeyFull, "")
		if status != tc.status || ctype != tc.ctype || !strings.Contains(body, tc.body) {
			t.Errorf("%d: got %d %s %s", tc.status, status, ctype, body)
		}
	}
	// Limited to chat: the listing still works.
	rs.SetFault(Fault{Kind: FaultServerError, Status: 503, Path: "/chat/completions"})
	if status, _, _ := do(t, rs, "GET", "/v1/models", DemoKeyFull, ""); status != 200 {
		t.Errorf("/models under 503@/chat/completions: %d", status)
	}
	if status, _, _ := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, chatBody("vendor-a/model-a-haiku-4.5", false)); status != 503 {
		t.Errorf("chat under 503@/chat/completions: %d", status)
	}
}

func TestFault_Hang(t *testing.T) {
	rs := start(t, Options{Fault: Fault{Kind: FaultHang}})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req := chatRequestTo(t, ctx, rs, true)
	if _, err := rs.Client().Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the client's deadline, got %v", err)
	}
	seen, err := rs.WaitFor(waitCtx(t), func(s []Seen) bool { return len(s) == 1 && s[0].Done })
	if err != nil {
		t.Fatal(err)
	}
	if !seen[0].Cancelled || seen[0].Status != 0 {
		t.Errorf("seen %+v: want cancelled with no status sent", seen[0])
	}
}

func TestFault_HangReleasedByClose(t *testing.T) {
	rs := Start(Options{Fault: Fault{Kind: FaultHang}})
	errc := make(chan error, 1)
	go func() {
		resp, err := rs.Client().Do(chatRequestTo(t, context.Background(), rs, false))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	if _, err := rs.WaitFor(waitCtx(t), func(s []Seen) bool { return len(s) == 1 }); err != nil {
		t.Fatal(err)
	}
	rs.Close() // returns only once the hanging handler has
	if err := <-errc; err == nil {
		t.Error("the client got an answer from a hanging server that closed; want a failed request")
	}
}

// The stand-in writes event n+1 only after the client has read event n.
func TestBeforeEvent_GatesEachEvent(t *testing.T) {
	gate := make(chan int)
	release := make(chan struct{})
	rs := start(t, Options{BeforeEvent: func(ctx context.Context, n int) {
		if n == 2 {
			select {
			case gate <- n:
			case <-ctx.Done():
				return
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}})
	resp, err := rs.Client().Do(chatRequestTo(t, t.Context(), rs, true))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var got []string
	for len(got) < 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			got = append(got, d)
		}
	}
	if n := <-gate; n != 2 {
		t.Fatalf("gate at %d", n)
	}
	if s := rs.Seen(); s[0].Events != 2 {
		t.Fatalf("stand-in wrote %d events before the gate, want 2", s[0].Events)
	}
	close(release)
	rest, err := readEvents(br)
	if err != nil || len(got)+len(rest) != 9 || rest[len(rest)-1] != "[DONE]" {
		t.Fatalf("after release: %d more events, %v", len(rest), err)
	}
}

func TestStartTLS_SelfSigned(t *testing.T) {
	rs, err := StartTLS(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if !strings.HasPrefix(rs.BaseURL, "https://127.0.0.1:") {
		t.Fatalf("base URL %s", rs.BaseURL)
	}
	if status, _, _ := do(t, rs, "GET", "/v1/models", DemoKeyFull, ""); status != 200 {
		t.Errorf("trusting client: %d", status)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(rs.CertPEM) {
		t.Fatal("CertPEM holds no certificate")
	}
	plain := &http.Client{Transport: &http.Transport{}}
	defer plain.CloseIdleConnections()
	_, err = plain.Get(rs.BaseURL + "/models")
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("client without the certificate: %v, want an unknown-authority error", err)
	}
}

// After Close, no goroutine of the stand-in is left, even with requests
// hanging, streaming slowly or gated.
func TestClose_NoGoroutineLeft(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, f := range []Fault{{Kind: FaultHang}, {Kind: FaultSlowStream, Delay: time.Hour}, {Kind: FaultSlowHeaders, Delay: time.Hour}, {}} {
		rs := Start(Options{Fault: f})
		tr := &http.Transport{}
		done := make(chan struct{})
		go func() {
			defer close(done)
			resp, err := (&http.Client{Transport: tr}).Do(chatRequestTo(t, context.Background(), rs, true))
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		if _, err := rs.WaitFor(waitCtx(t), func(s []Seen) bool { return len(s) == 1 }); err != nil {
			t.Fatal(err)
		}
		rs.Close()
		<-done
		tr.CloseIdleConnections()
	}
}

func TestFault_RetryAfter(t *testing.T) {
	for _, tc := range []struct {
		dialect string
		fault   Fault
		retry   string
		ms      string
		body    string
	}{
		{DialectOpenAI, Fault{Kind: FaultServerError, Status: 429}, "1", "1000", `"code":"rate_limit_exceeded"`},
		{DialectOpenRouter, Fault{Kind: FaultServerError, Status: 429, RetryAfter: 1500 * time.Millisecond}, "2", "1500", `{"error":{"code":429,"message":"Rate limit exceeded`},
		{DialectLiteLLM, Fault{Kind: FaultServerError, Status: 529}, "1", "1000", `"type":"overloaded_error"`},
		{DialectOpenAI, Fault{Kind: FaultServerError, Status: 503, RetryAfter: 3 * time.Second}, "3", "3000", `"type":"server_error"`},
		{DialectOpenAI, Fault{Kind: FaultServerError, Status: 500}, "", "", `"type":"server_error"`},
	} {
		rs := start(t, Options{Dialect: tc.dialect, Fault: tc.fault})
		status, hdr, body := post(t, rs, DemoKeyFull, nil, chatBody("vendor-a/model-a-haiku-4.5", true))
		if status != tc.fault.Status || hdr.Get("Retry-After") != tc.retry || hdr.Get("Retry-After-Ms") != tc.ms || !strings.Contains(body, tc.body) {
			t.Errorf("%s %s: %d Retry-After %q retry-after-ms %q %s; want %d %q %q %s", tc.dialect, tc.fault, status,
				hdr.Get("Retry-After"), hdr.Get("Retry-After-Ms"), body, tc.fault.Status, tc.retry, tc.ms, tc.body)
		}
	}
}

func TestFault_ContextOverflow(t *testing.T) {
	for dialect, want := range map[string]string{
		DialectOpenAI:     `"code":"context_length_exceeded"`,
		DialectOpenRouter: `maximum context length is 200000 tokens`,
		DialectLiteLLM:    `prompt is too long: 200001 tokens > 200000 maximum`,
		DialectNewAPI:     `"code":"context_length_exceeded"`,
	} {
		rs := start(t, Options{Dialect: dialect, Fault: Fault{Kind: FaultOverflow}})
		status, _, body := post(t, rs, DemoKeyFull, nil, chatBody("vendor-a/model-a-haiku-4.5", true))
		if status != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s, want 400 with %s", dialect, status, body, want)
		}
	}

	// A window set in Options: a prompt beyond it is refused with its real size.
	rs := start(t, Options{ContextTokens: 1000})
	if status, _, body := post(t, rs, DemoKeyFull, nil, chatBody("vendor-a/model-a-haiku-4.5", false)); status != 200 {
		t.Errorf("a short prompt: %d %s", status, body)
	}
	long := `{"model":"vendor-a/model-a-haiku-4.5","messages":[{"role":"user","content":"` + strings.Repeat("word", 1200) + `"}]}`
	if status, _, body := post(t, rs, DemoKeyFull, nil, long); status != 400 || !strings.Contains(body, "maximum context length is 1000 tokens. However, your messages resulted in 1203 tokens") {
		t.Errorf("a prompt of 1203 tokens in a window of 1000: %d %s", status, body)
	}

	// Mid-stream: the events before, then the error as an event, no [DONE].
	rs = start(t, Options{Dialect: DialectOpenRouter, Fault: Fault{Kind: FaultOverflow, After: 2}})
	status, _, body := post(t, rs, DemoKeyFull, nil, chatBody("vendor-a/model-a-haiku-4.5", true))
	events := sse(t, strings.NewReader(body))
	if status != 200 || len(events) != 3 || !strings.HasPrefix(events[2], `{"error":{"code":400,"message":"This endpoint's maximum context length`) {
		t.Errorf("overflow after 2 events: %d %q", status, events)
	}
}
