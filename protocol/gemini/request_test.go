package gemini

import (
	"encoding/json"
	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"net/http"
	"strings"
	"testing"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
)

func parse(t *testing.T, body string) (*chat.Request, map[string]jsonv1.RawMessage, Meta) {
	t.Helper()
	req, meta, err := ParseRequest(&tr.Request{Path: Prefix + "/m:streamGenerateContent", Body: []byte(body)}, translatetest.Env())
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	return req, meta.Extra, meta
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// What a generateContent request says becomes the chat request's fields.
func TestRequestFields(t *testing.T) {
	req, extra, meta := parse(t, `{
	 "systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Use tools."}]},
	 "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
	 "tools": [{"functionDeclarations": [
	   {"name": "a", "description": "A", "parametersJsonSchema": {"type": "object", "properties": {"x": {"type": ["string", "null"]}}}},
	   {"name": "b", "parameters": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "nullable": true}, "l": {"type": "ARRAY", "items": {"type": "STRING"}}}, "required": ["n"]}},
	   {"name": "c"}
	 ]}, {"googleSearch": {}}],
	 "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["b"]}},
	 "generationConfig": {"temperature": 0.2, "topP": 0.9, "topK": 40, "maxOutputTokens": 1000, "stopSequences": ["END"], "seed": 7,
	   "presencePenalty": 0.5, "responseMimeType": "application/json", "responseJsonSchema": {"type": "object"},
	   "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 20000}},
	 "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
	}`)
	if m := req.Messages[0]; m.Role != "system" || m.Content != "Be brief.\nUse tools." {
		t.Errorf("system %+v", m)
	}
	if m := req.Messages[1]; m.Role != "user" || m.Content != "hi" {
		t.Errorf("user %+v", m)
	}
	if len(req.Tools) != 3 {
		t.Fatalf("tools %s", jsonOf(req.Tools))
	}
	if got := string(req.Tools[0].Function.Parameters); got != `{"type": "object", "properties": {"x": {"type": ["string", "null"]}}}` {
		t.Errorf("parametersJsonSchema not passed as it is: %s", got)
	}
	if got := string(req.Tools[1].Function.Parameters); got != `{"properties":{"l":{"items":{"type":"string"},"type":"array"},"n":{"type":["integer","null"]}},"required":["n"],"type":"object"}` {
		t.Errorf("Gemini schema not rewritten: %s", got)
	}
	if got := string(req.Tools[2].Function.Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("no parameters: %s", got)
	}
	if jsonOf(req.ToolChoice) != `{"type":"function","function":{"name":"b"}}` {
		t.Errorf("tool choice %s", jsonOf(req.ToolChoice))
	}
	if *req.Temperature != 0.2 || *req.TopP != 0.9 || *req.MaxTokens != 1000 || jsonOf(req.Stop) != `["END"]` || req.ReasoningEffort != "high" {
		t.Errorf("generation config %s", jsonOf(req))
	}
	if string(req.ResponseFormat) != `{"json_schema":{"name":"response","schema":{"type":"object"}},"type":"json_schema"}` {
		t.Errorf("response format %s", req.ResponseFormat)
	}
	if string(extra["seed"]) != "7" || string(extra["presence_penalty"]) != "0.5" || len(extra) != 2 {
		t.Errorf("extra %s", jsonOf(extra))
	}
	if !meta.Thoughts || strings.Join(meta.Dropped, ",") != "tools.googleSearch,topK,safetySettings" {
		t.Errorf("meta %+v", meta)
	}
	if !req.Stream || req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		t.Errorf("stream without usage: %s", jsonOf(req))
	}
}

