package standin

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools          []chatTool `json:"tools"`
	PromptCacheKey string     `json:"prompt_cache_key"`
	User           string     `json:"user"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
	CacheControl *cacheControl `json:"cache_control"`
}

type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"` // a string, an array of parts, or null
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
		ExtraContent *extraContent `json:"extra_content"`
	} `json:"tool_calls"`
	ToolCallID   string        `json:"tool_call_id"`
	CacheControl *cacheControl `json:"cache_control"`
	ExtraContent *extraContent `json:"extra_content"`
	requestReasoning
}

// text returns the message's text, joining the text parts of an array.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// answer is what the stand-in "model" says to one request.
type answer struct {
	model     string
	mode      reasoningMode
	reasoning []reasoningPart // the reasoning of each dialect, in the order sent
	// thought is Gemini's thought signature of the first tool call, else of
	// the message (gemini, mixed).
	thought string
	content []string // the content deltas
	tools   []toolCall
	usage   usage
}

type toolCall struct {
	id, name string
	args     []string // the arguments JSON, in deltas
}

type usage struct {
	Prompt     int            `json:"prompt_tokens"`
	Completion int            `json:"completion_tokens"`
	Total      int            `json:"total_tokens"`
	Details    *promptDetails `json:"prompt_tokens_details,omitempty"`
	// LiteLLM's names for the cache counts, beside prompt_tokens_details.
	CacheCreation *int `json:"cache_creation_input_tokens,omitempty"`
	CacheRead     *int `json:"cache_read_input_tokens,omitempty"`
}

// promptDetails is OpenAI's breakdown of prompt_tokens; cache_write_tokens
// is OpenRouter's count of tokens written to the cache.
type promptDetails struct {
	CachedTokens     int  `json:"cached_tokens"`
	CacheWriteTokens *int `json:"cache_write_tokens,omitempty"`
}

// cacheUsage puts the cache counts into usage as the dialect's gateway
// reports them: prompt_tokens counts every prompt token, cached or not.
func cacheUsage(u *usage, use CacheUse, breakpoints bool, dialect string) {
	u.Details = &promptDetails{CachedTokens: use.Read}
	switch {
	case dialect == DialectLiteLLM:
		u.CacheRead, u.CacheCreation = &use.Read, &use.Write
	case breakpoints:
		u.Details.CacheWriteTokens = &use.Write
	}
}

func (a answer) finishReason() string {
	if len(a.tools) > 0 {
		return "tool_calls"
	}
	return "stop"
}

var (
	wordTool = regexp.MustCompile(`(?i)\btools?\b`)
	// snippet is a `backticked` argument in the user's words: a path, a
	// command.
	snippet = regexp.MustCompile("`([^`\n]+)`")
)

// Greeting is the answer to a chat request for model: fixed, so end-to-end
// tests can look for it.
func Greeting(model string) string {
	return "Hello from the gw stand-in (" + model + ")."
}

// maxQuote bounds how much of a tool's result the stand-in quotes back.
const maxQuote = 200

