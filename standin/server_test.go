package standin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// do sends one request to the stand-in and returns status, content type and body.
func do(t *testing.T, rs *Running, method, path, key, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, rs.HTTP.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := rs.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func start(t *testing.T, o Options) *Running {
	t.Helper()
	rs := Start(o)
	t.Cleanup(rs.Close)
	return rs
}

func chatBody(model string, stream bool) string {
	return `{"model":` + string(mustJSON(model)) + `,"stream":` + map[bool]string{true: "true", false: "false"}[stream] +
		`,"messages":[{"role":"user","content":"Say hello"}]}`
}

func TestModels_ListsThePlan(t *testing.T) {
	rs := start(t, Options{})
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{DemoKeyFull, ModelIDs()},
		{DemoKeyPartial, []string{"vendor-a/model-a-sonnet-4.5", "vendor-a/model-a-haiku-4.5", "vendor-b/model-b-3-flash-preview"}},
	} {
		status, ctype, body := do(t, rs, "GET", "/v1/models", tc.key, "")
		if status != 200 || ctype != "application/json" {
			t.Fatalf("%s: status %d %s, body %s", tc.key, status, ctype, body)
		}
		var list struct {
			Object string `json:"object"`
			Data   []struct {
				ID      string `json:"id"`
				Object  string `json:"object"`
				Created int64  `json:"created"`
				OwnedBy string `json:"owned_by"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range list.Data {
			ids = append(ids, m.ID)
			if m.Object != "model" || m.Created == 0 || !strings.HasPrefix(m.ID, m.OwnedBy+"/") {
				t.Errorf("model record %+v: want object \"model\", a creation time and owned_by = the vendor", m)
			}
		}
		if list.Object != "list" || !slices.Equal(ids, tc.want) {
			t.Errorf("%s: got object %q ids %v, want list %v", tc.key, list.Object, ids, tc.want)
		}
	}
}

func TestModels_SpecIDs(t *testing.T) {
	ids := ModelIDs()
	if len(ids) != 8 {
		t.Fatalf("want the spec's 8 model ids, got %d", len(ids))
	}
	ids[0] = "changed"
	if ModelIDs()[0] != "vendor-a/model-a-opus-4.6" {
		t.Fatal("ModelIDs must return a fresh slice")
	}
}

func TestModels_GetOne(t *testing.T) {
	rs := start(t, Options{})
	status, _, body := do(t, rs, "GET", "/v1/models/vendor-b/model-b-3-pro-preview", DemoKeyFull, "")
	if status != 200 || !strings.Contains(body, `"id":"vendor-b/model-b-3-pro-preview"`) {
		t.Errorf("full plan: %d %s", status, body)
	}
	status, _, body = do(t, rs, "GET", "/v1/models/vendor-b/model-b-3-pro-preview", DemoKeyPartial, "")
	if status != 404 || !strings.Contains(body, "not available on your plan") {
		t.Errorf("partial plan: %d %s", status, body)
	}
}

func TestOutsideV1IsPlainNotFound(t *testing.T) {
	rs := start(t, Options{})
	for _, p := range []string{"/models", "/", "/v1", "/api/v1/models", "/chat/completions"} {
		status, ctype, body := do(t, rs, "GET", p, DemoKeyFull, "")
		if status != 404 || !strings.HasPrefix(ctype, "text/plain") || body != "404 page not found\n" {
			t.Errorf("GET %s: %d %q %q, want a web server's plain 404", p, status, ctype, body)
		}
	}
}

func TestUnknownV1PathAndMethod(t *testing.T) {
	rs := start(t, Options{})
	status, _, body := do(t, rs, "GET", "/v1//models", DemoKeyFull, "")
	if status != 404 || !strings.Contains(body, "Invalid URL (GET /v1//models)") {
		t.Errorf("double slash: %d %s", status, body)
	}
	status, _, body = do(t, rs, "GET", "/v1/chat/completions", DemoKeyFull, "")
	if status != 405 || !strings.Contains(body, "use POST") {
		t.Errorf("GET chat: %d %s", status, body)
	}
}

func TestChat_NonStreaming(t *testing.T) {
	rs := start(t, Options{})
	model := "vendor-a/model-a-sonnet-4.5"
	status, ctype, body := do(t, rs, "POST", "/v1/chat/completions", DemoKeyPartial, chatBody(model, false))
	if status != 200 || ctype != "application/json" {
		t.Fatalf("status %d %s: %s", status, ctype, body)
	}
	var resp struct {
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role, Content string
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usage `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Object != "chat.completion" || resp.Model != model || len(resp.Choices) != 1 ||
		resp.Choices[0].Message.Content != "Hello from the gw stand-in (vendor-a/model-a-sonnet-4.5)." ||
		resp.Choices[0].Message.Role != "assistant" || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("unexpected completion: %s", body)
	}
	if resp.Usage.Prompt == 0 || resp.Usage.Completion == 0 || resp.Usage.Total != resp.Usage.Prompt+resp.Usage.Completion {
		t.Errorf("usage %+v: want positive counts that add up", resp.Usage)
	}
}

// sse reads the data lines of an event stream.
func sse(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not an SSE data line", line)
		}
		out = append(out, data)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type chunkJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

func TestChat_StreamShape(t *testing.T) {
	rs := start(t, Options{})
	body := `{"model":"vendor-a/model-a-haiku-4.5","stream":true,"stream_options":{"include_usage":true},
	  "tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path","limit"]}}}],
	  "messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"use the read tool please"}]}]}`
	status, ctype, raw := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if status != 200 || ctype != "text/event-stream; charset=utf-8" {
		t.Fatalf("%d %s %s", status, ctype, raw)
	}
	events := sse(t, strings.NewReader(raw))
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", events[len(events)-1])
	}
	var content, args, name, finish string
	var toolDeltas int
	var u *usage
	for i, e := range events[:len(events)-1] {
		var c chunkJSON
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("event %d %q: %v", i, e, err)
		}
		if c.Object != "chat.completion.chunk" || c.ID == "" || c.Created == 0 || c.Model != "vendor-a/model-a-haiku-4.5" {
			t.Fatalf("event %d lacks OpenAI chunk fields: %s", i, e)
		}
		if i == 0 && (len(c.Choices) != 1 || c.Choices[0].Delta.Role != "assistant") {
			t.Fatalf("first event must carry the role: %s", e)
		}
		if c.Usage != nil {
			if len(c.Choices) != 0 || i != len(events)-2 {
				t.Fatalf("usage must come alone, last before [DONE]: %s", e)
			}
			u = c.Usage
		}
		for _, ch := range c.Choices {
			content += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				toolDeltas++
				args += tc.Function.Arguments
				name += tc.Function.Name
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if !strings.Contains(content, Greeting("vendor-a/model-a-haiku-4.5")) {
		t.Errorf("content %q lacks the greeting", content)
	}
	if name != "read" || args != `{"limit":1,"path":"gw stand-in"}` || toolDeltas < 3 {
		t.Errorf("tool call %q(%s) in %d deltas; want read with both required arguments over several deltas", name, args, toolDeltas)
	}
	if finish != "tool_calls" || u == nil || u.Total == 0 {
		t.Errorf("finish %q usage %+v", finish, u)
	}
}

func TestChat_NoToolCallUnlessAsked(t *testing.T) {
	rs := start(t, Options{})
	for _, msgs := range []string{
		`[{"role":"user","content":"Say hello"}]`,
		// A tool result follows a request for a tool: answer, do not call again.
		`[{"role":"user","content":"use a tool"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]`,
	} {
		body := `{"model":"vendor-a/model-a-haiku-4.5","stream":true,"tools":[{"type":"function","function":{"name":"read","parameters":{}}}],"messages":` + msgs + `}`
		_, _, raw := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
		if strings.Contains(raw, "tool_calls\":[") || !strings.Contains(raw, `"finish_reason":"stop"`) {
			t.Errorf("messages %s: want a plain answer, got %s", msgs, raw)
		}
		if strings.Contains(raw, `"usage"`) {
			t.Errorf("usage sent without stream_options.include_usage")
		}
	}
}

func TestChat_ManyChunks(t *testing.T) {
	rs := start(t, Options{ContentChunks: 100, ChunkSize: 7})
	_, _, raw := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, chatBody("vendor-a/model-a-opus-4.6", true))
	events := sse(t, strings.NewReader(raw))
	if len(events) != 1+100+1+1 {
		t.Fatalf("%d events, want role + 100 content + finish + [DONE]", len(events))
	}
	var c chunkJSON
	if err := json.Unmarshal([]byte(events[50]), &c); err != nil || len(c.Choices[0].Delta.Content) != 7 {
		t.Errorf("content chunk %s: want 7 bytes", events[50])
	}
	_, _, raw = do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, chatBody("vendor-a/model-a-opus-4.6", false))
	if !strings.Contains(raw, Greeting("vendor-a/model-a-opus-4.6")) {
		t.Errorf("non-streamed answer lacks the greeting: %s", raw)
	}
}

