package anthropic

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// recorded returns the recorded requests of a scenario, in order.
func recorded(t *testing.T, scenario string) [][]byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(recordedDir, scenario, "request-*.json"))
	var out [][]byte
	for i := 1; ; i++ {
		b, err := os.ReadFile(filepath.Join(recordedDir, scenario, fmt.Sprintf("request-%d.json", i)))
		if err != nil {
			break
		}
		out = append(out, b)
	}
	if len(out) == 0 || len(out) != len(files) {
		t.Fatalf("%s: %d recorded requests (files %q)", scenario, len(out), files)
	}
	return out
}

// parse translates a request that must translate.
func parse(t *testing.T, body []byte) (*chat.Request, Meta) {
	t.Helper()
	req, meta, err := ParseRequest(&tr.Request{Body: body}, tr.Env{})
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	return req, meta
}

// TestRecordedRequestsGolden translates every request Claude Code sent and
// compares the chat request with its golden file (chat-N.json, long
// strings abbreviated to their start, length and hash). Run with -update
// after re-recording and read the diff.
func TestRecordedRequestsGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(recordedDir, "*", "request-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded requests: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, recordedDir+"/"), func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			req, meta := parse(t, body)
			got := golden(t, map[string]any{"chat": req, "meta": meta})
			translatetest.Golden(t, filepath.Join(filepath.Dir(f), strings.Replace(filepath.Base(f), "request-", "chat-", 1)), got, *update)
		})
	}
}

