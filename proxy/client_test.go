package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/modelgateway/gw/standin"
)

// A real OpenAI client, given gw serve's base URL and the local token,
// accumulates a streamed answer with tool-call deltas and usage.
func TestOpenAIClientStreamsThroughTheProxy(t *testing.T) {
	r := newRig(t, rigOpts{})
	client := openai.NewClient(option.WithBaseURL(r.base), option.WithAPIKey(testToken),
		option.WithHTTPClient(r.client), option.WithMaxRetries(0))
	stream := client.Chat.Completions.NewStreaming(waitCtx(t), openai.ChatCompletionNewParams{
		Model:    sonnet,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("please use the read_file tool")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: "read_file",
			Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{
				"path": map[string]any{"type": "string"}}, "required": []string{"path"}},
		})},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	acc := openai.ChatCompletionAccumulator{}
	chunks := 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		chunks++
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("choices: %+v", acc.Choices)
	}
	msg := acc.Choices[0].Message
	if !strings.Contains(msg.Content, standin.Greeting(sonnet)) {
		t.Errorf("content %q", msg.Content)
	}
	if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "read_file" {
		t.Fatalf("tool calls: %+v", msg.ToolCalls)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(msg.ToolCalls[0].Function.Arguments), &args); err != nil || args["path"] == nil {
		t.Errorf("tool arguments assembled from deltas are not the JSON sent: %q (%v)", msg.ToolCalls[0].Function.Arguments, err)
	}
	if acc.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("finish reason %q", acc.Choices[0].FinishReason)
	}
	if acc.Usage.PromptTokens == 0 || acc.Usage.CompletionTokens == 0 {
		t.Errorf("usage %+v", acc.Usage)
	}
	if chunks < 5 {
		t.Errorf("only %d chunks", chunks)
	}
	waitForLog(t, r.log, "completion_tokens="+strconv.FormatInt(acc.Usage.CompletionTokens, 10))
}

// recorder keeps what the stand-in wrote for each request, by the test's
// X-Test-Stream header, to compare with what the client received.
type recorder struct {
	mu   sync.Mutex
	sent map[string]*bytes.Buffer
}

type recordingWriter struct {
	http.ResponseWriter
	buf *bytes.Buffer
	mu  *sync.Mutex
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (rc *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := &bytes.Buffer{}
		rc.mu.Lock()
		rc.sent[r.Header.Get("X-Test-Stream")] = buf
		rc.mu.Unlock()
		next.ServeHTTP(&recordingWriter{ResponseWriter: w, buf: buf, mu: &rc.mu}, r)
	})
}

func (rc *recorder) get(id string) string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if b := rc.sent[id]; b != nil {
		return b.String()
	}
	return ""
}

func TestConcurrentStreamsArriveIntact(t *testing.T) {
	rec := &recorder{sent: map[string]*bytes.Buffer{}}
	r := newRig(t, rigOpts{standin: standin.Options{ContentChunks: 300, ChunkSize: 24}, wrapUp: rec.wrap})
	streamsArriveIntact(t, r, rec, 0)
	if lines := strings.Count(r.log.String(), "status=200"); lines != concurrentStreams {
		t.Errorf("%d log lines for %d streams", lines, concurrentStreams)
	}
}

const concurrentStreams = 64

// streamsArriveIntact sends concurrentStreams streamed requests at once
// through r, numbered from first, and checks each arrives as rec saw it sent.
func streamsArriveIntact(t *testing.T, r *rig, rec *recorder, first int) {
	t.Helper()
	got := make([]string, concurrentStreams)
	var wg sync.WaitGroup
	for i := range concurrentStreams {
		wg.Go(func() {
			res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true),
				http.Header{"X-Test-Stream": {strconv.Itoa(first + i)}})
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil || res.StatusCode != 200 {
				t.Errorf("stream %d: status %d, %v", i, res.StatusCode, err)
			}
			got[i] = string(b)
		})
	}
	wg.Wait()
	for i := range concurrentStreams {
		want := rec.get(strconv.Itoa(first + i))
		if want == "" || got[i] != want {
			t.Errorf("stream %d: client got %d bytes, the service sent %d, equal=%v", first+i, len(got[i]), len(want), got[i] == want)
		}
		if !strings.HasSuffix(got[i], "data: [DONE]\n\n") {
			t.Errorf("stream %d is incomplete", first+i)
		}
	}
}

func TestSlowUpstreamStreamsThrough(t *testing.T) {
	r := newRig(t, rigOpts{standin: standin.Options{Fault: standin.Fault{Kind: standin.FaultSlowStream, Delay: 20 * time.Millisecond}}})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true), nil)
	events, err := sseEvents(res.Body)
	res.Body.Close()
	if err != nil || len(events) < 3 || events[len(events)-1] != "[DONE]" {
		t.Errorf("slow stream: %d events, err %v; log:\n%s", len(events), err, r.log)
	}
}

func TestSlowHeadersWithinTheTimeout(t *testing.T) {
	r := newRig(t, rigOpts{standin: standin.Options{Fault: standin.Fault{Kind: standin.FaultSlowHeaders, Delay: 300 * time.Millisecond}}})
	res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
	if body := readAll(t, res); res.StatusCode != 200 {
		t.Errorf("status %d: %s", res.StatusCode, body)
	}
}

func TestUpstreamHangIsCancelledWhenTheClientLeaves(t *testing.T) {
	r := newRig(t, rigOpts{standin: standin.Options{Fault: standin.Fault{Kind: standin.FaultHang}}})
	ctx, cancel := context.WithCancel(waitCtx(t))
	go func() {
		// Hang up once the request is waiting at the service.
		_, _ = r.up.WaitFor(ctx, func(s []standin.Seen) bool { return len(s) == 1 })
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.base+"/models", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if res, err := r.client.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("expected the request to be cancelled")
	}
	seen, err := r.up.WaitFor(waitCtx(t), func(s []standin.Seen) bool { return len(s) == 1 && s[0].Done })
	if err != nil || !seen[0].Cancelled {
		t.Errorf("the service's request was not cancelled: %+v", seen)
	}
	waitForLog(t, r.log, "status=499")
}

// TestConcurrentStreamsThroughServe is TestConcurrentStreamsArriveIntact
// through Serve: gw serve's own server settings and connection wrapper,
// twice, the second time on the connections of the first.
func TestConcurrentStreamsThroughServe(t *testing.T) {
	rec := &recorder{sent: map[string]*bytes.Buffer{}}
	up := standin.New(standin.Options{ContentChunks: 300, ChunkSize: 24})
	t.Cleanup(up.Close)
	s := serveUpstream(t, rec.wrap(up), time.Second, nil)
	s.client.Transport.(*http.Transport).MaxIdleConnsPerHost = concurrentStreams
	r := &rig{t: t, base: "http://" + s.addr + "/v1", client: s.client}
	streamsArriveIntact(t, r, rec, 0)
	streamsArriveIntact(t, r, rec, concurrentStreams)
}
