package anthropic

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	tr "github.com/modelgateway/gw/protocol/translate"
	"net/http"
	"regexp"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/protocol/chat"
)

// Meta is what the answer's translation needs to know of the request.
type Meta struct {
	Model  string // the client's model id, exactly as sent (and sent on)
	Stream bool
	// ToolNames maps a function name the service saw back to the client's
	// tool name, for the tools whose names chat completions does not allow
	// (only those are listed).
	ToolNames map[string]string
	// StopSequences are the request's stop_sequences.
	StopSequences []string
	// Dropped names what the request asked for that the service cannot be
	// given (Anthropic's own server tools, top_k), for the request log.
	Dropped []string
	// InputTokens estimates the prompt's tokens (chat.EstimateTokens of
	// the translated request): message_start carries it, before the
	// service has counted.
	InputTokens int
}

// toolName maps a chat function name back to the client's tool name.
func (m Meta) toolName(name string) string {
	if n, ok := m.ToolNames[name]; ok {
		return n
	}
	return name
}

// billingHeader starts the system block Claude Code adds for Anthropic's
// billing: not words for the model, and it changes with every request, so
// forwarding it would defeat the service's prompt caching.
const billingHeader = "x-anthropic-billing-header:"

// ParseRequest translates a Messages API request body into one chat
// completions request. A request it cannot translate faithfully is a 400
// naming the field, never a silently shortened conversation.
//
// What changes on the way, and why:
//   - The system prompt (top-level, and role "system" messages before the
//     first user turn) becomes one leading system message. A system turn
//     said later (Claude Code's "# Environment" turn after the first user
//     message, reminders) stays where it was, a system message in place:
//     moving it to the front would change the start of the prompt with
//     every new one, and so miss the service's prompt cache for the whole
//     conversation. A service that takes a system message only first
//     (chat.RefusedField) is sent the request again with them joined to
//     the leading one (chat.Without).
//   - Thinking blocks of earlier answers go back to the service in the
//     dialect they came in, on the same assistant message (thinking.go);
//     those of a user turn are dropped.
//   - A tool_result becomes a tool message; images in it follow in a user
//     message, since tool messages carry only text. An error result's text
//     starts with "Error: ".
//   - Tools marked defer_loading are offered once a tool_reference in the
//     conversation has loaded them, as Anthropic's API does.
//   - thinking / output_config.effort become reasoning_effort, for the
//     catalogue's reasoning models only (others reject the field): the
//     effort alone too, and adaptive thinking without one is high
//     (reasoningEffort).
//   - A tool's strict stays on its function; structured output
//     (output_config.format, json_schema) becomes response_format
//     json_schema, strict.
//   - cache_control breakpoints stay where they were, as OpenRouter and
//     LiteLLM take them over chat completions: on the content part the
//     block became (the system message is then a list of text parts), on
//     the function tool, on an assistant's tool call. A tool_result's
//     breakpoint goes on its tool message's text part, or on the last of
//     its attachments when it has images. metadata.user_id becomes user.
func ParseRequest(req *tr.Request, _ tr.Env) (*chat.Request, Meta, *tr.Error) {
	body := req.Body
	var r request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, Meta{}, jsonError(body, err)
	}
	meta := Meta{Model: r.Model, Stream: r.Stream, StopSequences: r.StopSequences}
	switch {
	case r.Model == "":
		return nil, meta, invalid("model", "is required; %s", render.Text(remedy.Remedy{Do: remedy.SetModel}, render.Context{Where: render.Serve}))
	case len(r.Messages) == 0:
		return nil, meta, invalid("messages", "is empty; send at least one user message")
	}
	t := &translator{meta: &meta, names: map[string]string{}}
	out := &chat.Request{
		Model:       r.Model,
		Stream:      r.Stream,
		MaxTokens:   r.MaxTokens,
		Temperature: r.Temperature,
		TopP:        r.TopP,
		Stop:        r.StopSequences,
	}
	if r.Stream {
		out.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}
	if r.TopK != nil {
		meta.Dropped = append(meta.Dropped, "top_k")
	}
	if r.Metadata != nil {
		out.User = r.Metadata.UserID
	}

	var system systemPrompt
	if err := t.system(&system, r.System, "system"); err != nil {
		return nil, meta, err
	}
	var convo []chat.Message
	for i, m := range r.Messages {
		field := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system":
			if len(convo) == 0 {
				// Before the conversation: part of the system prompt.
				if err := t.system(&system, m.Content, field+".content"); err != nil {
					return nil, meta, err
				}
				continue
			}
			// Said in the middle of the conversation: it stays there, so
			// that the prompt before it, which the service may have
			// cached, stays the same.
			var said systemPrompt
			if err := t.system(&said, m.Content, field+".content"); err != nil {
				return nil, meta, err
			}
			if c := said.content(); c != nil {
				convo = append(convo, chat.Message{Role: "system", Content: c})
			}
		case "user":
			msgs, err := t.user(m.Content, field+".content")
			if err != nil {
				return nil, meta, err
			}
			convo = append(convo, msgs...)
		case "assistant":
			msg, err := t.assistant(m.Content, field+".content")
			if err != nil {
				return nil, meta, err
			}
			if msg != nil {
				convo = append(convo, *msg)
			}
		case "":
			return nil, meta, invalid(field+".role", "is missing; use user or assistant")
		default:
			return nil, meta, invalid(field+".role", "%q is not a role of the Messages API; use user or assistant", m.Role)
		}
	}
	if c := system.content(); c != nil {
		out.Messages = append(out.Messages, chat.Message{Role: "system", Content: c})
	}
	out.Messages = append(out.Messages, convo...)
	if cc := t.cache(r.CacheControl, "request"); cc != nil {
		lastBreakpoint(out.Messages, cc)
	}

	tools, err := t.tools(r.Tools)
	if err != nil {
		return nil, meta, err
	}
	if err := t.serverToolOnly(r); err != nil {
		return nil, meta, err
	}
	out.Tools = tools
	if r.ToolChoice != nil {
		if err := t.toolChoice(out, r.ToolChoice); err != nil {
			return nil, meta, err
		}
	}
	out.ReasoningEffort = reasoningEffort(r)
	if err := responseFormat(r, out); err != nil {
		return nil, meta, err
	}
	for orig, mapped := range t.names {
		if orig != mapped {
			if meta.ToolNames == nil {
				meta.ToolNames = map[string]string{}
			}
			meta.ToolNames[mapped] = orig
		}
	}
	meta.InputTokens = chat.EstimateTokens(out)
	return out, meta, nil
}

