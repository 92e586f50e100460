package responses

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/protocol/chat"
)

var update = flag.Bool("update", false, "rewrite the .chat.json goldens of testdata/codex")

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "codex", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseGolden(t testing.TB, name string) (*chat.Request, Meta) {
	t.Helper()
	req, meta, perr := ParseRequest(&translate.Request{Body: readGolden(t, name)}, testEnv)
	if perr != nil {
		t.Fatalf("%s: %v", name, perr)
	}
	return req, meta
}

// TestParseRequest_CodexGoldens translates every request the real Codex CLI
// sent and compares the chat request with its golden (go test -update
// rewrites them).
func TestParseRequest_CodexGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "codex", "request*.json"))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".chat.json") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			req, _ := parseGolden(t, filepath.Base(f))
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(req); err != nil {
				t.Fatal(err)
			}
			translatetest.Golden(t, strings.TrimSuffix(f, ".json")+".chat.json", buf.Bytes(), *update)
		})
	}
	if n < 5 {
		t.Fatalf("found %d recorded requests in testdata/codex, want 5", n)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestParseRequest_CodexConversation checks what a user would miss if it
// were lost: every message, call and output of Codex's multi-turn session
// reaches the service, in order, and the reasoning items' text goes back as
// the reasoning_content of the assistant message that follows them.
func TestParseRequest_CodexConversation(t *testing.T) {
	var raw struct {
		Input []map[string]any `json:"input"`
	}
	body := readGolden(t, "request4.json")
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	req, meta := parseGolden(t, "request4.json")

	if meta.Model != "vendor-a/model-a-sonnet-4.5" || req.Model != meta.Model {
		t.Errorf("model %q / meta %q", req.Model, meta.Model)
	}
	// Every text of the input is in some chat message, in the same order.
	all, _ := json.Marshal(req.Messages)
	pos := 0
	for i, it := range raw.Input {
		var want []string
		switch it["type"] {
		case "message":
			for _, c := range it["content"].([]any) {
				want = append(want, c.(map[string]any)["text"].(string))
			}
		case "function_call":
			want = append(want, it["call_id"].(string), it["arguments"].(string))
		case "custom_tool_call":
			in, _ := json.Marshal(map[string]string{"input": it["input"].(string)})
			want = append(want, it["call_id"].(string), string(in))
		case "function_call_output", "custom_tool_call_output":
			want = append(want, it["output"].(string)) // tool_call_id is checked below
		case "reasoning":
			for _, c := range it["content"].([]any) {
				text := c.(map[string]any)["text"].(string)
				if !bytes.Contains(all, append(append([]byte(`"reasoning_content":"`), jsonString(text)...), `"`...)) {
					t.Errorf("input[%d]: reasoning text %q is not the reasoning_content of an assistant message", i, text)
				}
			}
			continue
		default:
			t.Fatalf("input[%d]: the recording has an item of type %v this test does not know", i, it["type"])
		}
		for _, w := range want {
			j := bytes.Index(all[pos:], jsonString(w))
			if j < 0 {
				t.Fatalf("input[%d] (%v): %.80q is missing from the chat messages, or out of order", i, it["type"], w)
			}
			pos += j
		}
	}

	// The calls are answered by tool messages with their ids.
	var calls, outputs []string
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.ID+" "+c.Function.Name)
		}
		if m.Role == "tool" {
			outputs = append(outputs, m.ToolCallID)
		}
	}
	if strings.Join(calls, ",") != "call_rec1 exec_command,call_rec3 apply_patch" || strings.Join(outputs, ",") != "call_rec1,call_rec3" {
		t.Errorf("tool calls %q, tool messages %q", calls, outputs)
	}
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b[1 : len(b)-1]
}