func TestChat_BadRequests(t *testing.T) {
	rs := start(t, Options{})
	for body, want := range map[string]string{
		`{"model":`: "could not parse the JSON body",
		`{"messages":[{"role":"user","content":"x"}]}`:         "you must provide a model parameter",
		`{"model":"vendor-a/model-a-haiku-4.5","messages":[]}`: "'messages' must contain at least one message",
	} {
		status, _, got := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
		if status != 400 || !strings.Contains(got, want) {
			t.Errorf("body %s: %d %s, want 400 %q", body, status, got, want)
		}
	}
}

func TestChat_CostDrainsBalance(t *testing.T) {
	rs := start(t, Options{CostCents: 60, Accounts: []Account{{Key: "k1", BalanceCents: 100}}})
	for i, want := range []int{200, 200, 402} {
		if status, _, body := do(t, rs, "POST", "/v1/chat/completions", "k1", chatBody("vendor-a/model-a-haiku-4.5", false)); status != want {
			t.Errorf("request %d: %d %s, want %d", i, status, body, want)
		}
	}
	if b, _ := rs.Balance("k1"); b != -20 {
		t.Errorf("balance %d, want -20", b)
	}
	rs.SetBalance("k1", 500)
	if status, _, _ := do(t, rs, "POST", "/v1/chat/completions", "k1", chatBody("vendor-a/model-a-haiku-4.5", false)); status != 200 {
		t.Errorf("after a top-up: %d", status)
	}
}

