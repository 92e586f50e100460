package gemini

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// Meta is what the answer needs to know of the request.
type Meta struct {
	Model  string // as the path named it: gemini-2.5-pro
	Stream bool   // :streamGenerateContent
	// Thoughts: the request asked for thought parts (thinkingConfig
	// includeThoughts); without it the model's reasoning is not shown.
	Thoughts bool
	Dropped  []string // fields the service has no place for, for the log
	// Extra are the request's fields sent to the service as they are
	// (translate.Call's Extra); nil when none.
	Extra map[string]json.RawMessage

	// ResponseID is the answer's responseId, fresh for each answer (the
	// translator sets it when the answer begins).
	ResponseID string
	// IDs makes the id of a call the service gave none (translate.Env.ID).
	IDs func(n int) string
}

// action is what a path under /v1beta/models asks for.
type action uint8

const (
	actList action = iota + 1 // GET /v1beta/models
	actGet                    // GET /v1beta/models/{model}
	actGenerate
	actStream
	actCount
)

// route reads a Gemini API path: /v1beta/models/{model}:{method}. model ""
// for the listing.
func route(path string) (act action, model string, ok bool) {
	rest, found := strings.CutPrefix(path, Prefix)
	if !found {
		return 0, "", false
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" {
		return actList, "", true
	}
	rest, found = strings.CutPrefix(rest, "/")
	if !found || rest == "" {
		return 0, "", false
	}
	// The service's model ids have a vendor before a slash
	// (vendor-b/model-b-3-flash-preview), which @google/genai puts in the
	// path as it is: the model is everything up to the method.
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return actGet, rest, true
	}
	model, method := rest[:i], rest[i+1:]
	if model == "" {
		return 0, "", false
	}
	switch method {
	case "generateContent":
		return actGenerate, model, true
	case "streamGenerateContent":
		return actStream, model, true
	case "countTokens":
		return actCount, model, true
	}
	return 0, model, false
}

// Prefix is the path of the Gemini API's models: the version @google/genai
// asks for by default (v1beta) and the collection.
const Prefix = "/v1beta/models"

