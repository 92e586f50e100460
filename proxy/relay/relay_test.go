package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/anthropic"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/responses"
	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/proxy/relay"
)

// The chat request gw serve sends carries the translator's extra fields at
// its top level, without overriding a field of the chat request.
func TestNewChatRequestAddsExtraFields(t *testing.T) {
	call := &translate.Call{
		Chat: &chat.Request{Model: "m", Messages: []chat.Message{{Role: "user", Content: "hi"}}, Stream: true},
		Extra: map[string]jsonv1.RawMessage{
			"prompt_cache_key": jsonv1.RawMessage(`"session-1"`),
			"model":            jsonv1.RawMessage(`"other"`),
			"broken":           jsonv1.RawMessage(`{`),
		},
	}
	hr, err := relay.NewChatRequest(context.Background(), "http://service/v1/chat/completions", call)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(hr.Body)
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("not JSON (%v): %s", err, b)
	}
	if got["prompt_cache_key"] != "session-1" || got["model"] != "m" || got["broken"] != nil || got["stream"] != true {
		t.Errorf("sent %s", b)
	}
	if hr.Header.Get("Accept") != "text/event-stream" {
		t.Errorf("Accept %q", hr.Header.Get("Accept"))
	}
}

// fixed is an Env that always says the same.
var fixed = translate.Env{
	Now: func() time.Time { return time.Unix(1700000000, 0) },
	ID:  func(n int) string { return strings.Repeat("a", n) },
}

// TestTranslatorsArePure: with the clock and ids given, the same request
// and the same service stream make the same bytes for the client, in every
// protocol: nothing in a translator depends on anything but its input.
func TestTranslatorsArePure(t *testing.T) {
	stream := "data: " + `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}` + "\n\n" +
		"data: " + `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}` + "\n\n" +
		"data: [DONE]\n\n"
	for _, c := range []struct {
		p          translate.Protocol
		path, body string
	}{
		{anthropic.Protocol{}, "/v1/messages", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{responses.Protocol{}, "/v1/responses", `{"model":"m","input":"hi","stream":true}`},
	} {
		var answers []string
		for range 2 {
			o := &relay.Options{Env: fixed, Upstream: func(context.Context, *translate.Call) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(stream))}, nil
			}}
			rec := httptest.NewRecorder()
			out := relay.Serve(rec, httptest.NewRequest("POST", c.path, strings.NewReader(c.body)), c.p, o)
			if out.Status != 200 || !out.Stream || out.Usage == nil || out.Usage.CompletionTokens != 2 {
				t.Fatalf("%s: outcome %+v: %s", c.p.Name(), out, rec.Body)
			}
			answers = append(answers, rec.Body.String())
		}
		if answers[0] != answers[1] || !strings.Contains(answers[0], "lo") {
			t.Errorf("%s: two answers differ:\n%s\n%s", c.p.Name(), answers[0], answers[1])
		}
		if c.p.Name() == "responses" && !strings.Contains(answers[0], `"id":"resp_`+strings.Repeat("a", 24)+`"`) {
			t.Errorf("the response id is not the Env's: %s", answers[0])
		}
	}
}

// TestStreamBytesBounded: a service that streams events without end that
// carry nothing a translator keeps (empty deltas) is cut after the stream
// limit, with the protocol's error event.
func TestStreamBytesBounded(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		ev := []byte("data: " + `{"id":"c","choices":[{"index":0,"delta":{}}]}` + "\n\n")
		for {
			if _, err := pw.Write(ev); err != nil {
				return
			}
		}
	}()
	o := &relay.Options{Limits: relay.Limits{Stream: 1 << 20}, Upstream: func(context.Context, *translate.Call) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr}, nil
	}}
	rec := httptest.NewRecorder()
	out := relay.Serve(rec, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)), anthropic.Protocol{}, o)
	if !strings.Contains(out.Note, "aborted=too_large limit=stream") || !bytes.Contains(rec.Body.Bytes(), []byte("event: error")) ||
		!bytes.Contains(rec.Body.Bytes(), []byte("limit of 1 MiB")) {
		t.Errorf("outcome %+v\n%s", out, rec.Body)
	}
}