func TestSeen_RecordsKeyAndModel(t *testing.T) {
	rs := start(t, Options{})
	do(t, rs, "GET", "/v1/models?x=1", DemoKeyFull, "")
	do(t, rs, "POST", "/v1/chat/completions", DemoKeyPartial, chatBody("vendor-a/model-a-haiku-4.5", true))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	seen, err := rs.WaitFor(ctx, func(s []Seen) bool { return len(s) == 2 && s[0].Done && s[1].Done })
	if err != nil {
		t.Fatal(err)
	}
	want := []Seen{
		{Method: "GET", Path: "/v1/models", Query: "x=1", Key: DemoKeyFull, Status: 200, Done: true},
		{Method: "POST", Path: "/v1/chat/completions", Key: DemoKeyPartial, Model: "vendor-a/model-a-haiku-4.5", Stream: true, Status: 200, Events: 9, Done: true, // role, 6 words, finish, [DONE],
			Reasoning: ReasoningNone, PromptTokens: 6}, // "Say hello": 3 tokens, and 3 for the message
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("seen\n%+v\nwant\n%+v", seen, want)
	}
}

// A long-running stand-in keeps only the last maxSeen requests: the oldest
// are dropped, the newest kept in order.
func TestSeen_KeepsOnlyTheMostRecent(t *testing.T) {
	rs := start(t, Options{})
	const sent = maxSeen + 5
	for i := range sent {
		do(t, rs, "GET", fmt.Sprintf("/v1/models?n=%d", i), DemoKeyFull, "")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	seen, err := rs.WaitFor(ctx, func(s []Seen) bool { return s[len(s)-1].Done })
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != maxSeen {
		t.Fatalf("Seen holds %d requests after %d, want %d", len(seen), sent, maxSeen)
	}
	for i, s := range seen {
		if want := fmt.Sprintf("n=%d", sent-maxSeen+i); s.Query != want || s.Status != 200 {
			t.Fatalf("seen[%d] = %s %d, want %s 200 (the %d newest, oldest first)", i, s.Query, s.Status, want, maxSeen)
		}
	}
}

// A request still running when newer ones push it out of Seen must not
// write its late results into the record of the request now in its place.
func TestSeen_DroppedRequestDoesNotOverwriteANewerOne(t *testing.T) {
	gate := make(chan struct{})
	release := make(chan struct{})
	rs := start(t, Options{BeforeEvent: func(ctx context.Context, n int) {
		if n == 1 {
			close(gate)
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}})
	req := chatRequestTo(t, t.Context(), rs, true)
	streamDone := make(chan error, 1)
	go func() {
		resp, err := rs.Client().Do(req)
		if err == nil {
			_, err = readEvents(resp.Body)
			resp.Body.Close()
		}
		streamDone <- err
	}()
	<-gate // the stream is under way, recorded as request 0
	for i := range maxSeen {
		do(t, rs, "GET", fmt.Sprintf("/v1/models?n=%d", i), DemoKeyFull, "")
	}
	close(release)
	if err := <-streamDone; err != nil {
		t.Fatal(err)
	}
	seen := rs.Seen()
	if len(seen) != maxSeen {
		t.Fatalf("Seen holds %d, want %d", len(seen), maxSeen)
	}
	for i, s := range seen {
		want := Seen{Method: "GET", Path: "/v1/models", Query: fmt.Sprintf("n=%d", i), Key: DemoKeyFull, Status: 200, Done: true}
		if !reflect.DeepEqual(s, want) {
			t.Fatalf("seen[%d] = %+v, want %+v", i, s, want)
		}
	}
}

// The scripted "model" of the stand-in that end-to-end tests of agents rely
// on: backticked snippets become the arguments of one call each, a tool's
// result is quoted back, a -thinking model streams reasoning first.
func TestChat_SnippetsMakeOneCallEachAndResultsAreQuoted(t *testing.T) {
	rs := start(t, Options{})
	body := `{"model":"vendor-a/model-a-sonnet-4.5-thinking","stream":true,
	  "tools":[{"type":"function","function":{"name":"Bash","parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"]}}},
	           {"type":"function","function":{"name":"Read","parameters":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}}],
	  "messages":[{"role":"user","content":"Use the Read tool on ` + "`/tmp/p/a.txt` and `/tmp/p/b.txt`" + `"}]}`
	status, _, raw := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if status != 200 {
		t.Fatalf("%d %s", status, raw)
	}
	var reasoning string
	calls := map[int]string{}
	names := map[int]string{}
	for _, e := range sse(t, strings.NewReader(raw)) {
		if e == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					ReasoningContent string `json:"reasoning_content"`
					ToolCalls        []struct {
						Index    int `json:"index"`
						Function struct {
							Name, Arguments string
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatal(err)
		}
		for _, ch := range c.Choices {
			reasoning += ch.Delta.ReasoningContent
			for _, tc := range ch.Delta.ToolCalls {
				calls[tc.Index] += tc.Function.Arguments
				names[tc.Index] += tc.Function.Name
			}
		}
	}
	if reasoning == "" {
		t.Error("a -thinking model streamed no reasoning_content")
	}
	if calls[0] != `{"file_path":"/tmp/p/a.txt"}` || calls[1] != `{"file_path":"/tmp/p/b.txt"}` || names[0] != "Read" || names[1] != "Read" {
		t.Errorf("calls %v %v, want two Read calls, one per snippet", names, calls)
	}

	body = `{"model":"vendor-a/model-a-haiku-4.5","tools":[{"type":"function","function":{"name":"shell","parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"]}}}],
	  "messages":[{"role":"user","content":"run the shell tool: ` + "`cat notes.txt`" + `"}]}`
	_, _, raw = do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if !strings.Contains(raw, `"arguments":"{\"command\":[\"bash\",\"-lc\",\"cat notes.txt\"]}"`) {
		t.Errorf("shell call: %s", raw)
	}

	// A tool named as a word wins over one whose name is only inside another word (a path's "TestAgents").
	body = `{"model":"vendor-a/model-a-haiku-4.5","tools":[{"type":"function","function":{"name":"Agent","parameters":{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}}},
	                                                     {"type":"function","function":{"name":"Read","parameters":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}}],
	  "messages":[{"role":"user","content":"Use the Read tool on ` + "`/tmp/TestAgents1/notes.txt`" + `"}]}`
	_, _, raw = do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if !strings.Contains(raw, `"name":"Read"`) {
		t.Errorf("the tool named as a word was not called: %s", raw)
	}

	// Arrays of strings and of objects get one element made from the snippet (Cline's read_files).
	body = `{"model":"vendor-a/model-a-haiku-4.5","tools":[{"type":"function","function":{"name":"read_files","parameters":{"type":"object","properties":{"files":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"start_line":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["path"]}}},"required":["files"]}}},
	                                                     {"type":"function","function":{"name":"run_commands","parameters":{"type":"object","properties":{"commands":{"type":"array","items":{"type":"string"}}},"required":["commands"]}}}],
	  "messages":[{"role":"user","content":"Use the read_files tool on ` + "`/tmp/p/a.txt`" + `"}]}`
	_, _, raw = do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if !strings.Contains(raw, `"arguments":"{\"files\":[{\"path\":\"/tmp/p/a.txt\"}]}"`) {
		t.Errorf("read_files call: %s", raw)
	}
	body = strings.Replace(body, "the read_files tool", "the run_commands tool", 1)
	_, _, raw = do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if !strings.Contains(raw, `"arguments":"{\"commands\":[\"/tmp/p/a.txt\"]}"`) {
		t.Errorf("run_commands call: %s", raw)
	}

	body = `{"model":"vendor-a/model-a-haiku-4.5","messages":[{"role":"user","content":"read it"},
	  {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{}"}}]},
	  {"role":"tool","tool_call_id":"c1","content":"the secret word is\n  PLUM-42"}]}`
	_, _, raw = do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if !strings.Contains(raw, "Tool result received: «the secret word is PLUM-42»") {
		t.Errorf("answer after a tool result does not quote it: %s", raw)
	}
}

// A snippet `name=value` for a parameter that takes an array or an object
// gives it the JSON it spells (pi's edit takes its replacements as an array of
// objects); for a string parameter the same text stays a string, and JSON
// that does not parse stays the text it is.
func TestChat_StepValueIsJSONForArrayOrObjectParameter(t *testing.T) {
	rs := start(t, Options{})
	tools := `[{"type":"function","function":{"name":"edit","parameters":{"type":"object","properties":{"path":{"type":"string"},"note":{"type":"string"},` +
		`"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"]}}},"required":["path","edits"]}}}]`
	for _, c := range []struct{ ask, want string }{
		{"Use the edit tool: `path=/p/a.txt` `edits=[{\"oldText\":\"PLUM\",\"newText\":\"FIG\"}]` `note=[1]`",
			`{"edits":[{"oldText":"PLUM","newText":"FIG"}],"note":"[1]","path":"/p/a.txt"}`},
		{"Use the edit tool: `path=/p/a.txt` `edits=[{oops`",
			`{"edits":"[{oops","path":"/p/a.txt"}`},
	} {
		body := mustJSON(map[string]any{"model": "vendor-a/model-a-haiku-4.5", "tools": json.RawMessage(tools),
			"messages": []any{map[string]any{"role": "user", "content": c.ask}}})
		status, _, raw := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, string(body))
		if status != 200 {
			t.Fatalf("%d %s", status, raw)
		}
		var res struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		if calls := res.Choices[0].Message.ToolCalls; len(calls) != 1 || calls[0].Function.Arguments != c.want {
			t.Errorf("%s: calls %+v, want one edit call with %s", c.ask, calls, c.want)
		}
	}
}

// A user's numbered steps script a multi-step session, one call a request:
// each step's tool and arguments (`name=value` naming a parameter, with \n
// for newlines; other snippets as before), the next step once the previous
// call's result is back (also with an agent's reminder after it), and, once
// every step was called, an answer quoting the last result.
func TestChat_NumberedStepsScriptOneCallPerRequest(t *testing.T) {
	rs := start(t, Options{})
	tools := `[{"type":"function","function":{"name":"Read","parameters":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}},
	  {"type":"function","function":{"name":"Edit","parameters":{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["file_path","old_string","new_string"]}}},
	  {"type":"function","function":{"name":"Bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}}]`
	script := "Please:\n1. Use the Read tool on `/p/a.txt`.\n2. Use the Edit tool: `file_path=/p/a.txt` `old_string=PLUM` `new_string=FIG\\nTREE`\n" +
		"3) Use the Bash tool: `wc -c /p/a.txt | tr a=b c`\nThen tell me what it printed."
	msgs := []any{map[string]any{"role": "user", "content": script}}
	type call struct {
		ID       string `json:"id"`
		Function struct{ Name, Arguments string }
	}
	ask := func() (content string, calls []call) {
		t.Helper()
		body := mustJSON(map[string]any{"model": "vendor-a/model-a-haiku-4.5", "tools": json.RawMessage(tools), "messages": msgs})
		status, _, raw := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, string(body))
		if status != 200 {
			t.Fatalf("%d %s", status, raw)
		}
		var res struct {
			Choices []struct {
				Message struct {
					Content   string `json:"content"`
					ToolCalls []call `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		return res.Choices[0].Message.Content, res.Choices[0].Message.ToolCalls
	}
	want := []struct{ name, args, result string }{
		{"Read", `{"file_path":"/p/a.txt"}`, "PLUM"},
		{"Edit", `{"file_path":"/p/a.txt","new_string":"FIG\nTREE","old_string":"PLUM"}`, "edited"},
		{"Bash", `{"command":"wc -c /p/a.txt | tr a=b c"}`, "9 /p/a.txt"},
	}
	for i, w := range want {
		_, calls := ask()
		if len(calls) != 1 || calls[0].Function.Name != w.name || calls[0].Function.Arguments != w.args {
			t.Fatalf("step %d: calls %+v, want one %s call with %s", i+1, calls, w.name, w.args)
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": calls[0].ID, "type": "function",
				"function": map[string]any{"name": w.name, "arguments": calls[0].Function.Arguments}}}},
			map[string]any{"role": "tool", "tool_call_id": calls[0].ID, "content": w.result})
		if i == 0 {
			msgs = append(msgs, map[string]any{"role": "user", "content": "<reminder>the file may have changed</reminder>"})
		}
	}
	content, calls := ask()
	if len(calls) != 0 || !strings.Contains(content, "Tool result received: «9 /p/a.txt»") {
		t.Errorf("after the last step: calls %+v, answer %q; want no call and the last result quoted", calls, content)
	}
	// A new request naming a tool, after the script is done, is answered as before.
	msgs = append(msgs, map[string]any{"role": "assistant", "content": content},
		map[string]any{"role": "user", "content": "Use the Read tool on `/p/b.txt`"})
	if _, calls := ask(); len(calls) != 1 || calls[0].Function.Arguments != `{"file_path":"/p/b.txt"}` {
		t.Errorf("a new request after the script: calls %+v", calls)
	}
}

// An agent's reminder in the user's message (Qwen Code 0.24 lists its skills in a <system-reminder> part
// before the prompt, naming other tools) is not the user's words: the tool called is the one the prompt
// names, with the prompt's snippet.
func TestChat_ReminderInTheUserMessageIsNotTheAsk(t *testing.T) {
	rs := start(t, Options{})
	body := `{"model":"vendor-a/model-a-haiku-4.5","tools":[
	    {"type":"function","function":{"name":"agent","parameters":{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}}},
	    {"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}}],
	  "messages":[{"role":"user","content":[
	    {"type":"text","text":"<system-reminder>\nThe skills: use the agent tool with ` + "`batch`" + ` for batch work.\n</system-reminder>\n"},
	    {"type":"text","text":"Use the read_file tool on ` + "`/tmp/p/a.txt`" + ` and tell me the launch code."}]}]}`
	_, _, raw := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, body)
	if !strings.Contains(raw, `"arguments":"{\"file_path\":\"/tmp/p/a.txt\"}","name":"read_file"`) || strings.Contains(raw, `"name":"agent"`) {
		t.Errorf("want one read_file call on /tmp/p/a.txt; got: %s", raw)
	}
}