// ParseRequest translates a generateContent request into a chat request for
// the model its path names (a stream for :streamGenerateContent). env.ID
// makes the ids of function calls that came without one (Gemini CLI gives
// each call its own; other clients may not).
func ParseRequest(req *tr.Request, env tr.Env) (*chat.Request, Meta, *tr.Error) {
	act, model, _ := route(req.Path)
	stream, body := act == actStream, req.Body
	meta := Meta{Model: model, Stream: stream, IDs: env.ID}
	var r request
	if err := json.Unmarshal(body, &r); len(bytes.TrimSpace(body)) == 0 || err != nil {
		field, msg := chat.BadBody(body, err, "Gemini API")
		return nil, meta, invalid(field, "%s", msg)
	}
	out := &chat.Request{Model: model, Stream: stream}
	if stream {
		out.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}
	extra := map[string]json.RawMessage{}
	if r.SystemInstruction != nil {
		var sys []string
		for j, p := range r.SystemInstruction.Parts {
			if p.Text == nil {
				return nil, meta, invalid(fmt.Sprintf("systemInstruction.parts[%d]", j), "only text parts are allowed in a system instruction")
			}
			sys = append(sys, *p.Text)
		}
		if len(sys) > 0 {
			out.Messages = append(out.Messages, chat.Message{Role: "system", Content: strings.Join(sys, "\n")})
		}
	}
	if len(r.Contents) == 0 {
		return nil, meta, invalid("contents", "the request has no contents; send at least one user turn")
	}
	b := builder{ids: env.ID, open: map[string][]string{}}
	for i, c := range r.Contents {
		var err *tr.Error
		switch c.Role {
		case "model":
			err = b.model(i, c)
		case "user", "", "function", "tool":
			err = b.user(i, c)
		default:
			err = invalid(fmt.Sprintf("contents[%d].role", i), "%q is not a role; use user or model", c.Role)
		}
		if err != nil {
			return nil, meta, err
		}
	}
	out.Messages = append(out.Messages, b.msgs...)
	meta.Dropped = append(meta.Dropped, b.dropped...)

	for i, t := range r.Tools {
		for j, d := range t.FunctionDeclarations {
			field := fmt.Sprintf("tools[%d].functionDeclarations[%d]", i, j)
			if d.Name == "" {
				return nil, meta, invalid(field+".name", "a function needs a name")
			}
			params, err := parameters(d)
			if err != nil {
				return nil, meta, invalid(field+".parameters", "%s", err)
			}
			out.Tools = append(out.Tools, chat.Tool{Type: "function",
				Function: chat.Function{Name: d.Name, Description: d.Description, Parameters: params}})
		}
		for _, f := range []named{{"googleSearch", t.GoogleSearch}, {"googleSearchRetrieval", t.GoogleSearchRetrieval},
			{"codeExecution", t.CodeExecution}, {"urlContext", t.URLContext}} {
			if f.raw != nil && !slices.Contains(meta.Dropped, "tools."+f.name) {
				meta.Dropped = append(meta.Dropped, "tools."+f.name)
			}
		}
	}
	if tc := r.ToolConfig; tc != nil && tc.FunctionCallingConfig != nil && len(out.Tools) > 0 {
		fc := tc.FunctionCallingConfig
		switch strings.ToUpper(fc.Mode) {
		case "", "MODE_UNSPECIFIED", "AUTO", "VALIDATED":
			out.ToolChoice = "auto"
		case "ANY":
			out.ToolChoice = "required"
			if len(fc.AllowedFunctionNames) == 1 {
				out.ToolChoice = chat.ForceFunction(fc.AllowedFunctionNames[0])
			}
		case "NONE":
			out.ToolChoice = "none"
		default:
			return nil, meta, invalid("toolConfig.functionCallingConfig.mode", "%q is not a mode; use AUTO, ANY or NONE", fc.Mode)
		}
	}
	if g := r.GenerationConfig; g != nil {
		out.Temperature, out.TopP, out.MaxTokens, out.Stop = g.Temperature, g.TopP, g.MaxOutputTokens, g.StopSequences
		if g.TopK != nil {
			meta.Dropped = append(meta.Dropped, "topK")
		}
		if g.CandidateCount != nil && *g.CandidateCount > 1 {
			meta.Dropped = append(meta.Dropped, "candidateCount")
		}
		for _, f := range []named{{"seed", g.Seed}, {"presence_penalty", g.PresencePenalty}, {"frequency_penalty", g.FrequencyPenalty}} {
			if f.raw != nil && string(f.raw) != "null" {
				extra[f.name] = f.raw
			}
		}
		var err *tr.Error
		if out.ResponseFormat, err = responseFormat(g); err != nil {
			return nil, meta, err
		}
		if t := g.ThinkingConfig; t != nil {
			meta.Thoughts = t.IncludeThoughts
			if out.ReasoningEffort, err = reasoningEffort(t); err != nil {
				return nil, meta, err
			}
		}
	}
	if r.SafetySettings != nil {
		meta.Dropped = append(meta.Dropped, "safetySettings")
	}
	if r.CachedContent != "" {
		meta.Dropped = append(meta.Dropped, "cachedContent")
	}
	if len(extra) > 0 {
		meta.Extra = extra
	}
	return out, meta, nil
}

// named is a field by its name.
type named struct {
	name string
	raw  json.RawMessage
}

// builder collects the chat messages of the contents.
type builder struct {
	msgs    []chat.Message
	ids     func(int) string
	open    map[string][]string // ids of calls not yet answered, by function name
	dropped []string
}

func (b *builder) model(i int, c content) *tr.Error {
	m := chat.Message{Role: "assistant"}
	var text, thought strings.Builder
	for j, p := range c.Parts {
		field := fmt.Sprintf("contents[%d].parts[%d]", i, j)
		switch {
		case p.FunctionCall != nil:
			fc := p.FunctionCall
			if fc.Name == "" {
				return invalid(field+".functionCall.name", "a function call needs a name")
			}
			args := "{}"
			if len(fc.Args) > 0 && string(fc.Args) != "null" {
				var buf bytes.Buffer
				if json.Compact(&buf, fc.Args) == nil {
					args = buf.String()
				} else {
					args = string(fc.Args)
				}
			}
			id := fc.ID
			if id == "" {
				id = "call_" + b.ids(24)
			}
			b.open[fc.Name] = append(b.open[fc.Name], id)
			m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: id, Type: "function",
				Function:     chat.FunctionCall{Name: fc.Name, Arguments: args},
				ExtraContent: chat.WithThoughtSignature(p.ThoughtSignature)})
		case p.Text != nil && p.Thought:
			thought.WriteString(*p.Text)
		case p.Text != nil:
			text.WriteString(*p.Text)
		case p.ExecutableCode != nil || p.CodeExecResult != nil:
			if !slices.Contains(b.dropped, "executableCode") {
				b.dropped = append(b.dropped, "executableCode")
			}
		case p.InlineData != nil || p.FileData != nil:
			return invalid(field, "a model turn cannot hold data; only text, thoughts and function calls")
		default:
			if p.ThoughtSignature == "" {
				return invalid(field, "the part has none of text, functionCall, functionResponse, inlineData or fileData")
			}
		}
	}
	if text.Len() > 0 {
		m.Content = text.String()
	}
	m.ReasoningContent = thought.String()
	if m.Content == nil && len(m.ToolCalls) == 0 {
		if m.ReasoningContent == "" {
			return nil // a turn of thought signatures alone says nothing
		}
		m.Content = ""
	}
	b.msgs = append(b.msgs, m)
	return nil
}

