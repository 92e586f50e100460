package responses

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate"
	"regexp"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/protocol/chat"
)

// Meta is what the answer needs to know about the request it answers.
type Meta struct {
	Model      string // the model id as the client sent it
	Stream     bool
	ResponseID string // resp_…; item ids are derived from it
	Created    int64  // created_at, Unix seconds

	// DroppedTools names the hosted tools of the request (web_search…) that
	// the service cannot run and that were therefore not offered to the
	// model, for the request log.
	DroppedTools []string
	// InputTokens estimates the prompt's tokens (chat.EstimateTokens of
	// the translated request): response.created and response.in_progress
	// carry it, before the service has counted.
	InputTokens int
	// Dropped names what of the input could not be passed on (reasoning
	// signed by another API, a damaged call_id), for the request log.
	Dropped []string

	tools     map[string]toolRef // chat function name → the tool the client offered
	echo      echo
	encrypted bool // include asks for reasoning.encrypted_content
	notStored bool // the request says store: false
}

// toolRef is a tool as the client declared it.
type toolRef struct {
	kind      string // function | custom | local_shell
	name      string
	namespace string
}

// echo holds the request's settings that a response object repeats.
type echo struct {
	Instructions      json.RawMessage
	Tools             json.RawMessage
	ToolChoice        json.RawMessage
	ParallelToolCalls bool
	Temperature       *float64
	TopP              *float64
	MaxOutputTokens   *int
	Reasoning         json.RawMessage
	Text              json.RawMessage
	Metadata          json.RawMessage
	Store             bool
	Previous          string // previous_response_id, resolved by Store.Parse
}

// errorBody is e in the Responses API's error shape:
// {"error":{"message","type","param","code"}}.
func errorBody(e *translate.Error) []byte {
	return errorJSON(e.Message, e.Type, e.Param, e.Code)
}

// badRequest is a 400 naming the field.
func badRequest(param, format string, args ...any) *translate.Error {
	e := translate.Invalid(param, format, args...)
	e.Type, e.Code, e.Param = "invalid_request_error", "invalid_request", param
	return e
}

// unsupported is a 400 for a part of the Responses API that gw serve cannot
// translate onto chat completions.
func unsupported(param, format string, args ...any) *translate.Error {
	e := badRequest(param, format, args...)
	e.Code = "unsupported_parameter"
	return e
}

// request is a Responses API request. Fields the translation does not need
// (include, client_metadata, service_tier, truncation…) are accepted and
// ignored.
type request struct {
	Model              string            `json:"model"`
	Instructions       json.RawMessage   `json:"instructions"`
	Input              json.RawMessage   `json:"input"`
	Tools              []json.RawMessage `json:"tools"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	ParallelToolCalls  *bool             `json:"parallel_tool_calls"`
	Reasoning          json.RawMessage   `json:"reasoning"`
	Text               json.RawMessage   `json:"text"`
	MaxOutputTokens    *int              `json:"max_output_tokens"`
	Temperature        *float64          `json:"temperature"`
	TopP               *float64          `json:"top_p"`
	Stream             bool              `json:"stream"`
	Store              *bool             `json:"store"`
	Metadata           json.RawMessage   `json:"metadata"`
	User               string            `json:"user"`
	SafetyIdentifier   string            `json:"safety_identifier"`
	PromptCacheKey     string            `json:"prompt_cache_key"`
	PreviousResponseID *string           `json:"previous_response_id"`
	Conversation       json.RawMessage   `json:"conversation"`
	Background         *bool             `json:"background"`
	Prompt             json.RawMessage   `json:"prompt"`
	Include            []string          `json:"include"`
}

// item is one input item; which fields are set depends on its type.
type item struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments *string         `json:"arguments"`
	Input     *string         `json:"input"`
	Output    json.RawMessage `json:"output"`
	Action    *shellAction    `json:"action"`
}

// shellAction is a local_shell_call's action.
type shellAction struct {
	Type             string            `json:"type"` // exec
	Command          []string          `json:"command"`
	WorkingDirectory string            `json:"working_directory,omitempty"`
	TimeoutMS        *int64            `json:"timeout_ms,omitempty"`
	Env              map[string]string `json:"env,omitempty"`
	User             string            `json:"user,omitempty"`
}

// part is one content part of a message or of a tool's output.
type part struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text"`
	Refusal  *string         `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"`
	FileID   string          `json:"file_id"`
	Detail   string          `json:"detail"`
}