// compose decides the answer. A tool is called only when the request offers
// tools and its last message is the user asking for one, or the user's
// words script a sequence of calls not yet made (see step): coding agents
// offer tools on every request and would loop if every answer called one.
//
// The tool is the first offered one whose name the user's words contain as a
// word of its own, else the first whose name they contain at all, else the
// first offered. Each `backticked` snippet in the user's words makes one
// call, the snippet filling the call's required string arguments (and a
// required "command" array as bash -lc snippet): "Use the Read tool on
// `/tmp/p/a.txt` and `/tmp/p/b.txt`" makes two calls. A snippet
// `name=value`, where name is a parameter of the tool, fills that argument
// instead (\n in value is a newline; JSON for an array or an object), for
// every call of the request. After a tool result, the answer quotes the
// start of the result, so a test can see the agent passed it back. A model
// whose id ends in -thinking streams reasoning first.
func (s *Server) compose(req chatRequest, id int, mode reasoningMode, prompt int) answer {
	a := answer{model: req.Model, mode: mode}
	last := lastSaid(req.Messages)
	text := Greeting(req.Model)
	if result, ok := lastResult(req.Messages); ok {
		text = "Tool result received: " + quote(result) + " " + text
	}
	if ask := asked(req); ask != "" {
		t := req.Tools[0]
		named := func(match func(text, name string) bool) bool {
			for _, c := range req.Tools {
				if c.Function.Name != "" && match(ask, c.Function.Name) {
					t = c
					return true
				}
			}
			return false
		}
		// A tool named as a word of its own first ("Read", not the "Agent" of a path's "TestAgents").
		_ = named(containsWord) || named(strings.Contains)
		params := parameters(t.Function.Parameters)
		args := []string{""}
		var set map[string]any
		if m := snippet.FindAllStringSubmatch(ask, -1); len(m) > 0 {
			args = args[:0]
			for _, sm := range m {
				if name, value, ok := strings.Cut(sm[1], "="); ok {
					if p, ok := params[name]; ok {
						if set == nil {
							set = map[string]any{}
						}
						set[name] = paramValue(p, value)
						continue
					}
				}
				args = append(args, sm[1])
			}
			if len(args) == 0 {
				args = append(args, "")
			}
		}
		for i, arg := range args {
			a.tools = append(a.tools, toolCall{
				id:   fmt.Sprintf("call_standin%06d_%d", id, i),
				name: t.Function.Name,
				args: split(string(sampleArgs(t.Function.Parameters, arg, set)), 8),
			})
		}
		text = "Calling " + t.Function.Name + ". " + text
	}
	said := "The user wrote " + tokensWord(tokens(last.text())) + "; I answer plainly."
	part := func(dialect, text, redactedID string) reasoningPart {
		p := reasoningPart{dialect: dialect, deltas: splitWords(text)}
		if dialect == ReasoningOpenRouter || dialect == ReasoningLiteLLM {
			p.signature = reasoningSignature(text)
			if mode.redacted {
				p.redacted = redactedData(redactedID)
			}
		}
		return p
	}
	switch mode.dialect {
	case ReasoningNone, ReasoningGemini:
	case ReasoningMixed:
		a.reasoning = []reasoningPart{
			part(ReasoningOpenRouter, said, fmt.Sprintf("standin%06d", id)),
			part(ReasoningLiteLLM, "Then I check that the answer fits.", fmt.Sprintf("standin%06d.1", id)),
		}
	default:
		a.reasoning = []reasoningPart{part(mode.dialect, said, fmt.Sprintf("standin%06d", id))}
	}
	if mode.dialect == ReasoningGemini || mode.dialect == ReasoningMixed {
		if len(a.tools) > 0 {
			a.thought = thoughtSignature(a.tools[0].id)
		} else {
			a.thought = thoughtSignature(fmt.Sprintf("message_standin%06d", id))
		}
	}

	if n := s.opts.ContentChunks; n > 0 {
		size := s.opts.ChunkSize
		total := n * size
		full := strings.Repeat(text+" ", total/(len(text)+1)+1)[:total]
		a.content = split(full, size)
	} else {
		a.content = splitWords(text)
	}

	completion := tokens(strings.Join(a.content, ""))
	for _, p := range a.reasoning {
		completion += tokens(p.text())
	}
	for _, t := range a.tools {
		completion += tokens(strings.Join(t.args, "")) + tokens(t.name)
	}
	a.usage = usage{Prompt: prompt, Completion: completion, Total: prompt + completion}
	return a
}

// stepLine is a numbered line of the user's words: "2. Use the Edit tool …".
var stepLine = regexp.MustCompile(`(?m)^[ \t]*\d+[.)][ \t]+(.+)$`)

