package anthropic

import (
	"bufio"
	"context"
	"encoding/json"
	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/standin"
)

// post sends a Messages request to the gateway and reads the whole answer.
func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// errorOf reads an error answer, checking its shape.
func errorOf(t *testing.T, body string) errorDetail {
	t.Helper()
	var e errorOut
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Type != "error" || e.Error.Type == "" || e.Error.Message == "" {
		t.Fatalf("not an error of the Messages API (%v): %s", err, body)
	}
	return e.Error
}

func gatewayTo(t *testing.T, svc *standin.Running, key string) string {
	t.Helper()
	return startGateway(t, &Handler{Upstream: relaytest.UpstreamTo(svc.BaseURL, key, svc.Client())})
}

// Claude Code's recorded tool round trip through the handler and the
// stand-in: the first answer calls Read on the file the prompt names, the
// second quotes the tool's result.
func TestServeRecordedToolRoundTrip(t *testing.T) {
	svc := relaytest.StartService(t, standin.Options{})
	gw := gatewayTo(t, svc, standin.DemoKeyFull)
	bodies := recorded(t, "tool-round-trip")

	res, raw := post(t, gw+"/v1/messages?beta=true", string(bodies[0]))
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), raw)
	}
	a, err := checkStream(raw)
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	tools := a.tools()
	if len(tools) != 1 || tools[0].name != "Read" || tools[0].input != `{"file_path":"/home/user/project/notes.txt"}` || a.stopReason != "tool_use" {
		t.Fatalf("answer %+v", a)
	}
	// Claude Code's last breakpoint is on its Environment turn, the end of
	// the prompt: all of it is written to the cache.
	if a.usage["input_tokens"].(float64)+a.usage["cache_creation_input_tokens"].(float64) == 0 || a.usage["output_tokens"].(float64) == 0 {
		t.Errorf("no usage: %v", a.usage)
	}

	_, raw = post(t, gw+"/v1/messages?beta=true", string(bodies[1]))
	a, err = checkStream(raw)
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if want := "Tool result received: «1 The launch code is PINEAPPLE-42. 2»"; !strings.HasPrefix(a.text(), want) || a.stopReason != "end_turn" {
		t.Errorf("second answer %q (%s), want it to start with %q", a.text(), a.stopReason, want)
	}
	seen := svc.Seen()
	if len(seen) != 2 || seen[0].Path != "/v1/chat/completions" || !seen[0].Stream || seen[0].Model != "vendor-a/model-a-sonnet-4.5" {
		t.Errorf("the stand-in saw %+v", seen)
	}
}

func TestServeThinkingModel(t *testing.T) {
	svc := relaytest.StartService(t, standin.Options{})
	gw := gatewayTo(t, svc, standin.DemoKeyFull)
	_, raw := post(t, gw+"/v1/messages", `{"model":"vendor-a/model-a-sonnet-4.5-thinking","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hello there"}]}`)
	a, err := checkStream(raw)
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if a.blocks[0].kind != "thinking" || !strings.HasPrefix(a.thinking(), "The user wrote") || a.text() != standin.Greeting("vendor-a/model-a-sonnet-4.5-thinking") {
		t.Errorf("answer %+v", a)
	}
}

// An idle stream gets pings: the stand-in holds its second event until the
// client has seen one.
// streamWithPings asks a gateway in front of svc that pings every interval
// for a streamed answer.
func streamWithPings(t *testing.T, svc *standin.Running, every time.Duration) *http.Response {
	t.Helper()
	gw := startGateway(t, &Handler{Upstream: relaytest.UpstreamTo(svc.BaseURL, standin.DemoKeyFull, svc.Client()), PingInterval: every})
	res, err := http.Post(gw+"/v1/messages", "application/json", strings.NewReader(`{"model":"vendor-a/model-a-sonnet-4.5","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestServePingsAmidChunks: pings come from a timer while the chunks are
// translated in the request's goroutine; whenever they meet, the stream
// stays well-formed and whole. The service waits for a ping the client has
// seen at a few points and sends the other chunks at once, so the timer
// fires both while the stream is idle and while chunks arrive.
func TestServePingsAmidChunks(t *testing.T) {
	pings := make(chan struct{}, 1000)
	svc := relaytest.StartService(t, standin.Options{ContentChunks: 120, ChunkSize: 8, BeforeEvent: func(ctx context.Context, n int) {
		if n%30 == 1 {
			select {
			case <-pings:
			case <-ctx.Done():
			case <-time.After(30 * time.Second): // only a guard against hanging
			}
		}
	}})
	res := streamWithPings(t, svc, time.Millisecond)
	defer res.Body.Close()
	var all strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
		if sc.Text() == "event: ping" {
			pings <- struct{}{}
		}
	}
	a, err := checkStream(all.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, all.String())
	}
	if a.pings < 4 || len(a.text()) != 120*8 {
		t.Errorf("%d pings, %d bytes of text; want at least 4 pings and 960 bytes", a.pings, len(a.text()))
	}
}

func TestServeCountTokens(t *testing.T) {
	gw := startGateway(t, &Handler{Upstream: func(context.Context, *tr.Call) (*http.Response, error) {
		t.Error("count_tokens asked the service")
		return nil, io.EOF
	}})
	body := string(recorded(t, "tool-round-trip")[1])
	res, raw := post(t, gw+"/v1/messages/count_tokens?beta=true", body)
	var c struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal([]byte(raw), &c); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d: %s", res.StatusCode, raw)
	}
	// About a quarter of the translated request's bytes: about a quarter
	// of the Messages request's, well above nothing.
	if c.InputTokens < len(body)/10 || c.InputTokens > len(body)/3 {
		t.Errorf("input_tokens %d for a %d-byte request", c.InputTokens, len(body))
	}
	res, raw = post(t, gw+"/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":[{"type":"video"}]}]}`)
	if e := errorOf(t, raw); res.StatusCode != 400 || !strings.Contains(e.Message, "messages[0].content[0].type") {
		t.Errorf("%d %q", res.StatusCode, e.Message)
	}
}

func TestServeBadRequests(t *testing.T) {
	gw := startGateway(t, &Handler{Upstream: func(context.Context, *tr.Call) (*http.Response, error) {
		t.Error("a bad request reached the service")
		return nil, io.EOF
	}})
	res, raw := post(t, gw+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"x"}}]}]}`)
	if e := errorOf(t, raw); res.StatusCode != 400 || e.Type != TypeInvalidRequest || !strings.Contains(e.Message, "messages[0].content[0].source.type") {
		t.Errorf("%d %s %q", res.StatusCode, e.Type, e.Message)
	}
	res, raw = post(t, gw+"/v1/other", `{}`)
	if e := errorOf(t, raw); res.StatusCode != 404 || e.Type != TypeNotFound {
		t.Errorf("%d %s", res.StatusCode, e.Type)
	}
	big := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 2<<20) + `"}]}`
	small := startGateway(t, &Handler{MaxBody: 1 << 20})
	res, raw = post(t, small+"/v1/messages", big)
	if e := errorOf(t, raw); res.StatusCode != 413 || e.Type != TypeRequestTooLarge {
		t.Errorf("%d %s", res.StatusCode, e.Type)
	}
}