// tool is one entry of the request's tools.
type tool struct {
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Parameters  json.RawMessage   `json:"parameters"`
	Strict      *bool             `json:"strict"`
	Format      *toolFormat       `json:"format"`
	Tools       []json.RawMessage `json:"tools"` // namespace
}

// toolFormat is a custom tool's input format.
type toolFormat struct {
	Type       string `json:"type"` // text | grammar
	Syntax     string `json:"syntax"`
	Definition string `json:"definition"`
}

// hostedTools are tools the OpenAI service runs itself. The service behind
// gw has none of them, so they are not offered to the model.
var hostedTools = map[string]bool{
	"web_search": true, "web_search_preview": true, "web_search_preview_2025_03_11": true, "web_search_2025_08_26": true,
	"file_search": true, "computer_use_preview": true, "computer_use": true, "image_generation": true,
	"code_interpreter": true, "mcp": true, "tool_search": true,
}

// LocalShellTool is the function name under which a local_shell tool is
// offered to the model.
const LocalShellTool = "local_shell"

// ParseRequest translates a Responses API request body into the chat
// completions request for the service. Everything of the conversation is
// carried over or refused with a 400 naming the field; reasoning items go
// back on the assistant message that follows them, in the dialect they came
// in (thinking.go).
func ParseRequest(req *translate.Request, env translate.Env) (*chat.Request, Meta, *translate.Error) {
	meta := Meta{ResponseID: "resp_" + env.ID(24), Created: env.Now().Unix()}
	var r request
	if err := decodeJSON(req.Body, &r); err != nil {
		return nil, meta, err
	}
	meta.Model, meta.Stream, meta.notStored = r.Model, r.Stream, r.Store != nil && !*r.Store
	switch {
	case strings.TrimSpace(r.Model) == "":
		return nil, meta, badRequest("model", "missing; %s", render.Text(remedy.Remedy{Do: remedy.SetModel}, render.Context{Where: render.Serve}))
	case r.PreviousResponseID != nil && *r.PreviousResponseID != "":
		return nil, meta, unsupported("previous_response_id", "gw serve keeps no responses, so it cannot continue response %q; send the whole conversation in input (with store=false, as Codex does)", *r.PreviousResponseID)
	case len(r.Conversation) > 0 && string(r.Conversation) != "null":
		return nil, meta, unsupported("conversation", "gw serve keeps no conversations; send the whole conversation in input")
	case r.Background != nil && *r.Background:
		return nil, meta, unsupported("background", "gw serve cannot run a response in the background; leave background unset")
	case len(r.Prompt) > 0 && string(r.Prompt) != "null":
		return nil, meta, unsupported("prompt", "stored prompt templates are not available through gw serve; send instructions and input instead")
	}

	out := &chat.Request{
		Model:       r.Model,
		Stream:      r.Stream,
		MaxTokens:   r.MaxOutputTokens,
		Temperature: r.Temperature,
		TopP:        r.TopP,
		User:        r.User,
	}
	if out.User == "" {
		out.User = r.SafetyIdentifier
	}
	// The service's prompt cache keeps a conversation's prefix under its
	// key (Codex sends one per session).
	out.PromptCacheKey = r.PromptCacheKey
	if r.Stream {
		out.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}

	t := &translator{meta: &meta, tools: map[string]toolRef{}, names: map[toolKey]string{}}
	if err := t.declareTools(r.Tools); err != nil {
		return nil, meta, err
	}
	out.Tools = t.chatTools
	if len(out.Tools) > 0 {
		out.ParallelToolCalls = r.ParallelToolCalls
		choice, err := t.toolChoice(r.ToolChoice)
		if err != nil {
			return nil, meta, err
		}
		out.ToolChoice = choice
	} else if err := t.checkChoiceWithoutTools(r.ToolChoice); err != nil {
		return nil, meta, err
	}
	meta.tools = t.tools
	meta.encrypted = wantsEncrypted(r.Include)

	if len(r.Instructions) > 0 && string(r.Instructions) != "null" {
		var s string
		if json.Unmarshal(r.Instructions, &s) != nil {
			return nil, meta, badRequest("instructions", "must be a string")
		}
		if s != "" {
			t.msgs = append(t.msgs, chat.Message{Role: "system", Content: s})
		}
	}
	if err := t.input(r.Input); err != nil {
		return nil, meta, err
	}
	if len(t.msgs) == 0 {
		return nil, meta, badRequest("input", "the request has no input; send at least one message")
	}
	out.Messages = t.msgs

	if err := reasoning(r.Reasoning, out); err != nil {
		return nil, meta, err
	}
	if e, ok := api.LookupModel(r.Model); !ok || !e.Reasoning {
		out.ReasoningEffort = "" // other models refuse the field, as on the Messages route
	}
	if err := textFormat(r.Text, out); err != nil {
		return nil, meta, err
	}

	// The response says store: false, whatever the request asked: nothing
	// here keeps it. Store.Parse says true for a response its Store keeps.
	meta.echo = echo{
		Instructions: r.Instructions, ToolChoice: r.ToolChoice, Temperature: r.Temperature, TopP: r.TopP,
		MaxOutputTokens: r.MaxOutputTokens, Reasoning: r.Reasoning, Text: r.Text, Metadata: r.Metadata,
		ParallelToolCalls: r.ParallelToolCalls == nil || *r.ParallelToolCalls,
	}
	if len(r.Tools) > 0 {
		meta.echo.Tools, _ = json.Marshal(r.Tools)
	}
	meta.InputTokens = chat.EstimateTokens(out)
	return out, meta, nil
}

