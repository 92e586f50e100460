package gemini

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
)

// TestConformance runs the translators' suite with @google/genai's view of
// the Gemini API (events) and Gemini CLI's history: the model's parts given
// back as they came, thoughts asked for.
func TestConformance(t *testing.T) {
	translatetest.Run(t, translatetest.Conformance{
		Protocol: Protocol{},
		Carries:  []translatetest.Dialect{translatetest.Plain, translatetest.ThoughtSignature},
		Client: translatetest.Client{
			Request: geminiRequest,
			Whole: func(t testing.TB, a tr.Answer) translatetest.Answer {
				var r response
				if err := json.Unmarshal(a.Body, &r); err != nil {
					t.Fatalf("%v: %s", err, a.Body)
				}
				return geminiAnswer([]response{r})
			},
			Stream: func(t testing.TB, body []byte) translatetest.Answer {
				out, tail := string(body), ""
				if i := strings.Index(out, `{"error":`); i >= 0 {
					out, tail = out[:i], out[i:]
				}
				a := geminiAnswer(events(t.(*testing.T), out))
				if tail != "" {
					f := geminiFailure(t, []byte(tail))
					a.Failed = &f
				}
				return a
			},
			Error: func(t testing.TB, a tr.Answer) translatetest.Failure {
				f := geminiFailure(t, a.Body)
				if f.Status != a.Status {
					t.Errorf("code %d in an answer of status %d", f.Status, a.Status)
				}
				return f
			},
		},
	})
}

// geminiFailure reads Google's error object as Gemini CLI does: it retries
// 429 and every 5xx.
func geminiFailure(t testing.TB, body []byte) translatetest.Failure {
	var e struct{ Error errorDetail }
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Status != StatusOf(e.Error.Code) && e.Error.Status != "FAILED_PRECONDITION" {
		t.Fatalf("not a Gemini API error: %s", body)
	}
	return translatetest.Failure{Status: e.Error.Code, Message: e.Error.Message, Retry: e.Error.Code == 429 || e.Error.Code >= 500,
		Overflow: e.Error.Code == 400 && strings.Contains(strings.ToLower(e.Error.Message), "context")}
}

// geminiAnswer is what a client makes of the answer's events: their parts
// in order, the last finish reason and usage.
func geminiAnswer(evs []response) translatetest.Answer {
	var a translatetest.Answer
	var parts []outPart
	var text, thought strings.Builder
	finish := ""
	for _, ev := range evs {
		if ev.UsageMetadata != nil {
			u := ev.UsageMetadata
			a.Usage = &translatetest.Usage{Input: u.PromptTokenCount, Output: u.CandidatesTokenCount + u.ThoughtsTokenCount, Cached: u.CachedContentTokenCount}
		}
		for _, c := range ev.Candidates {
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
			for _, p := range c.Content.Parts {
				parts = append(parts, p)
				switch {
				case p.FunctionCall != nil:
					a.Calls = append(a.Calls, translatetest.Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: string(p.FunctionCall.Args)})
				case p.Text != nil && p.Thought:
					thought.WriteString(*p.Text)
				case p.Text != nil:
					text.WriteString(*p.Text)
				}
			}
		}
	}
	a.Text, a.Reasoning, a.Kept = text.String(), thought.String(), parts
	a.Stop = map[string]string{"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter"}[finish]
	if a.Stop == "stop" && len(a.Calls) > 0 {
		a.Stop = "tool_calls"
	}
	return a
}

// geminiRequest is Gemini CLI's request of c.
func geminiRequest(t testing.TB, c translatetest.Conversation) *tr.Request {
	var decls []any
	for _, name := range c.Tools {
		decls = append(decls, map[string]any{"name": name, "parameters": map[string]any{"type": "object"}})
	}
	text := func(s string) any { return map[string]any{"text": s} }
	contents := []any{map[string]any{"role": "user", "parts": []any{text(c.User)}}}
	if c.Reply != nil {
		contents = append(contents, map[string]any{"role": "model", "parts": c.Reply.Kept})
	}
	var user []any
	for _, r := range c.Results {
		user = append(user, map[string]any{"functionResponse": map[string]any{"id": r.Call.ID, "name": r.Call.Name, "response": map[string]any{"output": r.Output}}})
	}
	if c.Next != "" {
		user = append(user, text(c.Next))
	}
	if user != nil {
		contents = append(contents, map[string]any{"role": "user", "parts": user})
	}
	body, err := json.Marshal(map[string]any{"contents": contents, "tools": []any{map[string]any{"functionDeclarations": decls}},
		"generationConfig": map[string]any{"thinkingConfig": map[string]any{"includeThoughts": true}}})
	if err != nil {
		t.Fatal(err)
	}
	req := &tr.Request{Method: http.MethodPost, Path: Prefix + "/" + c.Model + ":generateContent", Header: http.Header{}, Body: body}
	if c.Stream {
		req.Path, req.Query = Prefix+"/"+c.Model+":streamGenerateContent", "alt=sse"
	}
	return req
}
