package api

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
)

// A context overflow (KindContextOverflow) is the one refusal an agent
// recovers from by itself, by compacting its conversation, when it is told in
// its API's words: so it is recognised here once, in every dialect gateways
// and model servers say it in, with the token counts when the words give them.

// overflowCodes are the error codes and types of a context overflow.
var overflowCodes = map[string]bool{
	"context_length_exceeded": true, "context_window_exceeded": true, "prompt_too_long": true,
	"contextwindowexceedederror": true, "context_length_exceeded_error": true, "model_context_window_exceeded": true,
}

// overflowWords are the words of a context overflow, lower-case, as OpenAI,
// Anthropic, Gemini, OpenRouter, LiteLLM, vLLM, llama.cpp, TGI and others
// write them.
var overflowWords = regexp.MustCompile(`prompt is too long|input is too long for requested model|maximum context length|context[ _]length[ _]exceeded|exceeds the context window|context window exceeds|contextwindowexceedederror|longer than the maximum model length|longer than the model's context length|exceeds the available context size|exceeds the maximum number of tokens allowed|input token count .{0,20}exceeds|exceeded model token limit|input token length too long|input tokens exceed the configured limit|maximum context limit|maximum prompt length|prompt exceeds max length|tokens in request more than max tokens allowed|range of input length should be|but model only supports up to|reduce the length of the messages|` + "`inputs` tokens \\+ `max_new_tokens` must be" + `|context exceeds your deployment|exceeds (the )?(model's )?context (window|length|size)`)

// notOverflow are words of other limits that share some of those words: a
// string field too long, a request body too large.
var notOverflow = regexp.MustCompile(`string too long\. expected a string with maximum length|expected maxlength|policy_blocked`)

// The token counts, from the words: the first expression that matches gives
// them. tokens is what the request needed (with the output it asked for,
// when that is what the service counted), limit the context window.
var (
	bothCounts = []*regexp.Regexp{
		regexp.MustCompile(`prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)`),                                         // Anthropic
		regexp.MustCompile(`input token count\D{0,5}(\d+)\D{0,5}exceeds the maximum number of tokens allowed\D{0,5}(\d+)`), // Gemini
		regexp.MustCompile(`\((\d+) tokens\) exceeds the available context size \((\d+) tokens\)`),                         // llama.cpp
	}
	limitCounts = []*regexp.Regexp{
		regexp.MustCompile(`maximum context length is (\d+)`), // OpenAI, vLLM, OpenRouter, LiteLLM
		regexp.MustCompile(`context length is (\d+)`),
		regexp.MustCompile(`maximum number of tokens allowed\D{0,5}(\d+)`),
		regexp.MustCompile(`context (?:size|window|limit) (?:of |is )?\(?(\d+)`),
		regexp.MustCompile(`only supports up to (\d+)`),
		regexp.MustCompile(`must be <= (\d+)`), // TGI
		regexp.MustCompile(`(\d+)\s*maximum`),
	}
	tokenCounts = []*regexp.Regexp{
		regexp.MustCompile(`resulted in (\d+) tokens`),
		regexp.MustCompile(`requested (?:about )?(\d+) tokens`),
		regexp.MustCompile(`input token count\D{0,5}(\d+)`),
		regexp.MustCompile(`given: (\d+) ` + "`inputs` tokens"),
		regexp.MustCompile(`(?:prompt|request|input) (?:has|contains|is) (\d+) (?:input )?tokens`),
		regexp.MustCompile(`(\d+)\s*tokens?\s*>\s*\d+`),
	}
	// vLLM: "… your request has 3500 input tokens (1000 > 4096 - 3500)": the
	// output asked for, the window, the input.
	vllmSum   = regexp.MustCompile(`\((\d+) > (\d+) - (\d+)\)`)
	thousands = regexp.MustCompile(`(\d),(\d{3})\b`)
)

// contextOverflow reports whether an error is a context overflow, and the
// counts its words give (0 when they give none).
func contextOverflow(se serviceError) (tokens, limit int, ok bool) {
	for _, c := range se.codes {
		ok = ok || overflowCodes[c]
	}
	msg := strings.ToLower(se.message)
	if notOverflow.MatchString(msg) {
		return 0, 0, false
	}
	if !ok && !overflowWords.MatchString(msg) {
		return 0, 0, false
	}
	msg = thousands.ReplaceAllString(thousands.ReplaceAllString(msg, "$1$2"), "$1$2")
	for _, re := range bothCounts {
		if m := re.FindStringSubmatch(msg); m != nil {
			return atoi(m[1]), atoi(m[2]), true
		}
	}
	if m := vllmSum.FindStringSubmatch(msg); m != nil {
		return atoi(m[1]) + atoi(m[3]), atoi(m[2]), true
	}
	limit = firstCount(limitCounts, msg)
	tokens = firstCount(tokenCounts, msg)
	if tokens != 0 && limit != 0 && tokens <= limit {
		tokens = 0 // a count of something else: the input without the output it asked for
	}
	return tokens, limit, true
}

func firstCount(res []*regexp.Regexp, s string) int {
	for _, re := range res {
		if m := re.FindStringSubmatch(s); m != nil {
			if n := atoi(m[1]); n > 0 {
				return n
			}
		}
	}
	return 0
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<40 {
		return 0
	}
	return n
}

// overflow fills e as a context overflow; the catalogue gives the window
// when the words do not.
func overflow(e *Error, tokens, limit int, model, quotedMessage string) *Error {
	if limit == 0 && model != "" {
		if c, ok := LookupModel(model); ok {
			limit = c.Context
		}
	}
	e.Kind, e.Tokens, e.Limit = KindContextOverflow, tokens, limit
	e.Cause = "the conversation is longer than the model's context window"
	switch {
	case tokens > 0 && limit > 0:
		e.Cause += fmt.Sprintf(" (%d tokens > %d maximum)", tokens, limit)
	case limit > 0:
		e.Cause += fmt.Sprintf(" of %d tokens", limit)
	}
	e.Cause += serverSaid(quotedMessage)
	e.Fix = remedy.Remedy{Do: remedy.CorrectRequest}
	return e
}

// overloadedCodes are the codes and types of a service too busy to answer.
var overloadedCodes = map[string]bool{
	"overloaded_error": true, "overloaded": true, "model_overloaded": true, "server_overloaded": true,
	"server_is_overloaded": true, "engine_overloaded": true, "unavailable": true, "service_unavailable": true,
}

// Overloaded reports whether the service said it is too busy to answer
// (503, 529, or an overloaded error inside a stream): the Messages API's
// overloaded_error, which clients retry after a pause.
func (e *Error) Overloaded() bool {
	if e == nil || e.Kind != KindServerError {
		return false
	}
	return e.Status == 503 || e.Status == 529 || overloadedCodes[e.Code]
}

// statusText is http.StatusText, with the names of the statuses it lacks.
func statusText(status int) string {
	if status == 529 {
		return "Overloaded"
	}
	return http.StatusText(status)
}