// decodeJSON decodes the request body, naming where it is malformed.
func decodeJSON(body []byte, v any) *translate.Error {
	var err error
	if len(bytes.TrimSpace(body)) > 0 {
		if err = json.Unmarshal(body, v); err == nil {
			return nil
		}
	}
	param, msg := chat.BadBody(body, err, "Responses API")
	return badRequest(param, "%s", msg)
}

type toolKey struct{ namespace, name string }

// translator builds the chat request's messages and tools.
type translator struct {
	meta      *Meta
	msgs      []chat.Message
	chatTools []chat.Tool
	tools     map[string]toolRef  // chat name → tool
	names     map[toolKey]string  // tool → chat name
	images    []chat.Part         // images of tool outputs, sent after the tool messages
	imageFrom []string            // the calls they came from
	calls     map[string]struct{} // call ids seen so far
	reasoning *chat.Message       // reasoning items read, for the next assistant message
}

var nameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// declareTools translates the request's tools into chat functions.
func (t *translator) declareTools(raw []json.RawMessage) *translate.Error {
	type decl struct {
		tool
		param     string
		namespace string
	}
	var decls []decl
	for i, r := range raw {
		param := fmt.Sprintf("tools[%d]", i)
		var tl tool
		if err := json.Unmarshal(r, &tl); err != nil {
			return badRequest(param, "is not a tool object: %v", err)
		}
		switch {
		case tl.Type == "namespace":
			for j, ir := range tl.Tools {
				iparam := fmt.Sprintf("%s.tools[%d]", param, j)
				var in tool
				if err := json.Unmarshal(ir, &in); err != nil {
					return badRequest(iparam, "is not a tool object: %v", err)
				}
				if in.Type != "function" && in.Type != "custom" {
					return unsupported(iparam+".type", "tool type %q inside a namespace cannot be translated; gw serve offers function and custom tools to the model", in.Type)
				}
				decls = append(decls, decl{tool: in, param: iparam, namespace: tl.Name})
			}
		case tl.Type == "function" || tl.Type == "custom":
			decls = append(decls, decl{tool: tl, param: param})
		case tl.Type == "local_shell":
			tl.Name = LocalShellTool
			decls = append(decls, decl{tool: tl, param: param})
		case hostedTools[tl.Type]:
			t.meta.DroppedTools = append(t.meta.DroppedTools, tl.Type)
		default:
			return unsupported(param+".type", "unknown tool type %q; gw serve offers function, custom, namespace and local_shell tools to the model", tl.Type)
		}
	}
	// A namespaced tool keeps its own name unless another tool has it too.
	count := map[string]int{}
	for _, d := range decls {
		count[d.Name]++
	}
	for _, d := range decls {
		name := d.Name
		if name == "" {
			return badRequest(d.param+".name", "missing; every function and custom tool needs a name")
		}
		chatName := name
		if d.namespace != "" && count[name] > 1 {
			chatName = d.namespace + "__" + name
		}
		chatName = nameChars.ReplaceAllString(chatName, "_")
		if len(chatName) > 64 {
			chatName = chatName[:64]
		}
		if _, dup := t.tools[chatName]; dup {
			return badRequest(d.param+".name", "tool %q is declared twice; give every tool its own name", chatName)
		}
		ref := toolRef{kind: d.Type, name: name, namespace: d.namespace}
		t.tools[chatName] = ref
		t.names[toolKey{d.namespace, name}] = chatName
		t.chatTools = append(t.chatTools, chatTool(chatName, d.tool))
	}
	return nil
}