// A history: the model's turn with thoughts, text and calls (thought
// signatures kept); the user's function responses as tool messages, in
// order, matched to calls without ids by name; images and PDFs as parts.
func TestRequestHistory(t *testing.T) {
	req, _, _ := parse(t, `{"contents": [
	 {"role": "user", "parts": [{"text": "look"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}, {"inlineData": {"mimeType": "application/pdf", "data": "JVBE"}}]},
	 {"role": "model", "parts": [{"text": "thinking…", "thought": true}, {"text": "Two calls."},
	   {"functionCall": {"name": "read", "args": {"p": "a"}}, "thoughtSignature": "U0lH"},
	   {"functionCall": {"name": "read", "args": {"p": "b"}}}]},
	 {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": "A"}}},
	   {"functionResponse": {"name": "read", "response": {"error": "no b"}}}, {"text": "and?"}]}
	]}`)
	got := jsonOf(req.Messages)
	want := `[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBE"}}]},` +
		`{"role":"assistant","content":"Two calls.","tool_calls":[{"id":"call_000000000000000000000001","type":"function","function":{"name":"read","arguments":"{\"p\":\"a\"}"},"extra_content":{"google":{"thought_signature":"U0lH"}}},{"id":"call_000000000000000000000002","type":"function","function":{"name":"read","arguments":"{\"p\":\"b\"}"}}],"reasoning_content":"thinking…"},` +
		`{"role":"tool","content":"A","tool_call_id":"call_000000000000000000000001"},` +
		`{"role":"tool","content":"{\"error\": \"no b\"}","tool_call_id":"call_000000000000000000000002"},` +
		`{"role":"user","content":"and?"}]`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// thinkingConfig as reasoning_effort.
func TestThinkingConfig(t *testing.T) {
	for cfg, want := range map[string]string{
		`{"thinkingBudget": 0}`: "none", `{"thinkingBudget": 512}`: "low", `{"thinkingBudget": 8192}`: "medium",
		`{"thinkingBudget": 8193}`: "high", `{"thinkingBudget": -1}`: "", `{"thinkingLevel": "LOW"}`: "low", `{"includeThoughts": true}`: "",
	} {
		req, _, _ := parse(t, `{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"thinkingConfig":`+cfg+`}}`)
		if req.ReasoningEffort != want {
			t.Errorf("%s: %q, want %q", cfg, req.ReasoningEffort, want)
		}
	}
}

// Bad requests are refused with a 400 naming the field and what to do.
func TestRequestRefusals(t *testing.T) {
	cases := map[string]string{
		``:    "the request body is empty; send a Gemini API request as JSON",
		`[1]`: "the request body must be a JSON object, not array",
		`{}`:  "contents: the request has no contents",
		`{"contents":[{"role":"bot","parts":[{"text":"x"}]}]}`:                                                                                                  `contents[0].role: "bot" is not a role; use user or model`,
		`{"contents":[{"parts":[{}]}]}`:                                                                                                                         "contents[0].parts[0]: the part has none of",
		`{"contents":[{"parts":[{"inlineData":{"mimeType":"audio/mp3","data":"AA=="}}]}]}`:                                                                      `contents[0].parts[0].inlineData.mimeType: gw serve cannot pass "audio/mp3"`,
		`{"contents":[{"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/f"}}]}]}`:                                                           "send the file as inlineData",
		`{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"description":"x"}]}]}`:                                                      "tools[0].functionDeclarations[0].name: a function needs a name",
		`{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":[1]}]}]}`:                                            "tools[0].functionDeclarations[0].parameters: not a JSON object",
		`{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}}`: `"SOMETIMES" is not a mode`,
		`{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"thinkingConfig":{"thinkingLevel":"max"}}}`:                                                 `"max" is not a level`,
		`{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"responseMimeType":"text/x.enum"}}`:                                                         `"text/x.enum" cannot be asked of the service`,
	}
	for body, want := range cases {
		_, _, err := ParseRequest(&tr.Request{Path: Prefix + "/m:generateContent", Body: []byte(body)}, translatetest.Env())
		if err == nil || err.Status != http.StatusBadRequest || !strings.Contains(err.Message, want) || strings.Contains(err.Message, "\n") {
			t.Errorf("%s: got %v, want a one-line 400 with %q", body, err, want)
		}
	}
}

// Paths: a stream needs alt=sse, a method gw serve does not serve is
// refused in Google's shape, countTokens is answered here (the conformance
// suite reads the model with its vendor's slash, and refuses a GET).
func TestLocalRoutes(t *testing.T) {
	env := translatetest.Env()
	cases := []struct {
		method, path, query, body string
		handled                   bool
		status                    int
		want                      string
	}{
		{"POST", "/v1beta/models/m:streamGenerateContent", "", `{}`, true, 400, "add ?alt=sse"},
		{"POST", "/v1beta/models/m:embedContent", "", `{}`, true, 404, "gw serve speaks the Gemini API at"},
		{"POST", "/v1beta/models/m:countTokens", "", `{"contents":[{"parts":[{"text":"hello there"}]}]}`, true, 200, `{"totalTokens":`},
		{"POST", "/v1beta/models/m:countTokens", "", `{"generateContentRequest":{"model":"models/m","contents":[{"parts":[{"text":"hello there"}]}]}}`, true, 200, `{"totalTokens":`},
		{"POST", "/v1beta/models/m:countTokens", "", `{"contents":[]}`, true, 400, "no contents"},
	}
	for _, c := range cases {
		a, handled := Protocol{}.Local((&requestOf{c.method, c.path, c.query, []byte(c.body)}).tr(), env)
		if handled != c.handled || (handled && (a.Status != c.status || !strings.Contains(string(a.Body), c.want))) {
			t.Errorf("%s %s?%s: %v %d %s", c.method, c.path, c.query, handled, a.Status, a.Body)
		}
	}
}

// The model list answers from the account's ids, in Google's shape.
func TestModels(t *testing.T) {
	ids := []string{"vendor-a/x", "vendor-b/y"}
	a := Models("/v1beta/models", ids)
	if a.Status != 200 || string(a.Body) != `{"models":[{"name":"models/vendor-a/x","baseModelId":"vendor-a/x","displayName":"vendor-a/x","supportedGenerationMethods":["generateContent","streamGenerateContent","countTokens"]},{"name":"models/vendor-b/y","baseModelId":"vendor-b/y","displayName":"vendor-b/y","supportedGenerationMethods":["generateContent","streamGenerateContent","countTokens"]}]}` {
		t.Errorf("list %d %s", a.Status, a.Body)
	}
	if a := Models("/v1beta/models/vendor-b/y", ids); a.Status != 200 || !strings.Contains(string(a.Body), `"name":"models/vendor-b/y"`) {
		t.Errorf("one %d %s", a.Status, a.Body)
	}
	if a := Models("/v1beta/models/vendor-b/z", ids); a.Status != 404 || !strings.Contains(string(a.Body), `"status":"NOT_FOUND"`) {
		t.Errorf("missing %d %s", a.Status, a.Body)
	}
}

// Hostile input: deep nesting in a Gemini schema is bounded, not a crash.
func TestDeepSchema(t *testing.T) {
	deep := strings.Repeat(`{"type":"OBJECT","items":`, 500) + `{}` + strings.Repeat(`}`, 500)
	body := `{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":` + deep + `}]}]}`
	_, _, err := ParseRequest(&tr.Request{Path: Prefix + "/m:generateContent", Body: []byte(body)}, translatetest.Env())
	if err != nil && !strings.Contains(err.Message, "parameters") {
		t.Errorf("got %v", err)
	}
}
