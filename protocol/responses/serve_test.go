package responses

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/standin"
)

const testKey = "sk-responses-test-key"

// Upstream sends a chat request to the service.
type Upstream = relaytest.Upstream

// harness is a tiny gw serve for the Responses route only: gw serve's loop
// (relaytest) in front of the stand-in of the service, with the key added
// upstream.
type harness struct {
	svc *standin.Running
	srv *httptest.Server
}

func newHarness(t testing.TB, o standin.Options, key string) *harness {
	t.Helper()
	if o.Accounts == nil {
		o.Accounts = []standin.Account{{Key: testKey, BalanceCents: 10_000}}
	}
	svc := standin.Start(o)
	t.Cleanup(svc.Close)
	return newHarnessUpstream(t, svc, relaytest.UpstreamTo(svc.BaseURL, key, svc.Client()))
}

func newHarnessUpstream(t testing.TB, svc *standin.Running, up Upstream) *harness {
	t.Helper()
	h := &harness{svc: svc}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/responses", func(w http.ResponseWriter, r *http.Request) {
		relaytest.Serve(w, r, Protocol{}, up, 0, 0)
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *harness) post(t testing.TB, body string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Post(h.srv.URL+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// codexBody is Codex's first recorded request with the last user message
// replaced by prompt.
func codexBody(t testing.TB, prompt, model string) string {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(readGolden(t, "request1.json"), &req); err != nil {
		t.Fatal(err)
	}
	input := req["input"].([]any)
	input[len(input)-1] = map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}}
	req["model"] = model
	b, _ := json.Marshal(req)
	return string(b)
}

// TestServe_ToolCallThroughStandin: the stand-in calls Codex's shell tool
// with the command of the prompt; the call reaches the client as a
// function_call with Codex's argument names, and the tool's output, sent
// back the way Codex sends it, is quoted in the answer.
func TestServe_ToolCallThroughStandin(t *testing.T) {
	h := newHarness(t, standin.Options{}, testKey)
	model := "vendor-a/model-a-sonnet-4.5"
	_, b := h.post(t, codexBody(t, "Use the exec_command tool: `cat /p/notes.txt`", model))
	tr := checkStream(t, b)
	var call map[string]any
	for _, it := range tr.items {
		if it["type"] == "function_call" {
			call = it
		}
	}
	if call == nil || call["name"] != "exec_command" {
		t.Fatalf("no exec_command call: %v", tr.items)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(call["arguments"].(string)), &args); err != nil || args["cmd"] != "cat /p/notes.txt" {
		t.Fatalf("arguments %v (%v)", call["arguments"], err)
	}

	// The next turn, as Codex sends it: the call and its output appended.
	var req map[string]any
	_ = json.Unmarshal([]byte(codexBody(t, "Use the exec_command tool: `cat /p/notes.txt`", model)), &req)
	req["input"] = append(req["input"].([]any), call, map[string]any{"type": "function_call_output", "call_id": call["call_id"], "output": "The secret word is pineapple."})
	body, _ := json.Marshal(req)
	_, b = h.post(t, string(body))
	tr = checkStream(t, b)
	if got := strings.Join(tr.texts, ""); !strings.Contains(got, "Tool result received: «The secret word is pineapple.»") {
		t.Errorf("answer %q", got)
	}
}

// errorOf reads an error answer.
func errorOf(t testing.TB, b []byte) (message, code string) {
	t.Helper()
	var e errorOut
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("not an error body: %s", b)
	}
	if e.Error.Code != nil {
		code = *e.Error.Code
	}
	return e.Error.Message, code
}

// TestServe_WholeAnswerToStream: a gateway that answers a streamed request
// with one JSON completion is still streamed to the client.
func TestServe_WholeAnswerToStream(t *testing.T) {
	up := func(context.Context, *translate.Call) (*http.Response, error) {
		body := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Whole."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
	h := newHarnessUpstream(t, nil, up)
	_, b := h.post(t, `{"model":"m","input":"hi","stream":true}`)
	if tr := checkStream(t, b); strings.Join(tr.texts, "") != "Whole." {
		t.Errorf("%s", b)
	}
}

func TestServe_BadRequests(t *testing.T) {
	called := false
	h := newHarnessUpstream(t, nil, func(context.Context, *translate.Call) (*http.Response, error) {
		called = true
		return nil, errors.New("must not be called")
	})
	res, b := h.post(t, `{"model":"m","previous_response_id":"resp_1","input":"more"}`)
	// Without a Store nothing is kept: the id is not found, and the words say so.
	if msg, code := errorOf(t, b); res.StatusCode != 400 || code != "previous_response_not_found" || !strings.HasPrefix(msg, "previous_response_id: ") || !strings.Contains(msg, "keeps no responses") {
		t.Errorf("%d %s", res.StatusCode, b)
	}
	for enc, want := range map[string]int{"zstd": 400, "gzip": 400} {
		req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/v1/responses", strings.NewReader("(\xb5/\xfd…"))
		req.Header.Set("Content-Encoding", enc)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if msg, _ := errorOf(t, b); res.StatusCode != want || !strings.Contains(msg, "uncompressed") {
			t.Errorf("%s: %d %s", enc, res.StatusCode, b)
		}
	}
	if called {
		t.Error("a bad request was sent upstream")
	}
}

// TestServe_CodexRecordings: every recorded Codex request goes through Serve
// to the stand-in and is answered with a complete stream; the answers to the
// turns that end with a tool's output quote it.
func TestServe_CodexRecordings(t *testing.T) {
	h := newHarness(t, standin.Options{}, testKey)
	for i := 1; i <= 5; i++ {
		name := "request" + itoa(i) + ".json"
		_, b := h.post(t, string(readGolden(t, name)))
		tr := checkStream(t, b)
		if tr.terminal != "response.completed" {
			t.Fatalf("%s: %s", name, tr.terminal)
		}
		quoted := strings.Contains(strings.Join(tr.texts, ""), "Tool result received: «")
		if endsWithOutput := i == 2 || i == 4; quoted != endsWithOutput {
			t.Errorf("%s: answer %q", name, tr.texts)
		}
	}
}
