package responses

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/translate"
)

// turnWhole sends one request through st as gw serve does with a whole
// answer: Parse, the service's reply (text, or a tool call when call is
// set), FromResponse, Record. It returns the chat request that went
// upstream and the response object the client got.
func turnWhole(t testing.TB, st *Store, body, reply string, call *chat.ToolCall) (*chat.Request, []byte) {
	t.Helper()
	req, meta, turn, perr := st.Parse(&translate.Request{Body: []byte(body)}, testEnv)
	if perr != nil {
		t.Fatalf("%s: %v", body, perr)
	}
	msg := chat.ResponseMsg{Role: "assistant", Content: &reply}
	if call != nil {
		msg.ToolCalls = []chat.ToolCall{*call}
	}
	out, err := FromResponse(meta, &chat.Response{Choices: []chat.Choice{{Message: msg, FinishReason: "stop"}}})
	if err != nil {
		t.Fatal(err)
	}
	st.Record(turn, out)
	return req, out
}

// turnStreamed is turnWhole with a streamed answer.
func turnStreamed(t testing.TB, st *Store, body, reply string) (*chat.Request, []byte) {
	t.Helper()
	req, meta, turn, perr := st.Parse(&translate.Request{Body: []byte(body)}, testEnv)
	if perr != nil {
		t.Fatalf("%s: %v", body, perr)
	}
	var buf bytes.Buffer
	sw := NewStreamWriter(&buf, meta)
	if sw.Response() != nil {
		t.Error("a stream not yet ended has a response")
	}
	for _, c := range []chat.Chunk{reason("Thinking."), text(reply), finish("stop")} {
		if err := sw.Chunk(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.End(nil); err != nil {
		t.Fatal(err)
	}
	st.Record(turn, sw.Response())
	// What is kept is what the client got in response.completed.
	evs := parseSSE(t, buf.Bytes())
	last := evs[len(evs)-1]
	var r struct {
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal([]byte(last.raw), &r); err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(r.Response, sw.Response()) {
		t.Errorf("Response() differs from response.completed:\n%s\n%s", sw.Response(), r.Response)
	}
	return req, sw.Response()
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func respID(t testing.TB, resp []byte) string {
	t.Helper()
	var r struct {
		ID     string `json:"id"`
		Output []struct {
			ID, Type string
		} `json:"output"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.ID == "" {
		t.Fatalf("no response id in %s", resp)
	}
	return r.ID
}

// outputID is the id of the response's first output item of the type.
func outputID(t testing.TB, resp []byte, typ string) string {
	t.Helper()
	var r struct {
		Output []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"output"`
	}
	_ = json.Unmarshal(resp, &r)
	for _, it := range r.Output {
		if it.Type == typ {
			return it.ID
		}
	}
	t.Fatalf("no %s item in %s", typ, resp)
	return ""
}

// messages is the chat request's messages as role: content lines.
func messages(req *chat.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "%s: %v", m.Role, m.Content)
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " [%s %s %s]", tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " (for %s)", m.ToolCallID)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func get(st *Store, method, path string) (int, string, bool) {
	u, _ := url.Parse(path)
	status, body, ok := st.Answer(method, u)
	return status, string(body), ok
}

// TestStore_PreviousResponseID: a conversation continued with
// previous_response_id reaches the service whole — the earlier turns' input,
// the model's answers and tool calls, then the new input — as the Vercel AI
// SDK and OpenAI's SDKs expect of store: true (the default); the response
// says which one it continues.
func TestStore_PreviousResponseID(t *testing.T) {
	st := NewStore(0, 0)
	_, r1 := turnWhole(t, st, `{"model":"m","instructions":"Be brief.","input":"list the files",
		"tools":[{"type":"function","name":"ls","parameters":{"type":"object"}}]}`,
		"Let me look.", &chat.ToolCall{ID: "call_1", Type: "function", Function: chat.FunctionCall{Name: "ls", Arguments: `{}`}})
	id1 := respID(t, r1)
	if !strings.Contains(string(r1), `"store":true`) {
		t.Errorf("a response stored by default says otherwise: %s", r1)
	}

	req2, r2 := turnStreamed(t, st, `{"model":"m","stream":true,"previous_response_id":"`+id1+`",
		"tools":[{"type":"function","name":"ls","parameters":{"type":"object"}}],
		"input":[{"type":"function_call_output","call_id":"call_1","output":"a.txt b.txt"}]}`, "Two files.")
	want := "user: list the files\nassistant: Let me look. [call_1 ls {}]\ntool: a.txt b.txt (for call_1)\n"
	if got := messages(req2); got != want {
		t.Errorf("second turn sent upstream:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(string(r2), `"previous_response_id":"`+id1+`"`) {
		t.Errorf("the second response does not name the first: %s", r2)
	}

	req3, _ := turnWhole(t, st, `{"model":"m","previous_response_id":"`+respID(t, r2)+`","input":"and hidden ones?"}`, "None.", nil)
	want += "assistant: Two files.\nuser: and hidden ones?\n"
	if got := messages(req3); got != want {
		t.Errorf("third turn sent upstream:\n%s\nwant:\n%s", got, want)
	}

	// GET answers the response as the client got it.
	status, body, ok := get(st, http.MethodGet, "/v1/responses/"+respID(t, r2))
	if !ok || status != 200 || body != string(r2) {
		t.Errorf("GET: %v %d %s", ok, status, body)
	}
	// Its input items: everything the model was given, newest first.
	status, body, _ = get(st, http.MethodGet, "/v1/responses/"+respID(t, r2)+"/input_items?order=asc&limit=2")
	var page struct {
		Object  string           `json:"object"`
		Data    []map[string]any `json:"data"`
		HasMore bool             `json:"has_more"`
	}
	if err := json.Unmarshal([]byte(body), &page); err != nil || status != 200 || page.Object != "list" || len(page.Data) != 2 || !page.HasMore ||
		!strings.Contains(fmt.Sprint(page.Data[0]["content"]), "list the files") || page.Data[1]["role"] != "assistant" {
		t.Errorf("input items: %d %s", status, body)
	}
}

// TestStore_ItemReference: an item_reference input item (the Vercel AI SDK's
// default for earlier assistant messages) becomes the item it names.
func TestStore_ItemReference(t *testing.T) {
	st := NewStore(0, 0)
	_, r1 := turnStreamed(t, st, `{"model":"m","stream":true,"input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}`, "Hello!")
	msgID := outputID(t, r1, "message")
	req, _ := turnWhole(t, st, `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]},
		{"type":"item_reference","id":"`+outputID(t, r1, "reasoning")+`"},{"type":"item_reference","id":"`+msgID+`"},
		{"role":"user","content":"again"}]}`, "Hello again!", nil)
	if got, want := messages(req), "user: hi\nassistant: Hello!\nuser: again\n"; got != want {
		t.Errorf("sent upstream:\n%s\nwant:\n%s", got, want)
	}
}

// TestStore_NotStoredTurnContinues: a request with store false that
// continues a kept response or references a kept item is resolved against
// them like any other (only its own answer is not kept), however it writes
// "store": false.
func TestStore_NotStoredTurnContinues(t *testing.T) {
	st := NewStore(0, 0)
	_, r1 := turnWhole(t, st, `{"model":"m","input":"list the files"}`, "a.txt b.txt", nil)
	req, r2 := turnWhole(t, st, `{"model":"m", "store" :  false, "previous_response_id":"`+respID(t, r1)+`","input":"and hidden ones?"}`, "None.", nil)
	if got, want := messages(req), "user: list the files\nassistant: a.txt b.txt\nuser: and hidden ones?\n"; got != want {
		t.Errorf("sent upstream:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(string(r2), `"store":false`) {
		t.Errorf("a response not stored says otherwise: %s", r2)
	}
	req, _ = turnWhole(t, st, `{"store":false,"model":"m","input":[{"type":"item_reference","id":"`+outputID(t, r1, "message")+`"},{"role":"user","content":"again"}]}`, "Again.", nil)
	if got, want := messages(req), "assistant: a.txt b.txt\nuser: again\n"; got != want {
		t.Errorf("sent upstream:\n%s\nwant:\n%s", got, want)
	}
	if n, _ := st.Len(); n != 1 {
		t.Errorf("%d responses kept, want the one stored", n)
	}
}

// TestStore_NotKept: store false keeps nothing; a response or item that is
// not kept (never was, forgotten, or from before a restart) is a 400 naming
// it and saying what to do, in OpenAI's error shape; GET of it a 404.
func TestStore_NotKept(t *testing.T) {
	st := NewStore(0, 0)
	_, r := turnWhole(t, st, `{"model":"m","store":false,"input":"hi"}`, "Hello", nil)
	if !strings.Contains(string(r), `"store":false`) {
		t.Errorf("a response not stored says otherwise: %s", r)
	}
	if n, b := st.Len(); n != 0 || b != 0 {
		t.Errorf("store false kept %d responses, %d bytes", n, b)
	}
	id := respID(t, r)
	for _, c := range []struct{ body, param, code, id string }{
		{`{"model":"m","previous_response_id":"` + id + `","input":"more"}`, "previous_response_id", "previous_response_not_found", id},
		{`{"model":"m","input":[{"type":"item_reference","id":"msg_gone"}]}`, "input[0].id", "item_not_found", "msg_gone"},
	} {
		_, _, _, perr := st.Parse(&translate.Request{Body: []byte(c.body)}, testEnv)
		if perr == nil {
			t.Fatalf("%s: accepted", c.body)
		}
		if perr.Status != 400 || perr.Param != c.param || perr.Code != c.code ||
			!strings.Contains(perr.Message, `"`+c.id+`" was not found: gw serve keeps the last 1000 responses`) ||
			!strings.Contains(perr.Message, "send the whole input (with store: false)") {
			t.Errorf("%s: %d %s %s %s", c.body, perr.Status, perr.Param, perr.Code, perr.Message)
		}
		var e struct {
			Error struct{ Message, Type, Param, Code string }
		}
		if err := json.Unmarshal(errorBody(perr), &e); err != nil || e.Error.Type != "invalid_request_error" || e.Error.Code != c.code {
			t.Errorf("error body %s", errorBody(perr))
		}
	}
	status, body, ok := get(st, http.MethodGet, "/v1/responses/"+id)
	if !ok || status != 404 || !strings.Contains(body, `\"`+id+`\" was not found`) {
		t.Errorf("GET of a response not kept: %v %d %s", ok, status, body)
	}

	// Without a Store (before gw serve keeps any), the same words.
	var none *Store
	_, _, _, perr := none.Parse(&translate.Request{Body: []byte(`{"model":"m","previous_response_id":"resp_1","input":"x"}`)}, testEnv)
	if perr == nil || !strings.Contains(perr.Message, "gw serve keeps no responses") {
		t.Errorf("no store: %v", perr)
	}
	if _, meta, _, perr := none.Parse(&translate.Request{Body: []byte(`{"model":"m","input":"x"}`)}, testEnv); perr != nil || meta.echo.Store {
		t.Errorf("no store: a response says it is stored (%v)", perr)
	}
}

// TestStore_Answer: what GET, DELETE and the other methods on
// /v1/responses/{id} get.
func TestStore_Answer(t *testing.T) {
	st := NewStore(0, 0)
	_, r := turnWhole(t, st, `{"model":"m","input":"hi"}`, "Hello", nil)
	id := respID(t, r)
	for _, c := range []struct {
		method, path string
		status       int
		words        string
		handled      bool
	}{
		{"POST", "/v1/responses", 0, "", false},
		{"GET", "/v1/responses/", 0, "", false},
		{"GET", "/v1/responses/" + id + "/other", 0, "", false},
		{"POST", "/v1/responses/" + id, 405, "takes GET, not POST", true},
		{"POST", "/v1/responses/" + id + "/cancel", 400, "background", true},
		{"GET", "/v1/responses/" + id + "/input_items?limit=0", 400, "limit", true},
		{"GET", "/v1/responses/" + id + "/input_items?order=up", 400, "order", true},
		{"GET", "/v1/responses/" + id + "/input_items", 200, `"text":"hi"`, true},
		{"DELETE", "/v1/responses/" + id, 200, `"deleted":true`, true},
		{"GET", "/v1/responses/" + id, 404, "was not found", true},
	} {
		status, body, ok := get(st, c.method, c.path)
		if ok != c.handled || status != c.status || !strings.Contains(body, c.words) {
			t.Errorf("%s %s: %v %d %s", c.method, c.path, ok, status, body)
		}
	}
}

// TestStore_Bounds: past its count or byte bound the Store forgets the
// responses used least recently (a conversation in use stays), never keeps
// one larger than the byte bound, and a request continuing a forgotten one
// is refused naming it — also when only an earlier response of the chain
// was forgotten.
func TestStore_Bounds(t *testing.T) {
	st := NewStore(3, 1<<20)
	var ids []string
	for i := range 5 {
		_, r := turnWhole(t, st, fmt.Sprintf(`{"model":"m","input":"q%d"}`, i), "a", nil)
		ids = append(ids, respID(t, r))
	}
	if n, _ := st.Len(); n != 3 {
		t.Errorf("kept %d responses, bound 3", n)
	}
	for i, id := range ids {
		status, _, _ := get(st, "GET", "/v1/responses/"+id)
		if want := map[bool]int{true: 404, false: 200}[i < 2]; status != want {
			t.Errorf("response %d: %d, want %d", i, status, want)
		}
	}

	// A chain: continuing it keeps it in use, so the others go first.
	st = NewStore(4, 1<<20)
	_, a := turnWhole(t, st, `{"model":"m","input":"a1"}`, "x", nil)
	_, b := turnWhole(t, st, `{"model":"m","input":"b1"}`, "x", nil)
	_, a2 := turnWhole(t, st, `{"model":"m","previous_response_id":"`+respID(t, a)+`","input":"a2"}`, "x", nil)
	_, c := turnWhole(t, st, `{"model":"m","input":"c1"}`, "x", nil)
	_, _ = turnWhole(t, st, `{"model":"m","previous_response_id":"`+respID(t, a2)+`","input":"a3"}`, "x", nil)
	if s, _, _ := get(st, "GET", "/v1/responses/"+respID(t, b)); s != 404 {
		t.Errorf("the response used least recently was kept (%d)", s)
	}
	if s, _, _ := get(st, "GET", "/v1/responses/"+respID(t, a)); s != 200 {
		t.Errorf("the start of the conversation in use was forgotten (%d)", s)
	}
	// Forget the start: its continuation is refused, naming both.
	_, _, _ = get(st, "DELETE", "/v1/responses/"+respID(t, a))
	_, _, _, perr := st.Parse(&translate.Request{Body: []byte(`{"model":"m","previous_response_id":"` + respID(t, a2) + `","input":"a4"}`)}, testEnv)
	if perr == nil || !strings.Contains(perr.Message, respID(t, a2)) || !strings.Contains(perr.Message, respID(t, a)+`", which was not found`) {
		t.Errorf("a broken chain: %v", perr)
	}
	_ = c

	// Bytes.
	st = NewStore(100, 8<<10)
	big := strings.Repeat("x", 3<<10)
	for i := range 6 {
		turnWhole(t, st, fmt.Sprintf(`{"model":"m","input":"%d %s"}`, i, big), "ok", nil)
		if _, b := st.Len(); b > 8<<10 {
			t.Fatalf("kept %d bytes, bound %d", b, 8<<10)
		}
	}
	if n, _ := st.Len(); n == 0 || n > 2 {
		t.Errorf("kept %d responses of ~4 KiB within 8 KiB", n)
	}
	_, r := turnWhole(t, st, `{"model":"m","input":"`+strings.Repeat("y", 9<<10)+`"}`, "ok", nil)
	if s, _, _ := get(st, "GET", "/v1/responses/"+respID(t, r)); s != 404 {
		t.Errorf("a response larger than the byte bound was kept")
	}
}

// TestStore_HostileInput: what a client sends that the Store cannot use is
// refused with the field named, or left for ParseRequest to refuse; never a
// panic, and an id is not echoed back whole.
func TestStore_HostileInput(t *testing.T) {
	st := NewStore(0, 0)
	long := strings.Repeat("r", 5000)
	for _, c := range []struct{ body, words string }{
		{`{"model":"m","previous_response_id":5,"input":"x"}`, "previous_response_id"},
		{`{"model":"m","input":[{"type":"item_reference"}]}`, "input[0].id: missing"},
		{`{"model":"m","input":[{"type":"item_reference","id":"` + long + `"}]}`, "was not found"},
		{`{"model":"m","previous_response_id":"` + long + `","input":"x"}`, "was not found"},
		{`{"model":"m","input":{"type":"item_reference"}}`, "input"},
		{`{"model":"m","input":[}`, "not valid JSON"},
		{`[1,2]`, "JSON object"},
		{``, "empty"},
	} {
		_, _, _, perr := st.Parse(&translate.Request{Body: []byte(c.body)}, testEnv)
		if perr == nil || !strings.Contains(perr.Message, c.words) || len(perr.Message) > 600 {
			t.Errorf("%.80s: %v", c.body, perr)
		}
	}
	st.Record(Turn{Store: true}, []byte(`not json`))
	st.Record(Turn{Store: true}, []byte(`{"id":"resp_x","status":"in_progress","output":[]}`))
	st.Record(Turn{Store: true}, []byte(`{"output":[]}`))
	if n, _ := st.Len(); n != 0 {
		t.Errorf("kept %d responses from answers that are no finished response", n)
	}
}

// TestStore_Concurrent: 64 sessions continue their own conversations at
// once through one Store far smaller than they need. The bounds hold at
// every moment, a conversation never gets another's items, and each turn
// either carries its whole conversation or is refused naming the response
// that was forgotten.
func TestStore_Concurrent(t *testing.T) {
	const sessions, turns, maxCount, maxBytes = 64, 8, 48, 64 << 10
	st := NewStore(maxCount, maxBytes)
	var refused, continued atomic.Int64
	errs := make(chan string, sessions*turns)
	// The sessions go turn by turn in step: every session's turn k is
	// recorded before any session's turn k+1 starts, so between two turns
	// of one session the other 63 record theirs; 64 responses in a Store
	// keeping 48 forget some whatever the scheduler does, and the first
	// turn to find its response kept continues it. Within a turn the 64
	// sessions run at once.
	prevs, histories := make([]string, sessions), make([]string, sessions)
	for turn := range turns {
		var wg sync.WaitGroup
		for s := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				prev, history := prevs[s], histories[s]
				q := fmt.Sprintf("s%d-q%d %s", s, turn, strings.Repeat("p", 200))
				body := fmt.Sprintf(`{"model":"m","input":%q}`, q)
				if prev != "" {
					body = fmt.Sprintf(`{"model":"m","previous_response_id":%q,"input":%q}`, prev, q)
				}
				req, meta, tn, perr := st.Parse(&translate.Request{Body: []byte(body)}, testEnv)
				if perr != nil {
					if !strings.Contains(perr.Message, "was not found: gw serve keeps the last 48 responses") || !strings.Contains(perr.Message, prev) {
						errs <- "refusal: " + perr.Message
					}
					refused.Add(1)
					prevs[s], histories[s] = "", "" // start again, as the message says
					return
				}
				var sb strings.Builder
				for _, m := range req.Messages {
					fmt.Fprintf(&sb, "%s:%v|", m.Role, m.Content)
				}
				want := history + "user:" + q + "|"
				if sb.String() != want {
					errs <- fmt.Sprintf("session %d turn %d sent %.200s, want %.200s", s, turn, sb.String(), want)
				}
				if prev != "" {
					continued.Add(1)
				}
				a := fmt.Sprintf("s%d-a%d", s, turn)
				out, _ := FromResponse(meta, &chat.Response{Choices: []chat.Choice{{Message: chat.ResponseMsg{Content: &a}, FinishReason: "stop"}}})
				st.Record(tn, out)
				if n, b := st.Len(); n > maxCount || b > maxBytes {
					errs <- fmt.Sprintf("the store holds %d responses, %d bytes", n, b)
				}
				if code, _, _ := get(st, "GET", "/v1/responses/"+respID(t, out)); code != 200 && code != 404 {
					errs <- fmt.Sprintf("GET %d", code)
				}
				prevs[s], histories[s] = respID(t, out), want+"assistant:"+a+"|"
			}()
		}
		wg.Wait()
	}
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 5 {
			t.Error(e)
		}
	}
	// Both happened: the bounds were reached, and conversations went on.
	if refused.Load() == 0 || continued.Load() == 0 {
		t.Errorf("%d turns refused, %d continued: the test did not reach the bounds", refused.Load(), continued.Load())
	}
	t.Logf("%d turns refused, %d continued", refused.Load(), continued.Load())
	if c, b := st.Len(); c == 0 || c > maxCount || b > maxBytes {
		t.Errorf("at the end: %d responses, %d bytes", c, b)
	}
}

// FuzzStoreParse: whatever a client sends, Parse answers or refuses with a
// 400 and never panics; a body naming no earlier response or item reaches
// ParseRequest as it is.
func FuzzStoreParse(f *testing.F) {
	st := NewStore(8, 64<<10)
	_, r := turnWhole(f, st, `{"model":"m","input":"hi"}`, "Hello", nil)
	id := respID(f, r)
	for _, s := range []string{
		`{"model":"m","previous_response_id":"` + id + `","input":"more"}`,
		`{"model":"m","input":[{"type":"item_reference","id":"` + outputID(f, r, "message") + `"},{"role":"user","content":"x"}]}`,
		`{"model":"m","previous_response_id":null,"input":[{"type":"item_reference","id":5}]}`,
		`{"model":"m","store":"yes","input":"x"}`,
		`{"model":"m","input":[{"type":"item_reference"}],"previous_response_id":"` + id + `"}`,
		`{"previous_response_id":["a"]}`, `null`, `{}`, `{"input":"item_reference"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, meta, turn, perr := st.Parse(&translate.Request{Body: body}, testEnv)
		if perr != nil {
			if perr.Status != 400 || perr.Message == "" {
				t.Fatalf("refusal %d %q", perr.Status, perr.Message)
			}
			return
		}
		if req == nil || meta.ResponseID == "" {
			t.Fatalf("accepted without a request: %+v", meta)
		}
		st.Record(turn, nil)
		if !bytes.Contains(body, []byte("previous_response_id")) && !bytes.Contains(body, []byte("item_reference")) {
			if b, _, _ := st.Expand(body); !bytes.Equal(b, body) {
				t.Fatalf("a body without references was rewritten:\n%s\n%s", body, b)
			}
		}
	})
}

// TestStore_ConcurrentGets: clients reading one kept response at once (a
// Codex session and its resume) each get the whole response, and reading
// it never writes into the copy the Store keeps.
func TestStore_ConcurrentGets(t *testing.T) {
	st := NewStore(0, 0)
	// A length whose copy has room to spare behind it.
	resp := `{"id":"resp_1","object":"response","status":"completed","output":[],"note":"` + strings.Repeat("x", 241) + `"}`
	st.Record(Turn{Store: true}, []byte(resp))
	p := Protocol{Store: st}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				a, ok := p.Local(&translate.Request{Method: "GET", Path: "/v1/responses/resp_1"}, translate.Env{})
				if !ok || a.Status != 200 || string(bytes.TrimSpace(a.Body)) != resp {
					t.Errorf("GET: %d %q", a.Status, a.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestStore_BuiltPastTheLimitIsRefused: what a request becomes once its
// references and its previous_response_id are resolved is bounded like a
// body gw serve receives; past the bound it is a 400 naming which field
// made it so, and it is not built.
func TestStore_BuiltPastTheLimitIsRefused(t *testing.T) {
	st := NewStore(0, 0).LimitBuilt(64 << 10)
	big := strings.Repeat("x", 20<<10)
	_, r1 := turnWhole(t, st, `{"model":"m","input":[{"type":"message","id":"msg_a","role":"user","content":"`+big+`"}]}`, big, nil)
	refs := func(n int) string {
		return strings.TrimSuffix(strings.Repeat(`{"type":"item_reference","id":"msg_a"},`, n), ",")
	}
	if _, _, _, perr := st.Parse(&translate.Request{Body: []byte(`{"model":"m","input":[` + refs(2) + `]}`)}, testEnv); perr != nil {
		t.Errorf("two references, under the bound: %v", perr)
	}
	for _, c := range []struct{ body, param string }{
		{`{"model":"m","input":[` + refs(4) + `]}`, "input"},
		{`{"model":"m","previous_response_id":"` + respID(t, r1) + `","input":[` + refs(2) + `]}`, "previous_response_id"},
	} {
		_, _, _, perr := st.Parse(&translate.Request{Body: []byte(c.body)}, testEnv)
		if perr == nil || perr.Status != 400 || perr.Param != c.param || perr.Code != "request_too_large" || !strings.Contains(perr.Message, "larger than 64 KiB") {
			t.Errorf("%.80s: %+v", c.body, perr)
		}
	}
}