func (b *builder) user(i int, c content) *tr.Error {
	var parts []chat.Part
	var later []chat.Part // data a function answered with, after the tool messages
	for j, p := range c.Parts {
		field := fmt.Sprintf("contents[%d].parts[%d]", i, j)
		switch {
		case p.FunctionResponse != nil:
			fr := p.FunctionResponse
			id := fr.ID
			if open := b.open[fr.Name]; id == "" && len(open) > 0 {
				id = open[0]
			}
			if id == "" {
				id = "call_" + b.ids(24)
			}
			b.answered(fr.Name, id)
			b.msgs = append(b.msgs, chat.Message{Role: "tool", ToolCallID: id, Content: responseText(fr.Response)})
			for k, fp := range fr.Parts {
				cp, err := dataPart(fmt.Sprintf("%s.functionResponse.parts[%d]", field, k), fp)
				if err != nil {
					return err
				}
				if cp != nil {
					later = append(later, *cp)
				}
			}
		default:
			cp, err := dataPart(field, p)
			if err != nil {
				return err
			}
			if cp != nil {
				parts = append(parts, *cp)
			}
		}
	}
	parts = append(later, parts...)
	switch {
	case len(parts) == 0:
	case len(parts) == 1 && parts[0].Type == "text":
		b.msgs = append(b.msgs, chat.Message{Role: "user", Content: parts[0].Text})
	default:
		b.msgs = append(b.msgs, chat.Message{Role: "user", Content: parts})
	}
	return nil
}

// answered takes id off the calls of name waiting for their response.
func (b *builder) answered(name, id string) {
	open := b.open[name]
	for k, o := range open {
		if o == id {
			b.open[name] = append(open[:k:k], open[k+1:]...)
			return
		}
	}
}

// dataPart is a user part as a chat part: text, an image, a PDF; nil for a
// part with nothing to say.
func dataPart(field string, p part) (*chat.Part, *tr.Error) {
	switch {
	case p.Text != nil:
		return &chat.Part{Type: "text", Text: *p.Text}, nil
	case p.InlineData != nil:
		d := p.InlineData
		mime := strings.ToLower(strings.TrimSpace(d.MimeType))
		switch {
		case strings.HasPrefix(mime, "image/"):
			return &chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: "data:" + mime + ";base64," + d.Data}}, nil
		case mime == "application/pdf":
			return &chat.Part{Type: "file", File: &chat.File{FileData: "data:application/pdf;base64," + d.Data}}, nil
		case strings.HasPrefix(mime, "text/"):
			raw, err := base64.StdEncoding.DecodeString(d.Data)
			if err != nil {
				return nil, invalid(field+".inlineData.data", "not base64: %s", shortErr(err))
			}
			return &chat.Part{Type: "text", Text: string(raw)}, nil
		}
		return nil, invalid(field+".inlineData.mimeType", "gw serve cannot pass %q to the service's chat completions; send images, PDF or text", d.MimeType)
	case p.FileData != nil:
		u, err := url.Parse(p.FileData.FileURI)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || !strings.HasPrefix(strings.ToLower(p.FileData.MimeType), "image/") {
			return nil, invalid(field+".fileData", "only images by http(s) URL can be passed to the service; send the file as inlineData")
		}
		return &chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: p.FileData.FileURI}}, nil
	case p.FunctionCall != nil:
		return nil, invalid(field+".functionCall", "a function call belongs in a model turn")
	case p.ExecutableCode != nil || p.CodeExecResult != nil, p.ThoughtSignature != "":
		return nil, nil
	}
	return nil, invalid(field, "the part has none of text, inlineData, fileData or functionResponse")
}

