package responses

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelgateway/gw/protocol/chat"
)

// codexMeta is the Meta of a request with Codex's tools: exec_command (a
// function), apply_patch (a freeform tool), spawn_agent (in a namespace) and
// local_shell.
func codexMeta(t testing.TB) Meta {
	t.Helper()
	body := `{"model":"vendor-a/model-a-sonnet-4.5","stream":true,"input":"hi","tools":[
	{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}},
	{"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: x"}},
	{"type":"namespace","name":"multi_agent_v1","tools":[{"type":"function","name":"spawn_agent"}]},
	{"type":"local_shell"},{"type":"web_search"}]}`
	_, meta, perr := ParseRequest(&translate.Request{Body: []byte(body)}, testEnv)
	if perr != nil {
		t.Fatal(perr)
	}
	meta.ResponseID, meta.Created = "resp_test", 1700000000
	return meta
}

// Chunk builders.
func text(s string) chat.Chunk      { return delta(chat.Delta{Content: &s}) }
func reason(s string) chat.Chunk    { return delta(chat.Delta{ReasoningContent: &s}) }
func refusal(s string) chat.Chunk   { return delta(chat.Delta{Refusal: &s}) }
func delta(d chat.Delta) chat.Chunk { return chat.Chunk{Choices: []chat.ChunkChoice{{Delta: d}}} }
func finish(r string) chat.Chunk    { return chat.Chunk{Choices: []chat.ChunkChoice{{FinishReason: &r}}} }
func usageChunk(in, out int) chat.Chunk {
	return chat.Chunk{Choices: []chat.ChunkChoice{}, Usage: &chat.Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out,
		PromptTokensDetails: &chat.PromptTokensDetails{CachedTokens: 2}, CompletionDetails: &chat.CompletionDetails{ReasoningTokens: 1}}}
}

func callStart(index int, id, name, args string) chat.Chunk {
	d := chat.ToolCallDelta{Index: index, ID: id, Type: "function"}
	d.Function.Name, d.Function.Arguments = name, args
	return delta(chat.Delta{ToolCalls: []chat.ToolCallDelta{d}})
}

func callArgs(index int, args string) chat.Chunk {
	d := chat.ToolCallDelta{Index: index}
	d.Function.Arguments = args
	return delta(chat.Delta{ToolCalls: []chat.ToolCallDelta{d}})
}

// toolCall is one call, split into pieces at the given cuts.
func toolCall(index int, id, name, args string, cuts ...int) []chat.Chunk {
	out := []chat.Chunk{callStart(index, id, name, "")}
	prev := 0
	for _, c := range append(cuts, len(args)) {
		c = max(prev, min(c, len(args)))
		if c > prev {
			out = append(out, callArgs(index, args[prev:c]))
		}
		prev = c
	}
	return out
}

