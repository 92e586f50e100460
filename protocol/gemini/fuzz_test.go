package gemini

import (
	"bytes"
	"encoding/json"
	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// FuzzParseRequest: any body is translated or refused with a one-line 400,
// never a panic; a translated request names the model of the path.
func FuzzParseRequest(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "gemini-cli", "*", "request-*.json"))
	for _, p := range files {
		if strings.HasSuffix(p, ".chat.json") {
			continue
		}
		raw, _ := os.ReadFile(p)
		var rec struct {
			Body json.RawMessage `json:"body"`
		}
		if json.Unmarshal(raw, &rec) == nil {
			f.Add([]byte(rec.Body))
		}
	}
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"},"thoughtSignature":"x"}]},{"parts":[{"functionResponse":{"name":"f","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}}]}]}`))
	f.Add([]byte(`{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","nullable":true}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, meta, err := ParseRequest(&tr.Request{Path: Prefix + "/m:streamGenerateContent", Body: body}, translatetest.Env())
		if err != nil {
			if err.Status != 400 || strings.Contains(err.Message, "\n") {
				t.Fatalf("refused with %d %q", err.Status, err.Message)
			}
			return
		}
		if req.Model != "m" || meta.Model != "m" || len(req.Messages) == 0 && !bytes.Contains(body, []byte("contents")) {
			t.Fatalf("translated to %+v", req)
		}
		if _, jerr := json.Marshal(req); jerr != nil {
			t.Fatalf("the chat request does not encode: %v", jerr)
		}
	})
}

// FuzzStream: any sequence of chunks makes a stream @google/genai reads,
// ending with one last event.
func FuzzStream(f *testing.F) {
	f.Add(`{"choices":[{"index":0,"delta":{"content":"a","tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{"}}]},"finish_reason":"length"}]}`, true)
	f.Add(`{"choices":[{"index":3,"delta":{"reasoning":"r"}}],"usage":{"prompt_tokens":-5,"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":9}}}`, false)
	f.Fuzz(func(t *testing.T, chunks string, thoughts bool) {
		var buf bytes.Buffer
		s := NewStreamWriter(&buf, Meta{Model: "m", Stream: true, Thoughts: thoughts, ResponseID: "r", IDs: translatetest.Env().ID})
		for _, line := range strings.Split(chunks, "\n") {
			var c chat.Chunk
			if json.Unmarshal([]byte(line), &c) != nil {
				continue
			}
			if err := s.Chunk(&c); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.End(nil); err != nil {
			t.Fatal(err)
		}
		ev := events(t, buf.String())
		last := ev[len(ev)-1]
		if len(last.Candidates) != 1 || last.Candidates[0].FinishReason == "" {
			t.Fatalf("last event %+v", last)
		}
		if u := last.UsageMetadata; u != nil && (u.PromptTokenCount < 0 || u.CandidatesTokenCount < 0 || u.ThoughtsTokenCount < 0) {
			t.Fatalf("negative usage %+v", u)
		}
	})
}