// jsonError names where a body stops being the JSON the API expects.
func jsonError(body []byte, err error) *tr.Error {
	field, msg := chat.BadBody(body, err, "Messages API")
	return invalid(field, "%s", msg)
}

type translator struct {
	meta   *Meta
	names  map[string]string // client tool name → chat function name
	used   map[string]bool   // chat function names given out
	loaded map[string]bool   // deferred tools a tool_reference loaded
}

// systemPrompt collects the system prompt: the top-level one and the
// system messages of the conversation, in order.
type systemPrompt struct {
	text   string      // all of it, the pieces joined by blank lines
	parts  []chat.Part // its text blocks, with their cache breakpoints
	cached bool        // a block has a breakpoint
}

// content is the system message's content: the text, or the parts when a
// block has a cache breakpoint (which only a part can carry); nil when
// there is no system prompt.
func (p *systemPrompt) content() any {
	switch {
	case p.cached && len(p.parts) > 0:
		return p.parts
	case p.text != "":
		return p.text
	}
	return nil
}

// system reads a system prompt, a string or text blocks, into p. Claude
// Code's billing block is left out (see billingHeader).
func (t *translator) system(p *systemPrompt, raw json.RawMessage, field string) *tr.Error {
	if isNull(raw) {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		p.text = joinNonEmpty(p.text, s, "\n\n")
		if s != "" {
			p.parts = append(p.parts, chat.Part{Type: "text", Text: s})
		}
		return nil
	}
	blocks, err := blocksOf(raw, field)
	if err != nil {
		return err
	}
	var texts []string
	for i, b := range blocks {
		bf := fmt.Sprintf("%s[%d]", field, i)
		if b.Type != "text" {
			return invalid(bf+".type", "%q: a system prompt holds text blocks only", b.Type)
		}
		if strings.HasPrefix(b.Text, billingHeader) {
			continue
		}
		texts = append(texts, b.Text)
		cc := t.cache(b.CacheControl, bf)
		p.cached = p.cached || cc != nil
		switch {
		case b.Text != "":
			p.parts = append(p.parts, chat.Part{Type: "text", Text: b.Text, CacheControl: cc})
		case cc != nil && len(p.parts) > 0 && p.parts[len(p.parts)-1].CacheControl == nil:
			// An empty part is refused by some services; its breakpoint
			// marks the same prefix on the part before.
			p.parts[len(p.parts)-1].CacheControl = cc
		}
	}
	p.text = joinNonEmpty(p.text, strings.Join(texts, "\n\n"), "\n\n")
	return nil
}

