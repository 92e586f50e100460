package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/standin"
)

// TestCodexCompaction: POST /v1/responses/compact (Codex's remote
// compaction) is answered, not refused as a GET of a response named
// "compact": the conversation goes to the service's chat completions with
// a request to summarise it, and Codex gets the history it goes on with —
// the user's own messages, then the model's summary — in one JSON answer.
func TestCodexCompaction(t *testing.T) {
	var mu sync.Mutex
	var sent []byte
	r := newRig(t, rigOpts{wrapUp: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			b, _ := io.ReadAll(req.Body)
			mu.Lock()
			sent = b
			mu.Unlock()
			req.Body = io.NopCloser(bytes.NewReader(b))
			h.ServeHTTP(w, req)
		})
	}})
	// What Codex sends: its CompactionInput (no stream, no store).
	body := `{"model":"` + sonnet + `","instructions":"You are Codex.","input":[` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the parser"}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done: the parser is fixed."}]},` +
		`{"type":"function_call","call_id":"call_1","name":"shell","arguments":"{\"command\":[\"ls\"]}"},` +
		`{"type":"function_call_output","call_id":"call_1","output":"main.go"},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"now add tests"}]}],` +
		`"tools":[{"type":"function","name":"shell","parameters":{"type":"object","properties":{}}}],` +
		`"parallel_tool_calls":false}`
	res := r.do(waitCtx(t), "POST", "/v1/responses/compact", body, http.Header{"Authorization": {"Bearer " + testToken}})
	got := readAll(t, res)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), got)
	}
	var out struct {
		Output []struct {
			Type, Role string
			Content    []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	var texts []string
	for _, it := range out.Output {
		if it.Type != "message" || it.Role != "user" || len(it.Content) != 1 || it.Content[0].Type != "input_text" {
			t.Fatalf("output item %+v is not a user message of one input_text: %s", it, got)
		}
		texts = append(texts, it.Content[0].Text)
	}
	if len(texts) != 3 || texts[0] != "fix the parser" || texts[1] != "now add tests" ||
		!strings.HasSuffix(texts[2], standin.Greeting(sonnet)) || !strings.Contains(texts[2], "summary") {
		t.Errorf("history after compaction %q: want the two user messages, then the summary", texts)
	}
	mu.Lock()
	defer mu.Unlock()
	var chat struct {
		Stream     bool
		ToolChoice any `json:"tool_choice"`
		Messages   []struct{ Role, Content any }
	}
	if err := json.Unmarshal(sent, &chat); err != nil {
		t.Fatalf("the service got %s: %v", sent, err)
	}
	last := chat.Messages[len(chat.Messages)-1]
	if chat.Stream || chat.ToolChoice != "none" || last.Role != "user" || !strings.Contains(last.Content.(string), "summary") {
		t.Errorf("the service was asked %s: want the conversation, no tool call, and a last user turn asking for a summary", sent)
	}
	if line := logLine(t, r, "/v1/responses/compact"); !strings.Contains(line, "status=200") || !strings.Contains(line, "proto=responses") {
		t.Errorf("log line %q", line)
	}

	// Any other method is refused in the Responses API's words, not retried.
	res = r.do(waitCtx(t), "GET", "/v1/responses/compact", "", http.Header{"Authorization": {"Bearer " + testToken}})
	if got := readAll(t, res); res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" ||
		!strings.Contains(got, "/v1/responses/compact takes POST") {
		t.Errorf("GET: %d %s", res.StatusCode, got)
	}
}