// golden renders v as indented JSON with every string over 160 bytes cut
// to its first 60 and a note of its length and hash, so golden files stay
// readable and still change when the text does.
func golden(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc = abbreviate(doc)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func abbreviate(v any) any {
	switch t := v.(type) {
	case string:
		if len(t) > 160 {
			sum := sha256.Sum256([]byte(t))
			return fmt.Sprintf("%s…[%d bytes, sha256 %x]", strings.ToValidUTF8(t[:60], ""), len(t), sum[:6])
		}
	case []any:
		for i := range t {
			t[i] = abbreviate(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = abbreviate(t[k])
		}
	}
	return v
}

// roles lists the chat messages' roles.
func roles(req *chat.Request) string {
	var r []string
	for _, m := range req.Messages {
		r = append(r, m.Role)
	}
	return strings.Join(r, ",")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The recorded tool round trip: Claude Code's system prompt becomes the
// leading system message without the billing line, its "# Environment"
// system turn a system message where it was said, after the first user
// message; the Read call and its result become a tool call and a
// tool message.
func TestRecordedToolRoundTrip(t *testing.T) {
	bodies := recorded(t, "tool-round-trip")
	first, meta := parse(t, bodies[0])
	if roles(first) != "system,user,system" {
		t.Fatalf("first request's roles %s, want system,user,system", roles(first))
	}
	sys := textOf(first.Messages[0].Content)
	if strings.Contains(sys, billingHeader) || !strings.Contains(sys, "You are a Claude agent") || strings.Contains(sys, "You have been invoked") {
		t.Errorf("system message: billing line dropped, prompt kept, environment not moved? %.300q", sys)
	}
	if env := textOf(first.Messages[2].Content); !strings.HasPrefix(env, "# Environment") {
		t.Errorf("the system turn after the user's: %.100q", env)
	}
	user := textOf(first.Messages[1].Content)
	if !strings.Contains(user, "Use the Read tool on `/home/user/project/notes.txt`") || !strings.Contains(user, "<system-reminder>") {
		t.Errorf("user message lost words: %.300q", user)
	}
	if meta.Model != "vendor-a/model-a-sonnet-4.5" || first.Model != meta.Model || !meta.Stream {
		t.Errorf("model %q / meta %+v", first.Model, meta)
	}
	if first.MaxTokens == nil || *first.MaxTokens != 32000 {
		t.Errorf("max_tokens %v, want Claude Code's 32000", first.MaxTokens)
	}
	if first.ReasoningEffort != "" {
		t.Errorf("reasoning_effort %q for a model that does not reason", first.ReasoningEffort)
	}
	var names []string
	for _, tl := range first.Tools {
		names = append(names, tl.Function.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "Read") || strings.Contains(got, "DeferredToolPlaceholder") {
		t.Errorf("tools %s: want Read, and not the deferred placeholder", got)
	}

	second, _ := parse(t, bodies[1])
	if roles(second) != "system,user,system,assistant,tool" {
		t.Fatalf("second request's roles %s", roles(second))
	}
	a := second.Messages[3]
	if a.Content != "I will read the file." || len(a.ToolCalls) != 1 {
		t.Fatalf("assistant turn %s", mustJSON(t, a))
	}
	call := a.ToolCalls[0]
	if call.ID != "toolu_rec_01" || call.Function.Name != "Read" || call.Function.Arguments != `{"file_path":"/home/user/project/notes.txt"}` {
		t.Errorf("tool call %s", mustJSON(t, call))
	}
	tool := second.Messages[4]
	if tool.ToolCallID != "toolu_rec_01" || textOf(tool.Content) != "1\tThe launch code is PINEAPPLE-42.\n2\t" {
		t.Errorf("tool message %s", mustJSON(t, tool))
	}
}

// The unsigned thinking block Claude Code sends back (signature "", as gw
// gave it) goes back to the service as the reasoning_content of the
// assistant message with the tool call (DeepSeek's thinking models refuse
// the call without it); the thinking model gets Claude Code's effort as
// reasoning_effort.
func TestRecordedThinkingCarried(t *testing.T) {
	bodies := recorded(t, "thinking")
	if !bytes.Contains(bodies[1], []byte(`"signature":"","thinking":"The user wants a file read."`)) {
		t.Fatal("the recording has no unsigned thinking block")
	}
	req, _ := parse(t, bodies[1])
	if got := req.Messages[3].ReasoningContent; got != "The user wants a file read." {
		t.Errorf("reasoning_content of the assistant message %q, want the thinking block's text", got)
	}
	if roles(req) != "system,user,system,assistant,tool" || len(req.Messages[3].ToolCalls) != 1 || req.Messages[3].Content != nil {
		t.Errorf("roles %s, assistant %s", roles(req), mustJSON(t, req.Messages[3]))
	}
	if req.ReasoningEffort != "high" {
		t.Errorf("reasoning_effort %q, want high (Claude Code's output_config.effort)", req.ReasoningEffort)
	}
}

func TestRecordedToolErrorMarked(t *testing.T) {
	req, _ := parse(t, recorded(t, "tool-error")[1])
	tool := req.Messages[len(req.Messages)-1]
	if tool.Role != "tool" || textOf(tool.Content) != "Error: File does not exist. Note: your current working directory is /home/user/project." {
		t.Errorf("tool message %s", mustJSON(t, tool))
	}
}

// An image a tool returned (Read on a PNG) reaches the model: the tool
// message says so and a user message right after carries the image.
func TestRecordedImageResult(t *testing.T) {
	req, _ := parse(t, recorded(t, "image")[1])
	if roles(req) != "system,user,system,assistant,tool,user" {
		t.Fatalf("roles %s", roles(req))
	}
	tool := req.Messages[4]
	if tool.ToolCallID != "toolu_rec_01" || tool.Content != "(the result's 1 attachment is in the next message)" {
		t.Errorf("tool message %s", mustJSON(t, tool))
	}
	parts, ok := req.Messages[5].Content.([]chat.Part)
	if !ok || len(parts) != 2 || parts[1].Type != "image_url" || !strings.HasPrefix(parts[1].ImageURL.URL, "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("image message %s", mustJSON(t, req.Messages[5]))
	}
}

// A deferred tool is offered once ToolSearch's tool_reference loaded it,
// as Anthropic's API does; the placeholder that is never loaded is not.
func TestRecordedToolSearchLoadsDeferredTool(t *testing.T) {
	bodies := recorded(t, "tool-search")
	has := func(req *chat.Request, name string) bool {
		for _, tl := range req.Tools {
			if tl.Function.Name == name {
				return true
			}
		}
		return false
	}
	req, _ := parse(t, bodies[1])
	if !has(req, "WebFetch") || has(req, "DeferredToolPlaceholder") {
		t.Errorf("after ToolSearch: WebFetch offered %v, placeholder offered %v", has(req, "WebFetch"), has(req, "DeferredToolPlaceholder"))
	}
	tool := req.Messages[len(req.Messages)-1]
	if textOf(tool.Content) != "Tool WebFetch is loaded and can be called." {
		t.Errorf("tool message %s", mustJSON(t, tool))
	}
}

// Claude Code's own model id goes to the service as it is: gw never maps
// it to one of the service's ids.
func TestRecordedDefaultModelPassesThrough(t *testing.T) {
	req, meta := parse(t, recorded(t, "default-models")[0])
	if !IsClaudeModel(req.Model) || meta.Model != req.Model {
		t.Errorf("model %q (meta %q): want Claude Code's own claude-… id, unchanged", req.Model, meta.Model)
	}
}

// TestParseRequestTooDeep: a request nested a million deep (a hostile or
// broken client) is a 400 naming the limit, never a crash.
func TestParseRequestTooDeep(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"metadata":` + strings.Repeat("[", 1_000_000) + `}`)
	_, _, err := ParseRequest(&tr.Request{Body: body}, tr.Env{})
	if err == nil || err.Status != 400 || !strings.Contains(err.Message, "deeper than 10000 levels") {
		t.Errorf("got %+v, want a 400 naming the nesting limit", err)
	}
}