// TestToolCallBoundIsPerCall: parallel tool calls that a service numbers
// with the same index (told apart by id) are each held to the tool call
// limit, not to one limit together; one call past it is cut.
func TestToolCallBoundIsPerCall(t *testing.T) {
	call := func(id, args string) string {
		return "data: " + `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"` + id + `","type":"function","function":{"name":"Read","arguments":"` + args + `"}}]}}]}` + "\n\n"
	}
	big := strings.Repeat("x", 600<<10) // 600 KiB each, under a 1 MiB limit
	run := func(stream string) (relay.Outcome, string) {
		o := &relay.Options{Limits: relay.Limits{ToolCall: 1 << 20}, Upstream: func(context.Context, *translate.Call) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(stream))}, nil
		}}
		rec := httptest.NewRecorder()
		out := relay.Serve(rec, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)), anthropic.Protocol{}, o)
		return out, rec.Body.String()
	}
	end := "data: " + `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	out, body := run(call("call_1", big) + call("call_2", big) + end)
	if strings.Contains(out.Note, "too_large") || strings.Count(body, `"type":"tool_use"`) != 2 || !strings.Contains(body, "message_stop") {
		t.Errorf("two calls under the limit: outcome %+v, %d tool_use blocks", out, strings.Count(body, `"type":"tool_use"`))
	}
	out, body = run(call("call_1", big) + call("", big) + end)
	if !strings.Contains(out.Note, "aborted=too_large limit=tool_call_arguments") || !strings.Contains(body, "event: error") || strings.Contains(body, `"type":"tool_use"`) {
		t.Errorf("one call past the limit: outcome %+v\n%.300s", out, body)
	}
}

// TestManyEmptyToolCallsBounded: a service that opens tool call after tool
// call with nothing in them (a new index each time, or ids that alternate
// under one index) makes a translator keep one call each; the answer limit
// counts them, so such a stream is cut there rather than holding gw serve's
// memory to the stream's byte limit many times over.
func TestManyEmptyToolCallsBounded(t *testing.T) {
	for name, delta := range map[string]func(i int) string{
		"new index":           func(i int) string { return fmt.Sprintf(`{"index":%d}`, i) },
		"alternating id at 0": func(i int) string { return `{"index":0,"id":"` + string(rune('a'+i%2)) + `"}` },
	} {
		t.Run(name, func(t *testing.T) {
			var stream strings.Builder
			for i := range 20000 {
				stream.WriteString("data: " + `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[` + delta(i) + `]}}]}` + "\n\n")
			}
			stream.WriteString("data: [DONE]\n\n")
			o := &relay.Options{Limits: relay.Limits{Answer: 64 << 10}, Upstream: func(context.Context, *translate.Call) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(stream.String()))}, nil
			}}
			rec := httptest.NewRecorder()
			out := relay.Serve(rec, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)), anthropic.Protocol{}, o)
			if !strings.Contains(out.Note, "aborted=too_large limit=one_answer") || !strings.Contains(rec.Body.String(), "event: error") {
				t.Errorf("20000 empty tool calls against a 64 KiB answer limit: outcome %+v, %d tool_use blocks", out, strings.Count(rec.Body.String(), `"type":"tool_use"`))
			}
		})
	}
}

// TestStructuredReasoningBounded: reasoning sent only as OpenRouter's
// reasoning_details or LiteLLM's thinking_blocks, which the Responses
// translator keeps until the item ends, is held to the block limit like
// reasoning_content.
func TestStructuredReasoningBounded(t *testing.T) {
	piece := strings.Repeat("r", 1000)
	for name, delta := range map[string]string{
		"reasoning_details": `{"reasoning_details":[{"type":"reasoning.text","text":"` + piece + `","index":0}]}`,
		"thinking_blocks":   `{"thinking_blocks":[{"type":"thinking","thinking":"` + piece + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var stream strings.Builder
			for range 200 { // 200 KB of reasoning against a 64 KiB limit
				stream.WriteString("data: " + `{"id":"c","choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n")
			}
			stream.WriteString("data: [DONE]\n\n")
			o := &relay.Options{Limits: relay.Limits{Block: 64 << 10}, Upstream: func(context.Context, *translate.Call) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(stream.String()))}, nil
			}}
			rec := httptest.NewRecorder()
			out := relay.Serve(rec, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(`{"model":"m","input":"hi","stream":true}`)), responses.Protocol{}, o)
			if !strings.Contains(out.Note, "aborted=too_large limit=one_content_block") || !strings.Contains(rec.Body.String(), "response.failed") {
				t.Errorf("200 KB of %s against a 64 KiB block limit: outcome %+v", name, out)
			}
		})
	}
}