// TestParseRequest_CodexTools: Codex's function tools are offered as they
// are, apply_patch (a freeform tool with a grammar) as a function taking its
// text as the string "input", the tools of a namespace by their own names,
// and the hosted web_search tool not at all (the service cannot run it).
func TestParseRequest_CodexTools(t *testing.T) {
	req, meta := parseGolden(t, "request1.json")
	byName := map[string]chat.Tool{}
	for _, tl := range req.Tools {
		if tl.Type != "function" {
			t.Errorf("tool %s has type %q", tl.Function.Name, tl.Type)
		}
		byName[tl.Function.Name] = tl
	}
	for _, name := range []string{"exec_command", "write_stdin", "apply_patch", "spawn_agent", "view_image"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("tool %s is not offered; offered: %v", name, keys(byName))
		}
	}
	var params struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(byName["apply_patch"].Function.Parameters, &params); err != nil {
		t.Fatal(err)
	}
	if in := params.Properties["input"]; in.Type != "string" || !strings.Contains(in.Description, "*** Begin Patch") || len(params.Required) != 1 {
		t.Errorf("apply_patch parameters: %s", byName["apply_patch"].Function.Parameters)
	}
	if ref := meta.tools["apply_patch"]; ref.kind != "custom" {
		t.Errorf("apply_patch is remembered as %+v", ref)
	}
	if ref := meta.tools["spawn_agent"]; ref.kind != "function" || ref.namespace != "multi_agent_v1" {
		t.Errorf("spawn_agent is remembered as %+v", ref)
	}
	if strings.Join(meta.DroppedTools, ",") != "web_search" {
		t.Errorf("dropped tools %v, want web_search", meta.DroppedTools)
	}
	if req.ToolChoice != "auto" || req.ParallelToolCalls == nil || !*req.ParallelToolCalls {
		t.Errorf("tool_choice %v, parallel_tool_calls %v", req.ToolChoice, req.ParallelToolCalls)
	}
	// Codex's developer messages become system messages, first.
	if req.Messages[0].Role != "system" || req.Messages[len(req.Messages)-1].Role != "user" {
		t.Errorf("roles: first %s, last %s", req.Messages[0].Role, req.Messages[len(req.Messages)-1].Role)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestParseRequest_CodexImage: an image attached with codex exec -i reaches
// the service as an image_url part of the user's message.
func TestParseRequest_CodexImage(t *testing.T) {
	req, _ := parseGolden(t, "request5.json")
	last := req.Messages[len(req.Messages)-1]
	parts, ok := last.Content.([]chat.Part)
	if !ok {
		t.Fatalf("the last message's content is %T, want parts", last.Content)
	}
	var kinds []string
	for _, p := range parts {
		kinds = append(kinds, p.Type)
		if p.Type == "image_url" && !strings.HasPrefix(p.ImageURL.URL, "data:image/png;base64,") {
			t.Errorf("image url %.40q", p.ImageURL.URL)
		}
	}
	if !strings.Contains(strings.Join(kinds, ","), "image_url") {
		t.Errorf("parts %v have no image", kinds)
	}
}

// TestParseRequest_Translations covers what Codex (0.169, 0.171) did not send in the
// recordings: the short input forms, local_shell, tool outputs with images,
// text.format and the other settings.
func TestParseRequest_Translations(t *testing.T) {
	body := `{"model":"m","instructions":"Be brief.","max_output_tokens":100,"temperature":0.5,
	"reasoning":{"effort":"high","summary":"auto"},"text":{"format":{"type":"json_schema","name":"x","schema":{"type":"object"},"strict":true},"verbosity":"low"},
	"include":["reasoning.encrypted_content"],"prompt_cache_key":"k","store":false,"service_tier":"auto",
	"tools":[{"type":"local_shell"},{"type":"function","name":"f"}],
	"tool_choice":{"type":"function","name":"f"},
	"input":[{"role":"user","content":"hi"},
	 {"type":"local_shell_call","id":"lsh_1","call_id":"c1","status":"completed","action":{"type":"exec","command":["ls"]}},
	 {"type":"local_shell_call_output","call_id":"c1","output":"a.txt"},
	 {"type":"function_call","call_id":"c2","name":"f","arguments":""},
	 {"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"see"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"original"}]},
	 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"},{"type":"refusal","refusal":"no"}]}]}`
	req, _, perr := ParseRequest(&translate.Request{Body: []byte(body)}, testEnv)
	if perr != nil {
		t.Fatal(perr)
	}
	got, _ := json.Marshal(req)
	for _, want := range []string{
		`"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}`,
		`"tool_calls":[{"id":"c1","type":"function","function":{"name":"local_shell","arguments":"{\"type\":\"exec\",\"command\":[\"ls\"]}"}}]`,
		`{"role":"tool","content":"a.txt","tool_call_id":"c1"}`,
		`"function":{"name":"f","arguments":"{}"}`,
		`{"role":"tool","content":"see\n\n(the output's 1 image come in the next message)","tool_call_id":"c2"}`,
		`{"role":"user","content":[{"type":"text","text":"The output of tool call c2 includes these images:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}`,
		`{"role":"assistant","content":"ok\n\nno"}`,
		`"max_tokens":100`, `"temperature":0.5`,
		`"tool_choice":{"type":"function","function":{"name":"f"}}`,
		`"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"},"strict":true}}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the chat request lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "stream_options") {
		t.Errorf("a request that is not streamed asks for stream options: %s", got)
	}

	req, _, perr = ParseRequest(&translate.Request{Body: []byte(`{"model":"m","input":"hello"}`)}, testEnv)
	if perr != nil || len(req.Messages) != 1 || req.Messages[0].Content != "hello" || req.Tools != nil || req.ToolChoice != nil {
		t.Errorf("string input: %+v, %v", req, perr)
	}
}

// TestParseRequest_BadInput: what gw serve cannot translate is refused with a
// 400 in the Responses error shape that names the field and says what to do,
// never passed on with a part missing.
func TestParseRequest_BadInput(t *testing.T) {
	const user = `{"role":"user","content":"hi"}`
	cases := []struct {
		name, body, param, words string
	}{
		{"malformed JSON", `{"model":"m","input":[}`, "", "not valid JSON (line 1, column 23"},
		{"empty body", ``, "", "empty"},
		{"not an object", `[1]`, "", "must be a JSON object"},
		{"no model", `{"input":"hi"}`, "model", "missing; set the model id (run: gw models to list them)"},
		{"wrong type", `{"model":"m","input":"hi","stream":"yes"}`, "stream", "true or false"},
		{"previous_response_id", `{"model":"m","previous_response_id":"resp_1","input":"hi"}`, "previous_response_id", "send the whole conversation in input"},
		{"conversation", `{"model":"m","conversation":"conv_1","input":"hi"}`, "conversation", "keeps no conversations"},
		{"no input", `{"model":"m"}`, "input", "at least one message"},
		{"unknown item", `{"model":"m","input":[` + user + `,{"type":"web_search_call","id":"ws_1"}]}`, "input[1].type", `"web_search_call" cannot be passed on`},
		{"compaction", `{"model":"m","input":[{"type":"compaction","encrypted_content":"x"}]}`, "input[0].type", `"compaction"`},
		{"item reference", `{"model":"m","input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0].type", "keeps no items"},
		{"item without type", `{"model":"m","input":[{"content":"x"}]}`, "input[0].type", "missing"},
		{"unknown content", `{"model":"m","input":[{"role":"user","content":[{"type":"input_video","url":"x"}]}]}`, "input[0].content[0].type", `"input_video"`},
		{"file", `{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_id":"f"}]}]}`, "input[0].content[0].type", "paste the file's text"},
		{"image by file id", `{"model":"m","input":[{"role":"user","content":[{"type":"input_image","file_id":"file_1"}]}]}`, "input[0].content[0].file_id", "data: URL"},
		{"image not a URL", `{"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"/tmp/a.png"}]}]}`, "input[0].content[0].image_url", "cannot be passed on"},
		{"image in assistant message", `{"model":"m","input":[{"role":"assistant","content":[{"type":"input_image","image_url":"https://x/a.png"}]}]}`, "input[0].content[0]", "user messages only"},
		{"unknown role", `{"model":"m","input":[{"role":"critic","content":"x"}]}`, "input[0].role", `"critic"`},
		{"output without call", `{"model":"m","input":[` + user + `,{"type":"function_call_output","call_id":"c9","output":"x"}]}`, "input[1].call_id", `"c9"`},
		{"call without id", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, "input[0].call_id", "missing"},
		{"unknown tool", `{"model":"m","input":"hi","tools":[{"type":"teleport"}]}`, "tools[0].type", `"teleport"`},
		{"hosted tool choice", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"web_search_preview"}}`, "tool_choice.type", "not available through gw serve"},
		{"required without tools", `{"model":"m","input":"hi","tools":[{"type":"web_search"}],"tool_choice":"required"}`, "tool_choice", "run on OpenAI's servers"},
		{"choice of unknown tool", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"g"}}`, "tool_choice.name", `"g"`},
		{"unknown format", `{"model":"m","input":"hi","text":{"format":{"type":"xml"}}}`, "text.format.type", `"xml"`},
		{"background", `{"model":"m","input":"hi","background":true}`, "background", "background"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, perr := ParseRequest(&translate.Request{Body: []byte(c.body)}, testEnv)
			if perr == nil {
				t.Fatal("accepted")
			}
			if perr.Status != 400 || perr.Param != c.param || !strings.Contains(perr.Message, c.words) {
				t.Errorf("got %d param %q %q; want 400 param %q with %q", perr.Status, perr.Param, perr.Message, c.param, c.words)
			}
			if c.param != "" && !strings.HasPrefix(perr.Message, c.param+": ") {
				t.Errorf("the message does not start with the field: %q", perr.Message)
			}
			var b struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(errorBody(perr), &b); err != nil || b.Error.Message != perr.Message || b.Error.Type != "invalid_request_error" || b.Error.Code == nil {
				t.Errorf("body %s (%v)", errorBody(perr), err)
			}
			if !bytes.HasPrefix(errorBody(perr), []byte(`{"error":{"message":`)) {
				t.Errorf("the body does not start with the message: %s", errorBody(perr))
			}
		})
	}
}

// TestParseRequestTooDeep: a request nested a million deep (a hostile or
// broken client) is a 400 naming the limit, never a crash.
func TestParseRequestTooDeep(t *testing.T) {
	_, _, err := ParseRequest(&translate.Request{Body: []byte(`{"model":"m","input":` + strings.Repeat("[", 1_000_000) + `}`)}, testEnv)
	if err == nil || err.Status != 400 || !strings.Contains(err.Message, "deeper than 10000 levels") {
		t.Errorf("got %+v, want a 400 naming the nesting limit", err)
	}
}

// testEnv gives a fixed clock and ids that count up (a Store tells
// responses apart by them).
var testEnv = translate.Env{
	Now: func() time.Time { return time.Unix(1_700_000_000, 0) },
	ID: func(n int) string {
		s := strings.Repeat("0", n) + strconv.FormatInt(testIDs.Add(1), 16)
		return s[len(s)-n:]
	},
}

var testIDs atomic.Int64