// lastBreakpoint places the breakpoint of automatic caching (a top-level
// cache_control) where Anthropic does: on the last block of the
// conversation, here the last part or tool call of the last message.
func lastBreakpoint(msgs []chat.Message, cc *chat.CacheControl) {
	if len(msgs) == 0 {
		return
	}
	m := &msgs[len(msgs)-1]
	switch c := m.Content.(type) {
	case []chat.Part:
		if len(c) > 0 && c[len(c)-1].CacheControl == nil {
			c[len(c)-1].CacheControl = cc
		}
		return
	case string:
		if len(m.ToolCalls) == 0 && c != "" {
			m.Content = []chat.Part{{Type: "text", Text: c, CacheControl: cc}}
			return
		}
	}
	if n := len(m.ToolCalls); n > 0 && m.ToolCalls[n-1].CacheControl == nil {
		m.ToolCalls[n-1].CacheControl = cc
	}
}

// cache translates a block's or a tool's cache_control: type ephemeral, ttl
// 5m or 1h or none. Anything else is left out and named in Meta.Dropped: a
// breakpoint is a hint, and the request is whole without it.
func (t *translator) cache(c *cacheControl, field string) *chat.CacheControl {
	if c == nil {
		return nil
	}
	if c.Type != "ephemeral" {
		t.meta.Dropped = append(t.meta.Dropped, fmt.Sprintf("%s.cache_control (type %q)", field, short(c.Type)))
		return nil
	}
	out := &chat.CacheControl{Type: c.Type}
	switch c.TTL {
	case "", "5m", "1h":
		out.TTL = c.TTL
	default:
		t.meta.Dropped = append(t.meta.Dropped, fmt.Sprintf("%s.cache_control.ttl (%q)", field, short(c.TTL)))
	}
	return out
}

// short is a client's value as a log line may quote it: at most 32 bytes.
func short(s string) string {
	if len(s) <= 32 {
		return s
	}
	return strings.ToValidUTF8(s[:32], "") + "…"
}

func blocksOf(raw json.RawMessage, field string) ([]block, *tr.Error) {
	var blocks []block
	if err := json.Unmarshal(raw, &blocks); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, invalid(chat.FieldPath(field, te.Field), "%s", chat.BadField(te, "Messages API"))
		}
		return nil, invalid(field, "must be a string or an array of content blocks")
	}
	return blocks, nil
}

func isNull(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) == 0 || string(s) == "null"
}