// chatTool is the chat function a Responses tool is offered as.
func chatTool(name string, tl tool) chat.Tool {
	fn := chat.Function{Name: name, Description: tl.Description, Parameters: tl.Parameters, Strict: tl.Strict}
	switch tl.Type {
	case "custom":
		// A freeform tool takes raw text; as a function it takes that text
		// as its one string argument.
		desc := "The raw text input of the tool, exactly as the tool's description asks for it (not JSON-encoded beyond being this string)."
		if f := tl.Format; f != nil && f.Type == "grammar" && f.Definition != "" {
			desc += " It must match this " + f.Syntax + " grammar:\n" + f.Definition
		}
		fn.Description = strings.TrimSpace(tl.Description + "\n\nPass the tool's whole input as the string argument `input`.")
		fn.Parameters = mustJSON(map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"input": map[string]any{"type": "string", "description": desc}},
			"required":             []string{"input"},
			"additionalProperties": false,
		})
		fn.Strict = nil
	case "local_shell":
		fn.Description = "Runs a command on the user's machine and returns its output. command is the argument vector, e.g. [\"bash\", \"-lc\", \"ls -la\"]."
		fn.Parameters = mustJSON(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"command":           map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "The command and its arguments."},
				"working_directory": map[string]any{"type": "string", "description": "Where to run it; the session's directory when not given."},
				"timeout_ms":        map[string]any{"type": "integer", "description": "How long it may run, in milliseconds."},
			},
			"required": []string{"command"},
		})
	}
	if len(fn.Parameters) == 0 || string(fn.Parameters) == "null" {
		fn.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return chat.Tool{Type: "function", Function: fn}
}

// chatName is the chat function name of a tool called in the history; a tool
// no longer offered keeps its own name.
func (t *translator) chatName(namespace, name string) string {
	if n, ok := t.names[toolKey{namespace, name}]; ok {
		return n
	}
	return nameChars.ReplaceAllString(name, "_")
}

func (t *translator) toolChoice(raw json.RawMessage) (any, *translate.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "auto", "none", "required":
			return s, nil
		}
		return nil, badRequest("tool_choice", "unknown value %q; use auto, none, required or a tool object", s)
	}
	var c struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, badRequest("tool_choice", "must be a string or a tool object")
	}
	switch c.Type {
	case "function", "custom":
		name := t.chatName(c.Namespace, c.Name)
		if _, ok := t.tools[name]; !ok {
			return nil, badRequest("tool_choice.name", "tool %q is not among the request's tools; choose one of them", c.Name)
		}
		return chat.ForceFunction(name), nil
	case "local_shell":
		if _, ok := t.tools[LocalShellTool]; !ok {
			return nil, badRequest("tool_choice", "local_shell is not among the request's tools")
		}
		return chat.ForceFunction(LocalShellTool), nil
	}
	if hostedTools[c.Type] {
		return nil, unsupported("tool_choice.type", "the %s tool runs on OpenAI's servers and is not available through gw serve; use auto", c.Type)
	}
	return nil, unsupported("tool_choice.type", "tool choice %q cannot be translated to chat completions; use auto, none, required, or a function or custom tool", c.Type)
}

// checkChoiceWithoutTools refuses a tool choice that forces a tool when no
// tool is offered (all were hosted ones).
func (t *translator) checkChoiceWithoutTools(raw json.RawMessage) *translate.Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "required" {
		return nil
	}
	if len(t.meta.DroppedTools) > 0 {
		return unsupported("tool_choice", "it asks for a tool, but the request's only tools (%s) run on OpenAI's servers and are not available through gw serve", strings.Join(t.meta.DroppedTools, ", "))
	}
	return badRequest("tool_choice", "it asks for a tool, but the request has no tools")
}