// responseText is a function's response as a tool message's content: the
// output Gemini CLI wraps as {"output": "…"} as plain text, anything else
// as its JSON.
func responseText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var only map[string]json.RawMessage
	if json.Unmarshal(raw, &only) == nil && len(only) == 1 {
		var s string
		if v, ok := only["output"]; ok && json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// parameters is a declaration's parameters as JSON Schema: its
// parametersJsonSchema as it is, or its parameters (Gemini's OpenAPI
// subset, with upper-case types and nullable) rewritten.
func parameters(d functionDeclaration) (json.RawMessage, error) {
	if len(d.ParametersJSONSchema) > 0 && string(d.ParametersJSONSchema) != "null" {
		return d.ParametersJSONSchema, nil
	}
	if len(d.Parameters) == 0 || string(d.Parameters) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	var v any
	if err := json.Unmarshal(d.Parameters, &v); err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", shortErr(err))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	out, err := json.Marshal(openAPISchema(v, 0))
	return out, err
}

// openAPISchema rewrites a Gemini Schema into JSON Schema: types in lower
// case, nullable as a "null" type; depth-bounded against hostile nesting.
func openAPISchema(v any, depth int) any {
	if depth > 64 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = openAPISchema(e, depth+1)
		}
		if t, ok := x["type"].(string); ok {
			t = strings.ToLower(t)
			out["type"] = t
			if n, _ := x["nullable"].(bool); n {
				out["type"] = []any{t, "null"}
			}
		}
		delete(out, "nullable")
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = openAPISchema(e, depth+1)
		}
		return out
	}
	return v
}

// responseFormat is the JSON answer a generationConfig asks for, nil when
// it asks for none.
func responseFormat(g *generationConfig) (json.RawMessage, *tr.Error) {
	switch strings.ToLower(g.ResponseMimeType) {
	case "", "text/plain":
		return nil, nil
	case "application/json":
	default:
		return nil, invalid("generationConfig.responseMimeType", "%q cannot be asked of the service; use application/json or text/plain", g.ResponseMimeType)
	}
	schema := g.ResponseJSONSchema
	if len(schema) == 0 || string(schema) == "null" {
		schema = nil
		if len(g.ResponseSchema) > 0 && string(g.ResponseSchema) != "null" {
			var v any
			if err := json.Unmarshal(g.ResponseSchema, &v); err != nil {
				return nil, invalid("generationConfig.responseSchema", "not JSON: %s", shortErr(err))
			}
			schema, _ = json.Marshal(openAPISchema(v, 0))
		}
	}
	if schema == nil {
		return json.RawMessage(`{"type":"json_object"}`), nil
	}
	out, _ := json.Marshal(map[string]any{"type": "json_schema",
		"json_schema": map[string]any{"name": "response", "schema": schema}})
	return out, nil
}

// reasoningEffort is a thinkingConfig as chat's reasoning_effort: a level
// as it is; a budget of tokens by its size (0 none, up to 1024 low, up to
// 8192 medium, more high); -1 (the model decides) as nothing.
func reasoningEffort(t *thinkingConfig) (string, *tr.Error) {
	if t.ThinkingLevel != "" {
		switch l := strings.ToLower(t.ThinkingLevel); l {
		case "minimal", "low", "medium", "high":
			return l, nil
		case "thinking_level_unspecified":
			return "", nil
		}
		return "", invalid("generationConfig.thinkingConfig.thinkingLevel", "%q is not a level; use minimal, low, medium or high", t.ThinkingLevel)
	}
	if t.ThinkingBudget == nil {
		return "", nil
	}
	switch n := *t.ThinkingBudget; {
	case n < 0:
		return "", nil
	case n == 0:
		return "none", nil
	case n <= 1024:
		return "low", nil
	case n <= 8192:
		return "medium", nil
	}
	return "high", nil
}

// shortErr is a decoding error's words, cut to one short line.
func shortErr(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// countTokens estimates a request's tokens without the service (it has no
// such endpoint): one per 4 bytes of the chat request it translates to, as
// the Messages API's count_tokens does. An estimate, not a tokenizer.
func countTokens(req *tr.Request, model string, env tr.Env) tr.Answer {
	body := req.Body
	// countTokens sends {"contents": …} or {"generateContentRequest": {…}}.
	var wrapped struct {
		GenerateContentRequest json.RawMessage `json:"generateContentRequest"`
	}
	if json.Unmarshal(body, &wrapped) == nil && len(wrapped.GenerateContentRequest) > 0 {
		body = wrapped.GenerateContentRequest
	}
	r := *req
	r.Body = body
	creq, _, perr := ParseRequest(&r, env)
	if perr != nil {
		return errorAnswer(perr)
	}
	b, _ := json.Marshal(creq)
	n := (len(b) + 3) / 4
	a := tr.JSON(http.StatusOK, jsonType, fmt.Appendf(nil, "{\"totalTokens\":%d}\n", n))
	a.Model = model
	return a
}