// user translates a user turn: tool results become tool messages (first,
// as chat completions wants them right after the assistant's calls), the
// rest one user message.
func (t *translator) user(raw json.RawMessage, field string) ([]chat.Message, *tr.Error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []chat.Message{{Role: "user", Content: s}}, nil
	}
	if isNull(raw) {
		return nil, invalid(field, "is missing; send a string or content blocks")
	}
	blocks, err := blocksOf(raw, field)
	if err != nil {
		return nil, err
	}
	var tools []chat.Message
	var parts []chat.Part
	var toolImages []chat.Part
	for i, b := range blocks {
		bf := fmt.Sprintf("%s[%d]", field, i)
		switch b.Type {
		case "tool_result":
			msg, imgs, err := t.toolResult(b, bf)
			if err != nil {
				return nil, err
			}
			tools = append(tools, msg)
			toolImages = append(toolImages, imgs...)
		case "thinking", "redacted_thinking":
			// Dropped, as in an assistant turn.
		default:
			p, err := t.part(b, bf)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p...)
		}
	}
	out := tools
	if len(toolImages) > 0 {
		parts = append(toolImages, parts...)
	}
	if len(parts) > 0 || len(tools) == 0 {
		out = append(out, chat.Message{Role: "user", Content: content(parts)})
	}
	return out, nil
}