// input translates the conversation.
func (t *translator) input(raw json.RawMessage) *translate.Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t.msgs = append(t.msgs, chat.Message{Role: "user", Content: s})
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return badRequest("input", "must be a string or an array of input items")
	}
	t.calls = map[string]struct{}{}
	for i, r := range items {
		param := fmt.Sprintf("input[%d]", i)
		var it item
		if err := json.Unmarshal(r, &it); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) && typ.Field != "" {
				return badRequest(chat.FieldPath(param, typ.Field), "%s", chat.BadField(typ, "Responses API"))
			}
			return badRequest(param, "is not an input item object")
		}
		if it.Type == "" && it.Role != "" {
			it.Type = "message" // the short form {"role", "content"}
		}
		switch it.Type {
		case "reasoning":
			t.reasoningBack(param, r)
			continue
		case "function_call", "custom_tool_call", "local_shell_call":
		case "message":
			if it.Role != "assistant" {
				t.reasoning = nil // reasoning belongs to the answer that follows it
			}
		default:
			t.reasoning = nil
		}
		if err := t.item(param, it); err != nil {
			return err
		}
	}
	t.flushImages()
	return nil
}

func (t *translator) item(param string, it item) *translate.Error {
	isOutput := it.Type == "function_call_output" || it.Type == "custom_tool_call_output" || it.Type == "local_shell_call_output"
	if !isOutput && it.Type != "reasoning" {
		t.flushImages()
	}
	switch it.Type {
	case "message":
		return t.message(param, it)
	case "reasoning":
		return nil // the model's notes of an earlier answer: chat completions has no place for them
	case "function_call":
		if it.Name == "" {
			return badRequest(param+".name", "missing; a function_call names the function it called")
		}
		args := "{}"
		if it.Arguments != nil && strings.TrimSpace(*it.Arguments) != "" {
			args = *it.Arguments
		}
		return t.call(param, it, t.chatName(it.Namespace, it.Name), args)
	case "custom_tool_call":
		if it.Name == "" {
			return badRequest(param+".name", "missing; a custom_tool_call names the tool it called")
		}
		in := ""
		if it.Input != nil {
			in = *it.Input
		}
		return t.call(param, it, t.chatName(it.Namespace, it.Name), string(mustJSON(map[string]string{"input": in})))
	case "local_shell_call":
		if it.Action == nil {
			return badRequest(param+".action", "missing; a local_shell_call carries the command it ran")
		}
		if it.CallID == "" {
			it.CallID = it.ID
		}
		return t.call(param, it, LocalShellTool, string(mustJSON(it.Action)))
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		return t.output(param, it)
	case "item_reference":
		return unsupported(param+".type", "gw serve keeps no items, so it cannot look up item %q; send the item itself", it.ID)
	case "":
		return badRequest(param+".type", "missing; every input item has a type (message, function_call, function_call_output…)")
	}
	return unsupported(param+".type", "input item type %q cannot be passed on: the service speaks chat completions, which has no equivalent; start a new session without it", it.Type)
}

// message translates a message item.
func (t *translator) message(param string, it item) *translate.Error {
	role := it.Role
	switch role {
	case "developer", "system":
		role = "system"
	case "user", "assistant":
	case "":
		return badRequest(param+".role", "missing; a message has a role (user, assistant, system or developer)")
	default:
		return badRequest(param+".role", "unknown role %q; use user, assistant, system or developer", it.Role)
	}
	if len(it.Content) == 0 || string(it.Content) == "null" {
		return badRequest(param+".content", "missing; a message has content")
	}
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		msg := chat.Message{Role: role, Content: s}
		if role == "assistant" {
			t.takeReasoning(&msg)
		}
		t.msgs = append(t.msgs, msg)
		return nil
	}
	var parts []part
	if err := json.Unmarshal(it.Content, &parts); err != nil {
		return badRequest(param+".content", "must be a string or an array of content parts")
	}
	var texts []string
	var chatParts []chat.Part
	hasImage := false
	for j, p := range parts {
		pp := fmt.Sprintf("%s.content[%d]", param, j)
		switch p.Type {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text":
			if p.Text == nil {
				return badRequest(pp+".text", "missing")
			}
			texts = append(texts, *p.Text)
			chatParts = append(chatParts, chat.Part{Type: "text", Text: *p.Text})
		case "refusal":
			if p.Refusal == nil {
				return badRequest(pp+".refusal", "missing")
			}
			texts = append(texts, *p.Refusal)
			chatParts = append(chatParts, chat.Part{Type: "text", Text: *p.Refusal})
		case "input_image":
			if role != "user" {
				return unsupported(pp, "an image in a %s message cannot be passed on: chat completions takes images in user messages only", it.Role)
			}
			img, err := imagePart(pp, p)
			if err != nil {
				return err
			}
			hasImage = true
			chatParts = append(chatParts, img)
		case "input_file":
			return unsupported(pp+".type", "files cannot be passed on: the service's chat completions take text and images; paste the file's text into the message instead")
		case "input_audio":
			return unsupported(pp+".type", "audio cannot be passed on: the service's chat completions take text and images")
		case "":
			return badRequest(pp+".type", "missing; a content part has a type (input_text, output_text, input_image)")
		default:
			return unsupported(pp+".type", "content type %q cannot be passed on; the service's chat completions take text and images", p.Type)
		}
	}
	msg := chat.Message{Role: role, Content: strings.Join(texts, "\n\n")}
	if hasImage {
		msg.Content = chatParts
	}
	if role == "assistant" {
		t.takeReasoning(&msg)
	}
	t.msgs = append(t.msgs, msg)
	return nil
}

