package responses

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
)

// TestConformance runs the translators' suite with Codex's view of the
// Responses API: the stream read with its rules (checkStream), the output
// items given back as Codex keeps them, with encrypted_content asked for.
func TestConformance(t *testing.T) {
	translatetest.Run(t, translatetest.Conformance{
		Protocol: Protocol{},
		Carries:  []translatetest.Dialect{translatetest.Plain, translatetest.OpenRouter, translatetest.LiteLLM, translatetest.ThoughtSignature},
		Client: translatetest.Client{
			Request: codexRequest,
			Whole: func(t testing.TB, a translate.Answer) translatetest.Answer {
				var r map[string]any
				if err := json.Unmarshal(a.Body, &r); err != nil {
					t.Fatalf("%v: %s", err, a.Body)
				}
				items, _ := json.Marshal(r["output"])
				var out []map[string]any
				_ = json.Unmarshal(items, &out)
				return codexAnswer(map[string]string{"completed": "response.completed", "incomplete": "response.incomplete"}[r["status"].(string)], r, out)
			},
			Stream: func(t testing.TB, body []byte) translatetest.Answer {
				tr := checkStream(t, body)
				return codexAnswer(tr.terminal, tr.response, tr.items)
			},
			Error: func(t testing.TB, a translate.Answer) translatetest.Failure {
				var e struct {
					Error struct{ Message, Type, Code string }
				}
				if err := json.Unmarshal(a.Body, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
					t.Fatalf("not a Responses API error %d: %s", a.Status, a.Body)
				}
				// Codex retries every status but 400 and 429.
				return translatetest.Failure{Status: a.Status, Message: e.Error.Message, Retry: a.Status != 400 && a.Status != 429,
					Overflow: e.Error.Code == "context_length_exceeded"}
			},
		},
	})
}

// codexAnswer is what Codex makes of a response and its output items.
func codexAnswer(terminal string, r map[string]any, items []map[string]any) translatetest.Answer {
	a := translatetest.Answer{Kept: items, Stop: "stop"}
	var text, summary strings.Builder
	for _, it := range items {
		switch it["type"] {
		case "message":
			for _, p := range it["content"].([]any) {
				p := p.(map[string]any)
				t, _ := p["text"].(string)
				r, _ := p["refusal"].(string)
				text.WriteString(t + r)
			}
		case "reasoning":
			for _, p := range it["summary"].([]any) {
				summary.WriteString(p.(map[string]any)["text"].(string))
			}
		case "function_call":
			a.Calls = append(a.Calls, translatetest.Call{ID: it["call_id"].(string), Name: it["name"].(string), Args: it["arguments"].(string)})
			a.Stop = "tool_calls"
		}
	}
	a.Text, a.Reasoning = text.String(), summary.String()
	if u, ok := r["usage"].(map[string]any); ok {
		d, _ := u["input_tokens_details"].(map[string]any)
		a.Usage = &translatetest.Usage{Input: num(u["input_tokens"]), Output: num(u["output_tokens"]), Cached: num(d["cached_tokens"])}
	}
	switch terminal {
	case "response.incomplete":
		a.Stop = map[string]string{"max_output_tokens": "length", "content_filter": "content_filter"}[r["incomplete_details"].(map[string]any)["reason"].(string)]
	case "response.failed":
		a.Stop = "" // a failed response did not stop: it broke
		e := r["error"].(map[string]any)
		code := e["code"].(string)
		status := map[string]int{"rate_limit_exceeded": 429, "context_length_exceeded": 400, "model_not_found": 400, "invalid_api_key": 400, "insufficient_quota": 400}[code]
		// Codex retries a failed response unless its code is final.
		a.Failed = &translatetest.Failure{Status: status, Message: e["message"].(string), Retry: status != 400,
			Overflow: code == "context_length_exceeded"}
	}
	return a
}

// codexRequest is Codex's request of c.
func codexRequest(t testing.TB, c translatetest.Conversation) *translate.Request {
	var tools []any
	for _, name := range c.Tools {
		tools = append(tools, map[string]any{"type": "function", "name": name, "parameters": map[string]any{"type": "object"}})
	}
	user := func(s string) any {
		return map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": s}}}
	}
	input := []any{user(c.User)}
	if c.Reply != nil {
		for _, it := range c.Reply.Kept.([]map[string]any) {
			input = append(input, it)
		}
	}
	for _, r := range c.Results {
		input = append(input, map[string]any{"type": "function_call_output", "call_id": r.Call.ID, "output": r.Output})
	}
	if c.Next != "" {
		input = append(input, user(c.Next))
	}
	body, err := json.Marshal(map[string]any{"model": c.Model, "stream": c.Stream, "store": false, "input": input,
		"include": []string{"reasoning.encrypted_content"}, "tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	return &translate.Request{Method: http.MethodPost, Path: "/v1/responses", Header: http.Header{}, Body: body}
}
