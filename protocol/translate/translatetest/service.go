package translatetest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// Service stands in for a service that reasons in a dialect, for a real
// client's run through a translator: offered the tool Tool, it streams its
// Reasoning (deltas in the dialect) and calls Tool with Args under the id
// CallID and Gemini's thought signature ThoughtSig; given the tool's
// result, it answers Answer followed by the result; else "ok". It keeps
// every chat request.
type Service struct {
	Tool, Args, CallID, ThoughtSig, Answer string
	Reasoning                              []string

	mu   sync.Mutex
	seen []chat.Request
}

func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req chat.Request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, req)
	s.mu.Unlock()
	result, offered := "", false
	for _, m := range req.Messages {
		if m.Role == "tool" {
			result = toolText(m.Content)
		}
	}
	for _, tl := range req.Tools {
		offered = offered || tl.Function.Name == s.Tool
	}
	deltas, finish := []string{`{"role":"assistant","content":"ok"}`}, "stop"
	switch {
	case result != "":
		deltas = []string{`{"role":"assistant","content":` + jsonOf(s.Answer+result) + `}`}
	case offered:
		deltas = append(append([]string{}, s.Reasoning...), `{"tool_calls":[{"index":0,"id":`+jsonOf(s.CallID)+`,"type":"function","function":{"name":`+
			jsonOf(s.Tool)+`,"arguments":`+jsonOf(s.Args)+`},"extra_content":{"google":{"thought_signature":`+jsonOf(s.ThoughtSig)+`}}}]}`)
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, d := range deltas {
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-s\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", d)
	}
	fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-s\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%q}]}\n\n", finish)
	fmt.Fprint(w, "data: {\"id\":\"chatcmpl-s\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,\"total_tokens\":120}}\n\ndata: [DONE]\n\n")
}

// Quote is s as a JSON string.
func Quote(s string) string { return jsonOf(s) }

// AfterResult is the first request that carried the tool's result and its
// assistant message with the call (nil when there is none), and how many
// requests the service got.
func (s *Service) AfterResult() (req *chat.Request, asst *chat.Message, requests int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.seen {
		if req == nil && slices.ContainsFunc(s.seen[i].Messages, func(m chat.Message) bool { return m.Role == "tool" }) {
			req = &s.seen[i]
		}
	}
	if req != nil {
		for i, m := range req.Messages {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 {
				asst = &req.Messages[i]
			}
		}
	}
	return req, asst, len(s.seen)
}

// toolText is a tool message's text as the service decodes it: a string,
// or its text parts (a result carrying a cache breakpoint is sent as parts).
func toolText(content any) string {
	parts, _ := content.([]any)
	if s, ok := content.(string); ok {
		return s
	}
	var b strings.Builder
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok && m["type"] == "text" {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// Refusing is an upstream of gw serve's loop that refuses every request
// with body, whole (a 400) or, when inStream, inside the stream of a
// streamed request, counting the requests in calls.
func Refusing(body string, inStream bool, calls *atomic.Int32) func(context.Context, *tr.Call) (*http.Response, error) {
	return func(_ context.Context, call *tr.Call) (*http.Response, error) {
		calls.Add(1)
		if inStream && call.Chat.Stream {
			sse := "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: " + body + "\n\n"
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(sse))}, nil
		}
		return &http.Response{StatusCode: 400, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
}