// imagePart translates an input_image part.
func imagePart(param string, p part) (chat.Part, *translate.Error) {
	if p.FileID != "" {
		return chat.Part{}, unsupported(param+".file_id", "an image given by file id cannot be passed on: the service has no file storage; send the image inline as a data: URL")
	}
	var url string
	if len(p.ImageURL) > 0 && string(p.ImageURL) != "null" {
		if json.Unmarshal(p.ImageURL, &url) != nil {
			var obj struct {
				URL string `json:"url"`
			}
			if json.Unmarshal(p.ImageURL, &obj) != nil {
				return chat.Part{}, badRequest(param+".image_url", "must be a string: a data: URL or an https URL")
			}
			url = obj.URL
		}
	}
	switch {
	case url == "":
		return chat.Part{}, badRequest(param+".image_url", "missing; send the image as a data: URL or an https URL")
	case strings.HasPrefix(url, "data:image/") && strings.Contains(url, ";base64,"):
	case strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://"):
	default:
		return chat.Part{}, unsupported(param+".image_url", "%s cannot be passed on: the service takes images as data:image/…;base64 URLs or http(s) URLs", clipURL(url))
	}
	detail := p.Detail
	if detail != "low" && detail != "high" && detail != "auto" {
		detail = "" // "original" and others: chat completions knows low, high and auto
	}
	return chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: url, Detail: detail}}, nil
}

func clipURL(u string) string {
	if len(u) > 40 {
		u = u[:40] + "…"
	}
	return fmt.Sprintf("%q", u)
}

// call appends a tool call to the assistant's message: the one just before
// it, or a new one.
func (t *translator) call(param string, it item, name, args string) *translate.Error {
	if it.CallID == "" {
		return badRequest(param+".call_id", "missing; a tool call has the call_id its output refers to")
	}
	id, extra := chat.ToolCallBack(it.CallID, param+".call_id", &t.meta.Dropped)
	tc := chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}, ExtraContent: extra}
	t.calls[it.CallID] = struct{}{}
	if n := len(t.msgs); n > 0 && t.msgs[n-1].Role == "assistant" {
		t.msgs[n-1].ToolCalls = append(t.msgs[n-1].ToolCalls, tc)
		t.takeReasoning(&t.msgs[n-1])
		return nil
	}
	msg := chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{tc}}
	t.takeReasoning(&msg)
	t.msgs = append(t.msgs, msg)
	return nil
}

// output translates a tool's output into a tool message; images in it go
// into a user message after the tool messages.
func (t *translator) output(param string, it item) *translate.Error {
	id := it.CallID
	if id == "" {
		id = it.ID
	}
	if id == "" {
		return badRequest(param+".call_id", "missing; a tool output names the call_id it answers")
	}
	if _, ok := t.calls[id]; !ok {
		return badRequest(param+".call_id", "no earlier tool call has call_id %q; send the call before its output", id)
	}
	id, _, _ = chat.SplitToolCallID(id)
	if len(it.Output) == 0 || string(it.Output) == "null" {
		return badRequest(param+".output", "missing")
	}
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		t.msgs = append(t.msgs, chat.Message{Role: "tool", ToolCallID: id, Content: s})
		return nil
	}
	var parts []part
	if err := json.Unmarshal(it.Output, &parts); err != nil {
		return badRequest(param+".output", "must be a string or an array of content parts")
	}
	var texts []string
	images := 0
	for j, p := range parts {
		pp := fmt.Sprintf("%s.output[%d]", param, j)
		switch p.Type {
		case "input_text", "output_text", "text":
			if p.Text != nil {
				texts = append(texts, *p.Text)
			}
		case "input_image":
			img, err := imagePart(pp, p)
			if err != nil {
				return err
			}
			t.images = append(t.images, img)
			images++
		case "input_file":
			return unsupported(pp+".type", "files in a tool's output cannot be passed on: the service's chat completions take text and images")
		default:
			return unsupported(pp+".type", "content type %q in a tool's output cannot be passed on; the service's chat completions take text and images", p.Type)
		}
	}
	if images > 0 {
		t.imageFrom = append(t.imageFrom, id)
		texts = append(texts, "(the output's "+translate.Plural(images, "image")+" come in the next message)")
	}
	t.msgs = append(t.msgs, chat.Message{Role: "tool", ToolCallID: id, Content: strings.Join(texts, "\n\n")})
	return nil
}

