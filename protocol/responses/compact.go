package responses

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/translate"
)

// Compact is POST /v1/responses/compact, Codex's remote compaction, as a
// translator onto the service's chat completions: the conversation of its
// input (a Responses request that does not stream) is sent with one more
// user turn asking the model for a summary that lets the work go on, no
// tool call allowed; the answer is the history Codex continues with, as
// the endpoint's {"output": [items]}: the user's own messages (the most
// recent, up to compactKeep bytes of text), then the summary as a user
// message.
type Compact struct{}

var _ translate.Protocol = Compact{}

// compactKeep bounds the text of the user messages kept (about 20 000
// tokens), the most recent first.
const compactKeep = 80_000

// compactPrompt is the turn that asks for the summary.
const compactPrompt = "The conversation above is about to be replaced by a summary so that the work can go on in a fresh context. " +
	"Write that summary now, for whoever continues: what the user asked for, what has been done and decided, the state of " +
	"the work (files, commands, results that matter), the user's constraints and preferences, and what remains to be done next. " +
	"Be complete but concise. Do not call tools; answer with the summary only."

// compactPrefix opens the summary in the history Codex goes on with.
const compactPrefix = "The earlier part of this conversation was compacted; this is its summary:\n\n"

// Name is the protocol's name in the request log.
func (Compact) Name() string { return "responses" }

// Local refuses every method but POST.
func (Compact) Local(req *translate.Request, _ translate.Env) (translate.Answer, bool) {
	if req.Method == http.MethodPost {
		return translate.Answer{}, false
	}
	a := jsonAnswer(http.StatusMethodNotAllowed, errorJSON("/v1/responses/compact takes POST, not "+req.Method, "invalid_request_error", "", "method_not_allowed"))
	a.Header.Set("Allow", http.MethodPost)
	return a, true
}

// Translate reads the conversation to compact.
func (Compact) Translate(req *translate.Request, env translate.Env) (translate.Exchange, *translate.Answer) {
	creq, meta, perr := ParseRequest(req, env)
	x := &compaction{exchange{req: creq, meta: meta}, nil}
	if perr != nil {
		a := jsonAnswer(perr.Status, errorBody(perr))
		return x, &a
	}
	x.meta.Stream, creq.Stream, creq.StreamOptions = false, false, nil
	x.users = userTexts(creq.Messages)
	if len(creq.Tools) > 0 {
		creq.ToolChoice = "none"
	}
	creq.Messages = append(creq.Messages, chat.Message{Role: "user", Content: compactPrompt})
	return x, nil
}

// Refusal is one of gw serve's own errors, as on /v1/responses.
func (Compact) Refusal(status int, code, message string) translate.Answer {
	return Protocol{}.Refusal(status, code, message)
}

// compaction is one compaction request: a Responses exchange (its errors,
// its log) whose whole answer is the new history.
type compaction struct {
	exchange
	users []string // the user messages kept, in order
}

// userTexts are the texts of the user messages of msgs, the most recent
// ones up to compactKeep bytes, in their order.
func userTexts(msgs []chat.Message) []string {
	var kept []string
	left := compactKeep
	for _, m := range slices.Backward(msgs) {
		if m.Role != "user" {
			continue
		}
		var b strings.Builder
		switch c := m.Content.(type) {
		case string:
			b.WriteString(c)
		case []chat.Part:
			for _, p := range c {
				if p.Type == "text" && p.Text != "" {
					if b.Len() > 0 {
						b.WriteString("\n")
					}
					b.WriteString(p.Text)
				}
			}
		}
		if b.Len() == 0 || b.Len() > left {
			if b.Len() > left {
				break
			}
			continue
		}
		left -= b.Len()
		kept = append(kept, b.String())
	}
	slices.Reverse(kept)
	return kept
}

// errNoSummary: the service answered the compaction without any text.
var errNoSummary = errors.New("the service's answer to the compaction has no summary")

type compactUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

func (x *compaction) Whole(r *chat.Response) (translate.Answer, error) {
	if len(r.Choices) == 0 || r.Choices[0].Message.Content == nil || strings.TrimSpace(*r.Choices[0].Message.Content) == "" {
		return translate.Answer{}, errNoSummary
	}
	out := struct {
		ID        string        `json:"id"`
		Object    string        `json:"object"`
		CreatedAt int64         `json:"created_at"`
		Output    []userItem    `json:"output"`
		Usage     *compactUsage `json:"usage,omitempty"`
	}{ID: x.meta.ResponseID, Object: "response.compaction", CreatedAt: x.meta.Created, Output: []userItem{}}
	for _, u := range x.users {
		out.Output = append(out.Output, userText(u))
	}
	out.Output = append(out.Output, userText(compactPrefix+*r.Choices[0].Message.Content))
	if u := r.Usage; u != nil {
		out.Usage = &compactUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return translate.Answer{}, err
	}
	return jsonAnswer(http.StatusOK, b), nil
}