func runStream(t testing.TB, meta Meta, chunks []chat.Chunk, end error) []byte {
	t.Helper()
	var buf bytes.Buffer
	s := NewStreamWriter(&buf, meta)
	for i := range chunks {
		if err := s.Chunk(&chunks[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.End(end); err != nil {
		t.Fatal(err)
	}
	if n := buf.Len(); s.End(nil) != nil || buf.Len() != n {
		t.Errorf("a second End did something (%d more bytes); want nothing", buf.Len()-n)
	}
	return buf.Bytes()
}

// sseEvent is one parsed event.
type sseEvent struct {
	name string
	data map[string]any
	raw  string
}

func parseSSE(t testing.TB, b []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.raw != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.raw = strings.TrimPrefix(line, "data: ")
			if err := json.Unmarshal([]byte(cur.raw), &cur.data); err != nil {
				t.Fatalf("event data is not JSON: %v: %s", err, cur.raw)
			}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.raw != "" {
		t.Fatalf("the stream does not end with a blank line after its last event")
	}
	return out
}

// transcript is what a client reassembles from a stream.
type transcript struct {
	terminal string
	response map[string]any
	items    []map[string]any // done items in output order
	texts    []string         // per message part, from deltas
	reasons  []string
	summary  []string          // reasoning summaries, from deltas
	args     map[string]string // function call item id → arguments from deltas
}

func num(v any) int { f, _ := v.(float64); return int(f) }

// checkStream asserts the Responses API's stream rules and returns what the
// client would see.
func checkStream(t testing.TB, b []byte) transcript {
	t.Helper()
	evs := parseSSE(t, b)
	fail := func(i int, format string, args ...any) {
		t.Helper()
		t.Fatalf("event %d (%s): %s\nstream:\n%s", i, evs[i].name, fmt.Sprintf(format, args...), b)
	}
	if len(evs) < 3 || evs[0].name != "response.created" || evs[1].name != "response.in_progress" {
		t.Fatalf("the stream does not start with response.created, response.in_progress:\n%s", b)
	}
	type itemState struct {
		id       string
		typ      string
		done     bool
		partOpen int // content index of the open part, -1 none
		parts    int
		text     strings.Builder
		// reasoning summary parts
		summaryOpen int // -1 none
		summaries   int
		summary     strings.Builder
	}
	items := map[int]*itemState{}
	tr := transcript{args: map[string]string{}}
	nextIndex := 0
	doneAt := map[int]map[string]any{}
	var respID string
	for i, ev := range evs {
		if ev.data["type"] != ev.name {
			fail(i, "data.type %v differs from the event name", ev.data["type"])
		}
		if num(ev.data["sequence_number"]) != i {
			fail(i, "sequence_number %v, want %d", ev.data["sequence_number"], i)
		}
		if tr.terminal != "" {
			fail(i, "an event after the terminal %s", tr.terminal)
		}
		idx := num(ev.data["output_index"])
		it := items[idx]
		needOpen := func() {
			t.Helper()
			if it == nil || it.done {
				fail(i, "refers to output_index %d, which is not open", idx)
			}
			if id, ok := ev.data["item_id"]; ok && id != it.id {
				fail(i, "item_id %v, but output_index %d is %s", id, idx, it.id)
			}
		}
		switch ev.name {
		case "response.created", "response.in_progress":
			r := ev.data["response"].(map[string]any)
			if r["status"] != "in_progress" || r["object"] != "response" {
				fail(i, "response %v", r)
			}
			if respID == "" {
				respID = r["id"].(string)
			} else if r["id"] != respID {
				fail(i, "response id changed")
			}
			if i > 1 {
				fail(i, "repeated")
			}
		case "response.output_item.added":
			if idx != nextIndex {
				fail(i, "output_index %d, want %d", idx, nextIndex)
			}
			nextIndex++
			item := ev.data["item"].(map[string]any)
			items[idx] = &itemState{id: item["id"].(string), typ: item["type"].(string), partOpen: -1, summaryOpen: -1}
			if item["status"] != "in_progress" {
				fail(i, "an added item with status %v", item["status"])
			}
		case "response.content_part.added":
			needOpen()
			if it.partOpen >= 0 || num(ev.data["content_index"]) != it.parts {
				fail(i, "content_index %v with part %d open, %d parts done", ev.data["content_index"], it.partOpen, it.parts)
			}
			it.partOpen = it.parts
			it.text.Reset()
		case "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta":
			needOpen()
			if it.partOpen < 0 || num(ev.data["content_index"]) != it.partOpen {
				fail(i, "a delta for content_index %v with part %d open", ev.data["content_index"], it.partOpen)
			}
			it.text.WriteString(ev.data["delta"].(string))
		case "response.output_text.done", "response.refusal.done", "response.reasoning_text.done":
			needOpen()
			key := map[string]string{"response.output_text.done": "text", "response.refusal.done": "refusal", "response.reasoning_text.done": "text"}[ev.name]
			if it.partOpen < 0 || ev.data[key] != it.text.String() {
				fail(i, "%s %q differs from its deltas %q", key, ev.data[key], it.text.String())
			}
			if ev.name == "response.reasoning_text.done" {
				tr.reasons = append(tr.reasons, it.text.String())
			} else {
				tr.texts = append(tr.texts, it.text.String())
			}
		case "response.content_part.done":
			needOpen()
			if num(ev.data["content_index"]) != it.partOpen {
				fail(i, "content_part.done for %v with part %d open", ev.data["content_index"], it.partOpen)
			}
			it.partOpen = -1
			it.parts++
		case "response.reasoning_summary_part.added":
			needOpen()
			if it.typ != "reasoning" || it.summaryOpen >= 0 || num(ev.data["summary_index"]) != it.summaries {
				fail(i, "summary_index %v in a %s item with summary %d open, %d done", ev.data["summary_index"], it.typ, it.summaryOpen, it.summaries)
			}
			if p, _ := ev.data["part"].(map[string]any); p["type"] != "summary_text" || p["text"] != "" {
				fail(i, "part %v", ev.data["part"])
			}
			it.summaryOpen = it.summaries
			it.summary.Reset()
		case "response.reasoning_summary_text.delta":
			needOpen()
			if it.summaryOpen < 0 || num(ev.data["summary_index"]) != it.summaryOpen {
				fail(i, "a summary delta for %v with summary %d open", ev.data["summary_index"], it.summaryOpen)
			}
			it.summary.WriteString(ev.data["delta"].(string))
		case "response.reasoning_summary_text.done":
			needOpen()
			if it.summaryOpen < 0 || num(ev.data["summary_index"]) != it.summaryOpen || ev.data["text"] != it.summary.String() {
				fail(i, "summary text %q differs from its deltas %q", ev.data["text"], it.summary.String())
			}
			tr.summary = append(tr.summary, it.summary.String())
		case "response.reasoning_summary_part.done":
			needOpen()
			p, _ := ev.data["part"].(map[string]any)
			if it.summaryOpen < 0 || num(ev.data["summary_index"]) != it.summaryOpen || p["type"] != "summary_text" || p["text"] != it.summary.String() {
				fail(i, "summary part done %v with summary %d open (%q)", ev.data, it.summaryOpen, it.summary.String())
			}
			it.summaryOpen = -1
			it.summaries++
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			needOpen()
			it.text.WriteString(ev.data["delta"].(string))
		case "response.function_call_arguments.done":
			needOpen()
			if ev.data["arguments"] != it.text.String() {
				fail(i, "arguments %q differ from the deltas %q", ev.data["arguments"], it.text.String())
			}
			tr.args[it.id] = it.text.String()
		case "response.custom_tool_call_input.done":
			needOpen()
			if ev.data["input"] != it.text.String() {
				fail(i, "input %q differs from the deltas %q", ev.data["input"], it.text.String())
			}
		case "response.output_item.done":
			needOpen()
			if it.partOpen >= 0 || it.summaryOpen >= 0 {
				fail(i, "item done with a content or summary part open")
			}
			item := ev.data["item"].(map[string]any)
			if item["id"] != it.id || item["type"] != it.typ || item["status"] != "completed" {
				fail(i, "done item %v does not match the added one (%s %s)", item, it.id, it.typ)
			}
			if (it.typ == "message" || it.typ == "reasoning") && len(item["content"].([]any)) != it.parts {
				fail(i, "%s with %d content parts, %d streamed", it.typ, len(item["content"].([]any)), it.parts)
			}
			if it.typ == "reasoning" && len(item["summary"].([]any)) != it.summaries {
				fail(i, "reasoning with %d summary parts, %d streamed", len(item["summary"].([]any)), it.summaries)
			}
			if it.typ == "function_call" && item["arguments"] != tr.args[it.id] {
				fail(i, "done arguments %q, streamed %q", item["arguments"], tr.args[it.id])
			}
			it.done = true
			doneAt[idx] = item
		case "response.completed", "response.incomplete", "response.failed":
			tr.terminal = ev.name
			for k := 0; k < nextIndex; k++ {
				if item, ok := doneAt[k]; ok {
					tr.items = append(tr.items, item)
				}
			}
			r := ev.data["response"].(map[string]any)
			tr.response = r
			want := map[string]string{"response.completed": "completed", "response.incomplete": "incomplete", "response.failed": "failed"}[ev.name]
			if r["status"] != want || r["id"] != respID {
				fail(i, "status %v, id %v", r["status"], r["id"])
			}
			out, _ := json.Marshal(r["output"])
			done, _ := json.Marshal(tr.items)
			if tr.items == nil {
				done = []byte("[]")
			}
			if !bytes.Equal(out, done) {
				fail(i, "response.output %s differs from the done items %s", out, done)
			}
			if ev.name != "response.failed" {
				for k, st := range items {
					if !st.done {
						fail(i, "item %d (%s) was never done", k, st.id)
					}
				}
			} else if e, _ := r["error"].(map[string]any); e == nil || e["message"] == "" || e["code"] == "" {
				fail(i, "a failed response without error: %v", r["error"])
			}
		default:
			fail(i, "unknown event")
		}
	}
	if tr.terminal == "" {
		t.Fatalf("the stream has no terminal event:\n%s", b)
	}
	return tr
}

// TestStream_Golden pins the exact events of a short answer.
func TestStream_Golden(t *testing.T) {
	meta := codexMeta(t)
	meta.echo = echo{} // keep the golden short
	meta.InputTokens = 300
	b := runStream(t, meta, []chat.Chunk{reason("Hm."), text("Hi"), finish("stop"), usageChunk(1, 1)}, nil)
	checkStream(t, b)
	want := `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_test","object":"response","created_at":1700000000,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"vendor-a/model-a-sonnet-4.5","output":[],"parallel_tool_calls":false,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"usage":{"input_tokens":300,"input_tokens_details":{"cached_tokens":0},"output_tokens":0,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":300},"metadata":{}}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_test","object":"response","created_at":1700000000,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"vendor-a/model-a-sonnet-4.5","output":[],"parallel_tool_calls":false,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"usage":{"input_tokens":300,"input_tokens_details":{"cached_tokens":0},"output_tokens":0,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":300},"metadata":{}}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"type":"reasoning","id":"rs_test_0","status":"in_progress","summary":[],"content":[],"encrypted_content":null}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":3,"item_id":"rs_test_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":""}}

event: response.reasoning_text.delta
data: {"type":"response.reasoning_text.delta","sequence_number":4,"item_id":"rs_test_0","output_index":0,"content_index":0,"delta":"Hm."}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","sequence_number":5,"item_id":"rs_test_0","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":6,"item_id":"rs_test_0","output_index":0,"summary_index":0,"delta":"Hm."}

event: response.reasoning_summary_text.done
data: {"type":"response.reasoning_summary_text.done","sequence_number":7,"item_id":"rs_test_0","output_index":0,"summary_index":0,"text":"Hm."}

event: response.reasoning_summary_part.done
data: {"type":"response.reasoning_summary_part.done","sequence_number":8,"item_id":"rs_test_0","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"Hm."}}

event: response.reasoning_text.done
data: {"type":"response.reasoning_text.done","sequence_number":9,"item_id":"rs_test_0","output_index":0,"content_index":0,"text":"Hm."}

event: response.content_part.done
data: {"type":"response.content_part.done","sequence_number":10,"item_id":"rs_test_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":"Hm."}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":11,"output_index":0,"item":{"type":"reasoning","id":"rs_test_0","status":"completed","summary":[{"type":"summary_text","text":"Hm."}],"content":[{"type":"reasoning_text","text":"Hm."}],"encrypted_content":null}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":12,"output_index":1,"item":{"type":"message","id":"msg_test_1","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":13,"item_id":"msg_test_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":14,"item_id":"msg_test_1","output_index":1,"content_index":0,"delta":"Hi","logprobs":[]}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":15,"item_id":"msg_test_1","output_index":1,"content_index":0,"text":"Hi","logprobs":[]}

event: response.content_part.done
data: {"type":"response.content_part.done","sequence_number":16,"item_id":"msg_test_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"Hi","annotations":[]}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":17,"output_index":1,"item":{"type":"message","id":"msg_test_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}}

event: response.completed
data: {"type":"response.completed","sequence_number":18,"response":{"id":"resp_test","object":"response","created_at":1700000000,"status":"completed","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"vendor-a/model-a-sonnet-4.5","output":[{"type":"reasoning","id":"rs_test_0","status":"completed","summary":[{"type":"summary_text","text":"Hm."}],"content":[{"type":"reasoning_text","text":"Hm."}],"encrypted_content":null},{"type":"message","id":"msg_test_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}],"parallel_tool_calls":false,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":null,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":null,"usage":{"input_tokens":1,"input_tokens_details":{"cached_tokens":1},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":2},"metadata":{}}}

`
	if string(b) != want {
		t.Errorf("the stream differs from the golden:\n%s", translatetest.Diff(want, string(b)))
	}
}

// TestStream_ToolKinds: each call comes back as the item kind of the tool the
// client offered: apply_patch as a custom_tool_call with its text,
// spawn_agent with its namespace, local_shell as a local_shell_call with the
// command; parallel calls keep their order.
func TestStream_ToolKinds(t *testing.T) {
	meta := codexMeta(t)
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
	patchArgs := string(mustJSON(map[string]string{"input": patch}))
	var chunks []chat.Chunk
	chunks = append(chunks, reason("Two things."))
	chunks = append(chunks, toolCall(0, "call_a", "apply_patch", patchArgs, 3, 20)...)
	chunks = append(chunks, toolCall(1, "call_b", "spawn_agent", `{"message":"go"}`, 4)...)
	chunks = append(chunks, toolCall(2, "call_c", LocalShellTool, `{"command":["bash","-lc","ls"],"workdir":"/p"}`, 10)...)
	chunks = append(chunks, toolCall(3, "call_d", "unknown_tool", `{}`)...)
	chunks = append(chunks, finish("tool_calls"))
	tr := checkStream(t, runStream(t, meta, chunks, nil))
	if len(tr.items) != 5 {
		t.Fatalf("%d items: %v", len(tr.items), tr.items)
	}
	// A local_shell item starts when its command is complete, so it may
	// come after calls that followed it; items are looked up by call.
	byCall := map[string]int{}
	for i, it := range tr.items {
		if id, ok := it["call_id"].(string); ok {
			byCall[id] = i
		}
	}
	calls := []string{"", "call_a", "call_b", "call_c", "call_d"}
	got := func(i int, k string) any { return tr.items[byCall[calls[i]]][k] }
	if got(1, "type") != "custom_tool_call" || got(1, "input") != patch || got(1, "name") != "apply_patch" || got(1, "call_id") != "call_a" {
		t.Errorf("apply_patch: %v", tr.items)
	}
	if got(2, "type") != "function_call" || got(2, "namespace") != "multi_agent_v1" || got(2, "name") != "spawn_agent" {
		t.Errorf("spawn_agent: %v", tr.items)
	}
	action, _ := got(3, "action").(map[string]any)
	if got(3, "type") != "local_shell_call" || fmt.Sprint(action["command"]) != "[bash -lc ls]" || action["working_directory"] != "/p" || got(3, "call_id") != "call_c" {
		t.Errorf("local_shell: %v", tr.items)
	}
	if got(4, "type") != "function_call" || got(4, "name") != "unknown_tool" {
		t.Errorf("a tool the client did not offer: %v", tr.items)
	}
	if len(tr.reasons) != 1 || tr.reasons[0] != "Two things." {
		t.Errorf("reasoning %q", tr.reasons)
	}
}

// FuzzStream cuts a conversation's reasoning, text and tool arguments at
// fuzzed byte boundaries and in fuzzed order; the events must follow the
// rules and carry every byte.
func FuzzStream(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "Hello, wörld", `{"cmd":"ls -la"}`)
	f.Add([]byte{9, 200, 7, 7, 7}, "", `{}`)
	f.Add([]byte{3, 3, 3, 3, 3, 3, 3, 3}, "a", "")
	f.Add([]byte{255, 128, 64, 32, 16, 8, 4, 2, 1}, "«quoted» text\n", `{"input":"*** Begin Patch\n"}`)
	meta := codexMeta(f)
	f.Fuzz(func(t *testing.T, plan []byte, content, args string) {
		// The chunks are decoded JSON: their strings are valid UTF-8.
		content, args = strings.ToValidUTF8(content, "?"), strings.ToValidUTF8(args, "?")
		var chunks []chat.Chunk
		pos := map[int]int{} // stream → bytes sent
		streams := []string{"reasoning " + content, content, args, args}
		for _, p := range plan {
			k := int(p) % 4
			s := streams[k]
			n := min(len(s)-pos[k], int(p)/4%5+1)
			for n > 0 && pos[k]+n < len(s) && !utf8.RuneStart(s[pos[k]+n]) {
				n++ // whole characters only: the chunks are decoded JSON
			}
			if n <= 0 {
				continue
			}
			piece := s[pos[k] : pos[k]+n]
			pos[k] += n
			switch k {
			case 0:
				chunks = append(chunks, reason(piece))
			case 1:
				chunks = append(chunks, text(piece))
			case 2, 3:
				name := []string{"exec_command", "apply_patch"}[k-2]
				if pos[k] == n {
					chunks = append(chunks, callStart(k-2, fmt.Sprintf("call_%d", k), name, piece))
				} else {
					chunks = append(chunks, callArgs(k-2, piece))
				}
			}
		}
		chunks = append(chunks, finish("stop"), usageChunk(1, 2))
		tr := checkStream(t, runStream(t, meta, chunks, nil))
		var gotText, gotReason strings.Builder
		for _, s := range tr.texts {
			gotText.WriteString(s)
		}
		for _, s := range tr.reasons {
			gotReason.WriteString(s)
		}
		if gotText.String() != content[:pos[1]] || gotReason.String() != streams[0][:pos[0]] {
			t.Fatalf("text %q / %q, reasoning %q / %q", gotText.String(), content[:pos[1]], gotReason.String(), streams[0][:pos[0]])
		}
		for _, it := range tr.items {
			switch it["type"] {
			case "function_call":
				if it["arguments"] != orEmpty(args[:pos[2]]) {
					t.Fatalf("arguments %q, sent %q", it["arguments"], args[:pos[2]])
				}
			case "custom_tool_call":
				if it["input"] != customInput(args[:pos[3]]) {
					t.Fatalf("input %q, sent %q", it["input"], args[:pos[3]])
				}
			}
		}
	})
}

func orEmpty(args string) string {
	if args == "" {
		return "{}"
	}
	return args
}

// TestDeltaEventsAsEncodingJSON: the delta events, written without
// reflection, are byte for byte what encoding/json writes for them.
func TestDeltaEventsAsEncodingJSON(t *testing.T) {
	for _, text := range []string{"", "plain", "quote \" backslash \\ newline \n tab \t", "<&> émoji 🙂 \u2028 \x01 bad \xff"} {
		for _, ev := range []headed{
			&textDelta{ItemID: "msg_" + text, OutputIndex: 2, ContentIndex: 1, Delta: text, Logprobs: []any{}},
			&contentDelta{ItemID: "rs_1", OutputIndex: 0, ContentIndex: 3, Delta: text},
			&callDelta{ItemID: "fc_1", OutputIndex: 7, Delta: text},
		} {
			ev.set("response.x."+text, 41)
			got, ok := appendDelta(nil, ev)
			if !ok {
				t.Fatalf("%T is not written by appendDelta", ev)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(ev); err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Errorf("%T %q:\n got %s\nwant %s", ev, text, got, want.String())
			}
		}
	}
	if _, ok := appendDelta(nil, &argsDone{}); ok {
		t.Error("appendDelta wrote an event that is not a delta")
	}
}

// A stream that broke off says so with the spec's message first and what to do after it, in gw serve's
// words for an agent's user (the renderer's, Serve).
func TestStreamError_BrokeOffSaysWhatToDo(t *testing.T) {
	for err, want := range map[error]string{
		io.ErrUnexpectedEOF: "unable to connect to API: the service's stream broke off before the answer was complete — retry; if it keeps happening, run: gw doctor",
	} {
		if code, got := streamError(err); got != want || code != "server_error" {
			t.Errorf("%v: %s %q\nwant server_error %q", err, code, got, want)
		}
	}
}