// flushImages sends the images of the tool outputs just translated, in a
// user message: chat completions takes no images in tool messages.
func (t *translator) flushImages() {
	if len(t.images) == 0 {
		return
	}
	parts := append([]chat.Part{{Type: "text", Text: "The output of tool call " + strings.Join(t.imageFrom, ", ") + " includes these images:"}}, t.images...)
	t.msgs = append(t.msgs, chat.Message{Role: "user", Content: parts})
	t.images, t.imageFrom = nil, nil
}

// reasoning carries reasoning.effort over.
func reasoning(raw json.RawMessage, out *chat.Request) *translate.Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var r struct {
		Effort *string `json:"effort"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return badRequest("reasoning", "must be an object like {\"effort\": \"medium\"}")
	}
	if r.Effort != nil {
		// xhigh and minimal, none: the levels the service's reasoning
		// models take, as on the Messages route.
		out.ReasoningEffort = chat.Effort(*r.Effort)
	}
	return nil
}

// textFormat carries text.format over as response_format, and
// text.verbosity as verbosity.
func textFormat(raw json.RawMessage, out *chat.Request) *translate.Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var tx struct {
		Format    json.RawMessage `json:"format"`
		Verbosity string          `json:"verbosity"`
	}
	if err := json.Unmarshal(raw, &tx); err != nil {
		return badRequest("text", "must be an object like {\"format\": {\"type\": \"text\"}}")
	}
	switch tx.Verbosity {
	case "", "low", "medium", "high":
		out.Verbosity = tx.Verbosity // chat completions' verbosity, the same levels
	default:
		return badRequest("text.verbosity", "unknown verbosity %q; use low, medium or high", tx.Verbosity)
	}
	if len(tx.Format) == 0 || string(tx.Format) == "null" {
		return nil
	}
	var f struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema"`
		Strict      *bool           `json:"strict"`
	}
	if err := json.Unmarshal(tx.Format, &f); err != nil {
		return badRequest("text.format", "must be an object with a type (text, json_object or json_schema)")
	}
	switch f.Type {
	case "text", "":
	case "json_object":
		out.ResponseFormat = json.RawMessage(`{"type":"json_object"}`)
	case "json_schema":
		if len(f.Schema) == 0 {
			return badRequest("text.format.schema", "missing; a json_schema format carries the schema")
		}
		name := f.Name
		if name == "" {
			name = "response"
		}
		type jsonSchema struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict,omitempty"`
		}
		out.ResponseFormat = mustJSON(struct {
			Type       string     `json:"type"`
			JSONSchema jsonSchema `json:"json_schema"`
		}{"json_schema", jsonSchema{name, f.Description, f.Schema, f.Strict}})
	default:
		return unsupported("text.format.type", "unknown format %q; use text, json_object or json_schema", f.Type)
	}
	return nil
}

func mustJSON(v any) json.RawMessage {
	b, err := chat.Encode(v)
	if err != nil {
		panic(err)
	}
	return bytes.TrimRight(b, "\n")
}

// errorOut is OpenAI's error shape, fields in OpenAI's order (Codex shows
// some error bodies as they are).
type errorOut struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// errorJSON is an error body in OpenAI's shape; param and code are null when
// empty.
func errorJSON(message, typ, param, code string) []byte {
	d := errorDetail{Message: message, Type: typ}
	if param != "" {
		d.Param = &param
	}
	if code != "" {
		d.Code = &code
	}
	return mustJSON(errorOut{Error: d})
}