// content is a message's content: a string when it is all text without a
// cache breakpoint (what every chat backend accepts), else the parts.
func content(parts []chat.Part) any {
	var texts []string
	for _, p := range parts {
		if p.Type != "text" || p.CacheControl != nil {
			return parts
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// part translates a content block of a user turn, or of a tool result,
// with its cache breakpoint on the (last) part it became.
func (t *translator) part(b block, field string) ([]chat.Part, *tr.Error) {
	ps, err := t.partOf(b, field)
	if err == nil && len(ps) > 0 {
		ps[len(ps)-1].CacheControl = t.cache(b.CacheControl, field)
	}
	return ps, err
}

func (t *translator) partOf(b block, field string) ([]chat.Part, *tr.Error) {
	switch b.Type {
	case "text":
		return []chat.Part{{Type: "text", Text: b.Text}}, nil
	case "image":
		u, err := imageURL(b.Source, field+".source")
		if err != nil {
			return nil, err
		}
		return []chat.Part{{Type: "image_url", ImageURL: &chat.ImageURL{URL: u}}}, nil
	case "document":
		return document(b, field)
	case "tool_use":
		return nil, invalid(field+".type", "tool_use belongs in an assistant turn, not a user turn")
	case "":
		return nil, invalid(field+".type", "is missing")
	}
	return nil, invalid(field+".type", "%q is a content block gw serve cannot pass on to the service's chat completions; "+
		"it passes text, image, document (PDF or plain text), tool_use, tool_result and thinking blocks", b.Type)
}

func imageURL(s *source, field string) (string, *tr.Error) {
	if s == nil {
		return "", invalid(field, "is missing; an image needs a base64 or url source")
	}
	switch s.Type {
	case "base64":
		if s.MediaType == "" || s.Data == "" {
			return "", invalid(field, "a base64 image needs media_type and data")
		}
		return "data:" + s.MediaType + ";base64," + s.Data, nil
	case "url":
		if s.URL == "" {
			return "", invalid(field+".url", "is empty")
		}
		return s.URL, nil
	}
	return "", invalid(field+".type", "%q: gw serve passes images as base64 or url sources only (a file id of Anthropic's Files API means nothing to the service)", s.Type)
}

// document passes a PDF as a chat file part and a plain-text document as
// text.
func document(b block, field string) ([]chat.Part, *tr.Error) {
	s := b.Source
	if s == nil {
		return nil, invalid(field+".source", "is missing")
	}
	switch {
	case s.Type == "base64" && s.MediaType == "application/pdf":
		name := b.Title
		if name == "" {
			name = "document.pdf"
		}
		return []chat.Part{{Type: "file", File: &chat.File{Filename: name, FileData: "data:application/pdf;base64," + s.Data}}}, nil
	case s.Type == "text":
		text := s.Data
		if b.Title != "" {
			text = b.Title + "\n\n" + text
		}
		return []chat.Part{{Type: "text", Text: text}}, nil
	}
	return nil, invalid(field+".source", "a %s document of type %q cannot be passed on; gw serve passes base64 PDFs and text documents", orNone(s.MediaType), s.Type)
}

func orNone(s string) string {
	if s == "" {
		return "(no media_type)"
	}
	return s
}

// toolResult translates a tool_result into a tool message, and the images
// in it into parts for the user message that follows.
func (t *translator) toolResult(b block, field string) (chat.Message, []chat.Part, *tr.Error) {
	if b.ToolUseID == "" {
		return chat.Message{}, nil, invalid(field+".tool_use_id", "is missing")
	}
	var texts []string
	var images []chat.Part
	outer := t.cache(b.CacheControl, field)
	cc := outer
	if !isNull(b.Content) {
		var s string
		if json.Unmarshal(b.Content, &s) == nil {
			texts = append(texts, s)
		} else {
			blocks, err := blocksOf(b.Content, field+".content")
			if err != nil {
				return chat.Message{}, nil, err
			}
			for i, c := range blocks {
				cf := fmt.Sprintf("%s.content[%d]", field, i)
				switch c.Type {
				case "tool_reference":
					if c.ToolName == "" {
						return chat.Message{}, nil, invalid(cf+".tool_name", "is missing")
					}
					if t.loaded == nil {
						t.loaded = map[string]bool{}
					}
					t.loaded[c.ToolName] = true
					texts = append(texts, "Tool "+t.functionName(c.ToolName)+" is loaded and can be called.")
					continue
				}
				ps, err := t.part(c, cf)
				if err != nil {
					return chat.Message{}, nil, err
				}
				for _, p := range ps {
					if p.Type == "text" {
						texts = append(texts, p.Text)
						if cc == nil {
							cc = p.CacheControl // the result's text is one part
						}
						continue
					}
					images = append(images, p)
				}
			}
		}
	}
	text := strings.Join(texts, "\n")
	if len(images) > 0 {
		text = joinNonEmpty(text, fmt.Sprintf("(the result's %s %s in the next message)", tr.Plural(len(images), "attachment"), isAre(len(images))), "\n")
		images = append([]chat.Part{{Type: "text", Text: "Attachments of the result of tool call " + b.ToolUseID + ":"}}, images...)
	}
	if b.IsError {
		text = "Error: " + text
	}
	id, _, _ := chat.SplitToolCallID(b.ToolUseID)
	msg := chat.Message{Role: "tool", ToolCallID: id, Content: text}
	switch {
	case outer != nil && len(images) > 0:
		// The result ends with its attachments, in the user message after.
		images[len(images)-1].CacheControl = cc
	case cc != nil:
		msg.Content = []chat.Part{{Type: "text", Text: text, CacheControl: cc}}
	}
	return msg, images, nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// assistant translates an assistant turn: text into content, tool_use into
// tool calls, thinking into the reasoning of the dialect it came in. A turn
// with nothing left is nil.
func (t *translator) assistant(raw json.RawMessage, field string) (*chat.Message, *tr.Error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &chat.Message{Role: "assistant", Content: s}, nil
	}
	if isNull(raw) {
		return nil, invalid(field, "is missing; send a string or content blocks")
	}
	blocks, err := blocksOf(raw, field)
	if err != nil {
		return nil, err
	}
	msg := chat.Message{Role: "assistant"}
	var texts []chat.Part
	for i, b := range blocks {
		bf := fmt.Sprintf("%s[%d]", field, i)
		switch b.Type {
		case "text":
			texts = append(texts, chat.Part{Type: "text", Text: b.Text, CacheControl: t.cache(b.CacheControl, bf)})
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return nil, invalid(bf, "a tool_use block needs an id and a name")
			}
			id, extra := chat.ToolCallBack(b.ID, bf+".id", &t.meta.Dropped)
			args := "{}"
			if !isNull(b.Input) {
				var buf bytes.Buffer
				if err := json.Compact(&buf, b.Input); err != nil {
					return nil, invalid(bf+".input", "is not valid JSON")
				}
				args = buf.String()
			}
			msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{
				ID: id, Type: "function",
				Function:     chat.FunctionCall{Name: t.functionName(b.Name), Arguments: args},
				CacheControl: t.cache(b.CacheControl, bf),
				ExtraContent: extra,
			})
		case "thinking", "redacted_thinking":
			t.thinkingBack(b, bf, &msg)
		case "":
			return nil, invalid(bf+".type", "is missing")
		default:
			return nil, invalid(bf+".type", "%q cannot be part of an assistant turn sent through gw serve; it passes text, tool_use and thinking blocks there", b.Type)
		}
	}
	msg.SettleReasoning()
	if len(texts) == 0 && len(msg.ToolCalls) == 0 {
		// Reasoning alone (an answer cut off) is no message a service takes.
		return nil, nil
	}
	if len(texts) > 0 {
		msg.Content = content(texts)
	}
	return &msg, nil
}

// validName is what chat completions allows as a function name.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// functionName is the chat function name of a client's tool name: itself
// when allowed, else a sanitised name, unique, that Meta maps back.
func (t *translator) functionName(name string) string {
	if n, ok := t.names[name]; ok {
		return n
	}
	if t.used == nil {
		t.used = map[string]bool{}
	}
	n := name
	if !validName.MatchString(name) {
		n = strings.Map(func(r rune) rune {
			if r < 128 && (r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return r
			}
			return '_'
		}, name)
		sum := sha256.Sum256([]byte(name))
		suffix := "_" + hex.EncodeToString(sum[:4])
		if len(n) > 64-len(suffix) {
			n = n[:64-len(suffix)]
		}
		n += suffix
	}
	for i, base := 2, n; t.used[n]; i++ {
		n = fmt.Sprintf("%s_%d", base, i) // two names that sanitise alike
	}
	t.used[n] = true
	t.names[name] = n
	return n
}

// tools translates the client's tools into functions. Anthropic's own
// tools (web search, code execution…: a type other than custom) run on
// Anthropic's servers; the service has none of them, so they are left out
// and named in Meta.Dropped.
func (t *translator) tools(in []tool) ([]chat.Tool, *tr.Error) {
	var out []chat.Tool
	for i, tl := range in {
		field := fmt.Sprintf("tools[%d]", i)
		cc := t.cache(tl.CacheControl, field)
		if cc != nil && len(out) > 0 && (tl.Type != "" && tl.Type != "custom" || tl.DeferLoading && !t.loaded[tl.Name]) {
			// A tool left out keeps its breakpoint: the tools before it
			// are the same prefix.
			out[len(out)-1].CacheControl = cc
		}
		if tl.Type != "" && tl.Type != "custom" {
			t.meta.Dropped = append(t.meta.Dropped, "tool "+tl.Name+" ("+tl.Type+")")
			continue
		}
		if tl.Name == "" {
			return nil, invalid(field+".name", "is missing")
		}
		if tl.DeferLoading && !t.loaded[tl.Name] {
			continue
		}
		params := tl.InputSchema
		if isNull(params) {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		} else if !bytes.HasPrefix(bytes.TrimSpace(params), []byte("{")) {
			return nil, invalid(field+".input_schema", "must be a JSON schema object")
		}
		out = append(out, chat.Tool{Type: "function", Function: chat.Function{
			Name: t.functionName(tl.Name), Description: tl.Description, Parameters: params, Strict: tl.Strict,
		}, CacheControl: cc})
	}
	return out, nil
}

// serverToolOnly refuses a request that wants one of Anthropic's server
// tools and nothing else: tool_choice forces it, or it is the only tool.
// Claude Code's WebSearch is such a request (web_search forced); answered
// without the tool, the model would answer as if it had searched and
// Claude Code would report "Did 0 searches". The error's words reach the
// model as the tool's result, and the user with it.
func (t *translator) serverToolOnly(r request) *tr.Error {
	custom, server := 0, -1
	for i, tl := range r.Tools {
		if tl.Type == "" || tl.Type == "custom" {
			custom++
		} else if server < 0 || r.ToolChoice != nil && r.ToolChoice.Type == "tool" && r.ToolChoice.Name == tl.Name {
			server = i
		}
	}
	if server < 0 {
		return nil
	}
	tl := r.Tools[server]
	forced := r.ToolChoice != nil && (r.ToolChoice.Type == "tool" && r.ToolChoice.Name == tl.Name || r.ToolChoice.Type == "any" && custom == 0)
	if !forced && custom > 0 {
		return nil
	}
	if strings.HasPrefix(tl.Type, "web_search") {
		// The words first, without the field: they are what the model
		// and the user read.
		return &tr.Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Message: fmt.Sprintf(
			"Web search is not available through this service: the model service behind gw serve has no web search "+
				"(tools[%d], %s, runs on Anthropic's servers), so no search was made. Answer from what you know, or fetch "+
				"a page whose address you know, and tell the user that web search does not work here.", server, short(tl.Type))}
	}
	return invalid(fmt.Sprintf("tools[%d]", server), "the tool %s (%s) is not available through this service: it runs on Anthropic's servers, which the model service behind gw serve does not have", short(tl.Name), short(tl.Type))
}