// steps are the numbered lines of a user's words that ask for a tool: a
// script of calls, one line per request, each made after the result of the
// one before. "1. Use the Read tool on `a.txt`" then "2. Use the Bash tool:
// `wc -l a.txt`" reads the file, then, given its content, runs the command,
// then, given the command's output, answers quoting it.
func steps(text string) []string {
	var out []string
	for _, m := range stepLine.FindAllStringSubmatch(text, -1) {
		if wordTool.MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// asked returns the words that ask for a tool call in answer to req: the
// next step of the last scripted user message, as long as steps remain
// (counted by the assistant messages with tool calls after it); else the
// last message when it is the user naming a tool; else "" (no call).
func asked(req chatRequest) string {
	if len(req.Tools) == 0 {
		return ""
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		script := steps(userWords(m.text()))
		if len(script) == 0 {
			continue
		}
		done := 0
		for _, after := range req.Messages[i+1:] {
			if after.Role == "assistant" && len(after.ToolCalls) > 0 {
				done++
			}
		}
		if done < len(script) {
			return script[done]
		}
		break
	}
	if last := lastSaid(req.Messages); last.Role == "user" && wordTool.MatchString(userWords(last.text())) {
		return userWords(last.text())
	}
	return ""
}

// lastSaid is the last message that is not a system message: a system turn
// after the user's words (an agent's environment or reminder) instructs
// the model, it does not ask it anything.
func lastSaid(msgs []chatMessage) chatMessage {
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role != "system" {
			return msgs[i]
		}
	}
	return msgs[0]
}

// reminder is a block an agent adds to the user's message for the model (Claude Code's and Qwen Code's
// <system-reminder>: the skills, the date, the files open): not the user's words.
var reminder = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>\s*`)

// userWords is a user message's text without the agent's reminders.
func userWords(text string) string { return reminder.ReplaceAllString(text, "") }

// lastResult is the last tool result of the request when nothing but user
// and system messages (an agent's reminders) follows it.
func lastResult(msgs []chatMessage) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case "tool":
			return msgs[i].text(), true
		case "user", "system":
			continue
		}
		break
	}
	return "", false
}

// containsWord: name is in text with no letter, digit or underscore on either side.
func containsWord(text, name string) bool {
	word := func(b byte) bool {
		return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !word(text[start-1])) && (end == len(text) || !word(text[end])) {
			return true
		}
		i = start + 1
	}
}

// quote is the start of a tool's result, on one line.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxQuote {
		s = strings.ToValidUTF8(s[:maxQuote], "") + "…"
	}
	return "«" + s + "»"
}

func tokensWord(n int) string {
	if n == 1 {
		return "1 token"
	}
	return fmt.Sprintf("%d tokens", n)
}

// tokens is a deterministic estimate: one token per 4 bytes.
func tokens(s string) int { return (len(s) + 3) / 4 }

// split cuts s into pieces of n bytes (the last may be shorter).
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// splitWords cuts s before every space, as models stream words.
func splitWords(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s[min(1, len(s)):], ' ')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
}

// sampleArgs fills the required properties of a JSON schema with plain
// values, so an agent's argument validation accepts the call; arg, when not
// empty, fills the string ones (and a "command" array, as bash -lc arg). An
// array of strings or objects gets one element made the same way (Cline's
// read_files takes [{"path": …}]). set gives top-level arguments their
// values, required or not.
func sampleArgs(schema json.RawMessage, arg string, set map[string]any) []byte {
	args := sampleObject(schema, arg)
	for name, v := range set {
		args[name] = v
	}
	return mustJSON(args)
}

// parameters are a JSON schema's top-level properties, by name.
func parameters(schema json.RawMessage) map[string]argSchema {
	var sc argSchema
	_ = json.Unmarshal(schema, &sc)
	return sc.Properties
}

// paramValue is the value of a snippet `name=value` for the parameter p: the
// JSON it spells when p is an array or an object (pi's edit takes
// edits=[{"oldText":…,"newText":…}]), else the string, \n a newline.
func paramValue(p argSchema, value string) any {
	if t := schemaType(p.Type); (t == "array" || t == "object") && json.Valid([]byte(value)) {
		return json.RawMessage(value)
	}
	return strings.ReplaceAll(value, `\n`, "\n")
}

// argSchema is the part of a JSON schema sampleArgs reads.
type argSchema struct {
	Type       any                  `json:"type"`
	Enum       []any                `json:"enum"`
	Items      json.RawMessage      `json:"items"`
	Properties map[string]argSchema `json:"properties"`
	Required   []string             `json:"required"`
}

func sampleObject(schema json.RawMessage, arg string) map[string]any {
	var sc argSchema
	_ = json.Unmarshal(schema, &sc)
	args := map[string]any{}
	req := append([]string(nil), sc.Required...)
	sort.Strings(req)
	for _, name := range req {
		args[name] = sampleValue(name, sc.Properties[name], arg)
	}
	return args
}

func sampleValue(name string, p argSchema, arg string) any {
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	switch schemaType(p.Type) {
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		if arg == "" || len(p.Items) == 0 {
			return []any{}
		}
		var items argSchema
		_ = json.Unmarshal(p.Items, &items)
		switch schemaType(items.Type) {
		case "string":
			if name == "command" {
				return []any{"bash", "-lc", arg}
			}
			return []any{arg}
		case "object":
			return []any{sampleObject(p.Items, arg)}
		}
		return []any{}
	case "object":
		return map[string]any{}
	}
	if arg != "" {
		return arg
	}
	return "gw stand-in"
}

// schemaType is a schema's type, the first of a list of types.
func schemaType(t any) string {
	if list, ok := t.([]any); ok && len(list) > 0 {
		t = list[0]
	}
	s, _ := t.(string)
	return s
}

func (q *request) chat(acct Account) {
	var req chatRequest
	err := q.bodyErr
	if err == nil {
		err = json.Unmarshal(q.body, &req)
	}
	if err != nil {
		q.fail(apiError{kind: errBadRequest, status: http.StatusBadRequest,
			detail: "We could not parse the JSON body of your request: " + err.Error()})
		return
	}
	q.s.update(q.idx, func(sn *Seen) { sn.Model, sn.Stream = req.Model, req.Stream })
	switch {
	case req.Model == "":
		q.fail(apiError{kind: errBadRequest, status: http.StatusBadRequest, param: "model",
			detail: "you must provide a model parameter"})
		return
	case len(req.Messages) == 0:
		q.fail(apiError{kind: errBadRequest, status: http.StatusBadRequest, param: "messages",
			detail: "'messages' must contain at least one message"})
		return
	}
	if !q.checkModel(acct, req.Model) {
		return
	}
	segs, bps, err := segments(req)
	if err != nil {
		q.fail(apiError{kind: errBadRequest, status: http.StatusBadRequest, detail: err.Error()})
		return
	}
	hdr := q.r.Header.Get(ReasoningHeader)
	mode, err := q.s.reasoningFor(req.Model, hdr)
	if err != nil {
		source := "the stand-in's reasoning option"
		if hdr != "" {
			source = ReasoningHeader
		}
		q.fail(apiError{kind: errBadRequest, status: http.StatusBadRequest, detail: source + ": " + err.Error()})
		return
	}
	received, err := checkReasoning(req, mode)
	q.s.update(q.idx, func(sn *Seen) {
		sn.Breakpoints, sn.PromptCacheKey, sn.User = bps, req.PromptCacheKey, req.User
		sn.Reasoning, sn.Received = mode.dialect, received
	})
	if err != nil {
		q.fail(apiError{kind: errBadRequest, status: http.StatusBadRequest, detail: err.Error()})
		return
	}
	prompt := promptTokens(segs)
	limit := q.s.opts.ContextTokens
	overflow := q.flt.Kind == FaultOverflow && q.flt.applies(q.r.URL.Path)
	tooLong := apiError{kind: errContextLength, status: http.StatusBadRequest, tokens: prompt, limit: limit}
	if overflow && limit <= 0 || overflow && prompt <= limit {
		// The fault makes any prompt too long for a window of Claude's size.
		tooLong.limit = cmp.Or(limit, defaultWindow)
		tooLong.tokens = max(prompt, tooLong.limit+1)
	}
	if limit > 0 && prompt > limit || overflow && (!req.Stream || q.flt.After == 0) {
		q.fail(tooLong)
		return
	}
	if c := q.s.opts.CostCents; c > 0 {
		q.s.mu.Lock()
		for i := range q.s.accounts {
			if q.s.accounts[i].Key == acct.Key {
				q.s.accounts[i].BalanceCents -= c
			}
		}
		q.s.mu.Unlock()
	}

	a := q.s.compose(req, q.id, mode, prompt)
	use := q.s.cache.Use(acct.Key, req.Model, req.PromptCacheKey, segs)
	cacheUsage(&a.usage, use, len(bps) > 0, q.s.opts.Dialect)
	q.s.update(q.idx, func(sn *Seen) {
		sn.PromptTokens, sn.CachedTokens, sn.CacheWriteTokens = use.Prompt, use.Read, use.Write
		sn.Signed = a.signed()
		sn.Sent = nil
		for _, r := range sn.Signed {
			sn.Sent = append(sn.Sent, r.Value)
		}
	})
	created := time.Now().Unix()
	chatID := fmt.Sprintf("chatcmpl-standin%08d", q.id)
	reset := q.flt.Kind == FaultReset && q.flt.applies(q.r.URL.Path)
	if !req.Stream {
		if reset {
			q.reset()
			return
		}
		q.writeJSON(http.StatusOK, completion(chatID, created, a))
		return
	}
	include := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	events := chatEvents(chatID, created, a, include)
	if overflow {
		tooLong.reqID = fmt.Sprintf("standin%08d", q.id)
		events = append(events[:min(q.flt.After, len(events)-1):min(q.flt.After, len(events)-1)], errorEvent(q.s.opts.Dialect, tooLong))
	}
	q.stream(events, reset)
}

func completion(id string, created int64, a answer) map[string]any {
	msg := map[string]any{"role": "assistant", "content": strings.Join(a.content, ""), "refusal": nil}
	a.wholeReasoning(msg)
	if len(a.tools) > 0 {
		var calls []any
		for i, t := range a.tools {
			call := map[string]any{
				"id": t.id, "type": "function",
				"function": map[string]any{"name": t.name, "arguments": strings.Join(t.args, "")},
			}
			if i == 0 && a.thought != "" {
				call["extra_content"] = googleExtra(a.thought)
			}
			calls = append(calls, call)
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": id, "object": "chat.completion", "created": created, "model": a.model,
		"system_fingerprint": "fp_standin",
		"choices": []any{map[string]any{
			"index": 0, "message": msg, "logprobs": nil, "finish_reason": a.finishReason(),
		}},
		"usage": a.usage,
	}
}

// OpenAI's chunk shapes, as structs so fields keep OpenAI's order and
// thousands of events stay cheap to render.
type streamChunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             *usage        `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int       `json:"index"`
	Delta        delta     `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type delta struct {
	Role             string            `json:"role,omitempty"`
	Content          *string           `json:"content,omitempty"`
	ReasoningContent *string           `json:"reasoning_content,omitempty"`
	Reasoning        *string           `json:"reasoning,omitempty"`
	ReasoningDetails []reasoningDetail `json:"reasoning_details,omitempty"`
	ThinkingBlocks   []thinkingBlock   `json:"thinking_blocks,omitempty"`
	Refusal          *string           `json:"refusal,omitempty"`
	ToolCalls        []toolCallDelta   `json:"tool_calls,omitempty"`
	ExtraContent     *extraContent     `json:"extra_content,omitempty"`
}

type toolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	ExtraContent *extraContent `json:"extra_content,omitempty"`
}

// chatEvents returns the data of every SSE event.
func chatEvents(id string, created int64, a answer, includeUsage bool) [][]byte {
	chunk := func(d delta, finish *string) []byte {
		return mustJSON(streamChunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: a.model,
			SystemFingerprint: "fp_standin",
			Choices:           []chunkChoice{{Delta: d, FinishReason: finish}},
		})
	}
	empty := ""
	events := [][]byte{chunk(delta{Role: "assistant", Content: &empty}, nil)}
	for _, d := range a.reasoningDeltas() {
		events = append(events, chunk(d, nil))
	}
	for i, c := range a.content {
		d := delta{Content: &c}
		if i == 0 && len(a.tools) == 0 && a.thought != "" {
			d.ExtraContent = googleExtra(a.thought)
		}
		events = append(events, chunk(d, nil))
	}
	for i, t := range a.tools {
		first := toolCallDelta{Index: i, ID: t.id, Type: "function"}
		first.Function.Name = t.name
		if i == 0 && a.thought != "" {
			first.ExtraContent = googleExtra(a.thought)
		}
		events = append(events, chunk(delta{ToolCalls: []toolCallDelta{first}}, nil))
		for _, piece := range t.args {
			d := toolCallDelta{Index: i}
			d.Function.Arguments = piece
			events = append(events, chunk(delta{ToolCalls: []toolCallDelta{d}}, nil))
		}
	}
	finish := a.finishReason()
	events = append(events, chunk(delta{}, &finish))
	if includeUsage {
		u := a.usage
		events = append(events, mustJSON(streamChunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: a.model,
			SystemFingerprint: "fp_standin", Choices: []chunkChoice{}, Usage: &u,
		}))
	}
	return append(events, []byte("[DONE]"))
}

// defaultWindow is the context window the overflow fault reports when
// Options.ContextTokens sets none.
const defaultWindow = 200_000

// errorEvent is the data of an SSE event that reports e mid-stream: the
// dialect's error body (OpenAI's for the flat and text dialects).
func errorEvent(dialect string, e apiError) []byte {
	if dialect == DialectFlat || dialect == DialectText {
		dialect = DialectOpenAI
	}
	_, body := renderError(dialect, e)
	return body
}

// stream writes the events, each flushed as written, applying the fault.
func (q *request) stream(events [][]byte, reset bool) {
	h := q.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	q.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(q.w)
	if rc.Flush() != nil {
		return
	}
	slow := q.flt.Kind == FaultSlowStream && q.flt.applies(q.r.URL.Path)
	for n, data := range events {
		if reset && n == q.flt.After {
			q.reset()
			return
		}
		if slow && n > 0 && !q.sleep(q.flt.delay()) {
			return
		}
		if hook := q.s.opts.BeforeEvent; hook != nil {
			hook(q.ctx, n)
		}
		if q.ctx.Err() != nil {
			return
		}
		if _, err := fmt.Fprintf(q.w, "data: %s\n\n", data); err != nil {
			q.gone = true
			return
		}
		if rc.Flush() != nil {
			q.gone = true
			return
		}
		q.s.update(q.idx, func(sn *Seen) { sn.Events = n + 1 })
	}
	q.w.complete = true
}