func (t *translator) toolChoice(out *chat.Request, c *toolChoice) *tr.Error {
	switch c.Type {
	case "auto", "":
		if len(out.Tools) > 0 {
			out.ToolChoice = "auto"
		}
	case "any":
		out.ToolChoice = "required"
	case "none":
		out.ToolChoice = "none"
	case "tool":
		if c.Name == "" {
			return invalid("tool_choice.name", "is missing; name the tool to call")
		}
		out.ToolChoice = chat.ForceFunction(t.functionName(c.Name))
	default:
		return invalid("tool_choice.type", "%q is not one of auto, any, tool, none", c.Type)
	}
	if c.DisableParallelToolUse && len(out.Tools) > 0 && c.Type != "none" {
		no := false
		out.ParallelToolCalls = &no
	}
	return nil
}

// reasoningEffort maps Anthropic's thinking settings to reasoning_effort,
// for the catalogue's reasoning models only: other models reject the field,
// and a model the catalogue does not know gets none rather than a refusal.
// A thinking budget gives the effort it buys; otherwise output_config.effort
// gives it (with adaptive thinking or without a thinking block, as Claude
// Code sends it to models that think on their own), through chat.Effort;
// adaptive thinking without an effort is high, Anthropic's default.
// Thinking disabled is none.
func reasoningEffort(r request) string {
	e, ok := api.LookupModel(r.Model)
	if !ok || !e.Reasoning {
		return ""
	}
	effort := ""
	if r.OutputConfig != nil {
		effort = chat.Effort(r.OutputConfig.Effort)
	}
	if r.Thinking == nil {
		return effort
	}
	switch r.Thinking.Type {
	case "enabled":
		switch b := r.Thinking.BudgetTokens; {
		case b <= 0:
		case b < 4096:
			return "low"
		case b < 16384:
			return "medium"
		default:
			return "high"
		}
		return effort
	case "adaptive":
		if effort == "" {
			return "high"
		}
		return effort
	}
	return ""
}

// responseFormat carries structured output (output_config.format, or the
// beta's output_format) as a json_schema response_format, strict as
// Anthropic's is: the answer is JSON matching the schema.
func responseFormat(r request, out *chat.Request) *tr.Error {
	f, field := r.OutputFormat, "output_format"
	if r.OutputConfig != nil && r.OutputConfig.Format != nil {
		f, field = r.OutputConfig.Format, "output_config.format"
	}
	if f == nil {
		return nil
	}
	if f.Type != "json_schema" {
		return invalid(field+".type", "%q is not a format of the Messages API; use json_schema", short(f.Type))
	}
	if !bytes.HasPrefix(bytes.TrimSpace(f.Schema), []byte("{")) {
		return invalid(field+".schema", "must be a JSON schema object")
	}
	type jsonSchema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	}
	b, err := json.Marshal(struct {
		Type       string     `json:"type"`
		JSONSchema jsonSchema `json:"json_schema"`
	}{"json_schema", jsonSchema{"response", f.Schema, true}})
	if err != nil {
		return invalid(field+".schema", "is not valid JSON")
	}
	out.ResponseFormat = b
	return nil
}

func joinNonEmpty(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}
