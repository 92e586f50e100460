package proxy

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api/apitest"
	"github.com/modelgateway/gw/standin"
)

// The one SDK suite: every scenario runs for every client, an official SDK
// over the protocol it speaks (sdk_clients_test.go), each through gw serve
// with the stand-in behind it. The cases and results are in neutral terms
// (testdata/sdk/driver.mjs); a client that cannot express a check says so,
// with the reason, in its lacks.

// sdkCase is one turn of a conversation.
type sdkCase struct {
	Model       string          `json:"model,omitempty"`
	System      string          `json:"system,omitempty"`
	Cache       string          `json:"cache,omitempty"` // the prompt cache key; any: mark the system prompt for caching
	History     []any           `json:"history,omitempty"`
	User        string          `json:"user,omitempty"`
	Results     []sdkToolResult `json:"results,omitempty"`
	Tools       []sdkTool       `json:"tools,omitempty"`
	Reasoning   bool            `json:"reasoning,omitempty"`
	Whole       bool            `json:"whole,omitempty"`
	MaxRetries  int             `json:"maxRetries"`
	AbortOnText bool            `json:"abortOnText,omitempty"`
	Store       bool            `json:"store,omitempty"`
	Previous    string          `json:"previous,omitempty"`
	Native      map[string]any  `json:"native,omitempty"`
	API         string          `json:"api,omitempty"`
	Base        string          `json:"base,omitempty"` // another gw serve's /v1
	Raw         bool            `json:"raw,omitempty"`  // the result's native: the stream's events and the blocks assembled
}

type sdkTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

type sdkToolResult struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Output string `json:"output"`
}

// sdkResult is what a client made of an answer.
type sdkResult struct {
	recorded
	Text      string         `json:"text"`
	Finish    string         `json:"finish"`
	Chunks    int            `json:"chunks"`
	Calls     []sdkCall      `json:"calls"`
	Reasoning sdkReasoning   `json:"reasoning"`
	Usage     *sdkUsage      `json:"usage"`
	History   []any          `json:"history"`
	ID        string         `json:"id"`
	Stored    bool           `json:"stored"`
	Error     *sdkErr        `json:"error"`
	Native    map[string]any `json:"native"`
}

type sdkCall struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Input  string `json:"input"`
	Signed bool   `json:"signed"`
}

type sdkReasoning struct {
	Text      string   `json:"text"`
	Signature string   `json:"signature"`
	Sealed    string   `json:"sealed"` // redacted or encrypted reasoning
	Events    []string `json:"events"` // what the stream reported of it: signatures or summary deltas
}

// sdkUsage counts prompt tokens in all, the cache's among them.
type sdkUsage struct {
	Prompt     int  `json:"prompt"`
	Output     int  `json:"output"`
	CacheRead  *int `json:"cacheRead"`
	CacheWrite *int `json:"cacheWrite"`
	Estimate   *int `json:"estimate"` // the prompt's estimate at the stream's start
	Total      *int `json:"total"`
}

// sdkErr is an error an SDK threw or its stream reported.
type sdkErr struct {
	Class        string  `json:"class"`
	Status       *int    `json:"status"`
	Kind         *string `json:"kind"` // the error's type or code, or why the retries stopped
	Message      string  `json:"message"`
	Retryable    *bool   `json:"retryable"`
	Tries        *int    `json:"tries"`
	RetryAfter   *string `json:"retryAfter"`
	RetryAfterMs *string `json:"retryAfterMs"`
}

// sdkWant is an error as a client must report it.
type sdkWant struct {
	class  string
	status int    // 0: not checked (an error inside a stream has none)
	kind   string // "": not checked
	says   string // in the message
	exact  bool   // the message is says exactly
	final  bool   // the error says no retry helps
	or     *sdkWant
}

func (w sdkWant) check(e *sdkErr) error {
	switch {
	case e == nil:
		return fmt.Errorf("no error, want %+v", w)
	case e.Class != w.class, w.status != 0 && (e.Status == nil || *e.Status != w.status), w.kind != "" && deref(e.Kind) != w.kind,
		!strings.Contains(e.Message, w.says), w.exact && e.Message != w.says,
		w.final && (e.Retryable == nil || *e.Retryable):
		if w.or != nil && w.or.check(e) == nil {
			return nil
		}
		return fmt.Errorf("the SDK reported %s %v %s %q, want %+v", e.Class, deref(e.Status), deref(e.Kind), e.Message, w)
	}
	return nil
}

// sdkScenario is one behaviour every client (or one, for its own) shows.
type sdkScenario struct {
	name string
	run  func(t *testing.T, x *sdkRun)
}

// sdkRun is one client against one gw serve.
type sdkRun struct {
	c *sdkClient
	d *sdkDriver
	r *rig
	f *sdkFaults
}

func (x *sdkRun) turn(t *testing.T, c sdkCase) sdkResult {
	t.Helper()
	var res sdkResult
	x.d.run(t, c, &res)
	return res
}

// ok fails unless the turn has an answer that ended as the client says an
// answer ends (or, with tools, with calls).
func (x *sdkRun) ok(t *testing.T, res sdkResult) {
	t.Helper()
	if res.Error != nil {
		t.Fatalf("the SDK failed: %+v", res.Error)
	}
	want := x.c.stop
	if len(res.Calls) > 0 {
		want = x.c.toolUse
	}
	if want != "" && res.Finish != want {
		t.Errorf("the answer finished %q, want %q", res.Finish, want)
	}
}

// lacks skips what the client cannot express, and says why.
func (x *sdkRun) lacks(t *testing.T, what string) bool {
	why, ok := x.c.lacks[what]
	if ok {
		t.Logf("not checked: %s: %s", what, why)
	}
	return ok
}

// fails checks the error of a fault or refusal named in the client's errs.
func (x *sdkRun) fails(t *testing.T, res sdkResult, fault string) *sdkErr {
	t.Helper()
	w, ok := x.c.errs[fault]
	if !ok {
		t.Fatalf("the client declares no error for %q", fault)
	}
	if err := w.check(res.Error); err != nil {
		t.Fatal(err)
	}
	if res.Finish != "" && res.Finish != "error" {
		t.Errorf("the answer finished %q after its error", res.Finish)
	}
	return res.Error
}

// last is the stand-in's last chat request.
func (x *sdkRun) last() standin.Seen {
	seen := chatRequests(x.r)
	return seen[len(seen)-1]
}

// gaveBack checks that the last turn gave the service back every signature
// and encrypted block it sent in the one before (sent), where its dialect
// keeps them (where).
func (x *sdkRun) gaveBack(t *testing.T, sent standin.Seen, where string) {
	t.Helper()
	got := x.last().Received
	var vals []string
	for _, r := range got {
		vals = append(vals, r.Value)
		if !strings.Contains(r.Where, where) {
			t.Errorf("the service got %s back at %s, not in its %s", r.Value, r.Where, where)
		}
	}
	want := slices.Clone(sent.Sent)
	slices.Sort(vals)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(vals, want) {
		t.Errorf("the service got back %+v of the signatures and encrypted blocks %q it sent", got, sent.Sent)
	}
}

// answered sends the next turn of c after res: the result "# gw" of each
// of its calls (after its history, unless c continues a stored response),
// and checks that the answer quotes it.
func (x *sdkRun) answered(t *testing.T, c sdkCase, res sdkResult) {
	t.Helper()
	if c.Previous == "" {
		c.History = res.History
	}
	c.User, c.Results = "", nil
	for _, call := range res.Calls {
		c.Results = append(c.Results, sdkToolResult{call.ID, call.Name, "# gw"})
	}
	res = x.turn(t, c)
	x.ok(t, res)
	if !strings.HasPrefix(res.Text, "Tool result received: «# gw»") {
		t.Errorf("the answer to the calls' results: %q", res.Text)
	}
}

// inputs are the inputs of res's calls of the tool name.
func inputs(res sdkResult, name string) []string {
	var out []string
	for _, c := range res.Calls {
		if c.Name == name {
			out = append(out, c.Input)
		}
	}
	return out
}

// The reasoning dialects a client's SDK must read and give back, each
// signed and with an encrypted block, and where the service keeps them
// on the chat side.
var sdkDialects = []struct{ name, model, where string }{
	{"OpenRouter's signed and encrypted reasoning", sdkSigned, "reasoning_details"},
	{"LiteLLM's signed and redacted thinking blocks", sdkLiteLLM, "thinking_blocks"},
}

// sdkScenarios run for every client.
var sdkScenarios = []sdkScenario{
	{"text and usage, cached on the second turn", func(t *testing.T, x *sdkRun) {
		c := sdkCase{Model: sdkPlain, System: longText, Cache: "sdk-" + x.c.name, User: "hi"}
		for turn := 1; turn <= 2; turn++ {
			res := x.turn(t, c)
			x.ok(t, res)
			last := x.last()
			if got, want := res.Text, standin.Greeting(sdkPlain); got != want {
				t.Errorf("turn %d: text %q, want %q", turn, got, want)
			}
			if x.c.minChunks > 0 && res.Chunks < x.c.minChunks {
				t.Errorf("turn %d: the answer came in %d chunks, want a stream of %d or more", turn, res.Chunks, x.c.minChunks)
			}
			u := res.Usage
			if u == nil || u.Prompt != last.PromptTokens || u.Output <= 0 || u.Total != nil && *u.Total < u.Prompt+u.Output {
				t.Fatalf("turn %d: the SDK's usage %+v, the service billed %d prompt tokens", turn, u, last.PromptTokens)
			}
			if !x.lacks(t, "estimate") && (u.Estimate == nil || *u.Estimate < len(longText)/8) {
				t.Errorf("turn %d: the stream's first usage %v: no estimate of the prompt's %d tokens", turn, deref(u.Estimate), last.PromptTokens)
			}
			if x.lacks(t, "cache") {
				continue
			}
			if u.CacheRead == nil || *u.CacheRead != last.CachedTokens {
				t.Errorf("turn %d: cache reads %v, the service read %d", turn, deref(u.CacheRead), last.CachedTokens)
			}
			if !x.lacks(t, "cache writes") && (u.CacheWrite == nil || *u.CacheWrite != last.CacheWriteTokens) {
				t.Errorf("turn %d: cache writes %v, the service wrote %d", turn, deref(u.CacheWrite), last.CacheWriteTokens)
			}
			if turn == 2 && last.CachedTokens == 0 {
				t.Errorf("the second turn read nothing from the cache")
			}
		}
	}},

	{"two parallel tool calls and their results", func(t *testing.T, x *sdkRun) {
		c := sdkCase{Model: sdkPlain, User: parallelPrompt, Tools: []sdkTool{readTool}}
		res := x.turn(t, c)
		x.ok(t, res)
		if got := inputs(res, "Read"); !slices.Equal(got, wantReads) {
			t.Fatalf("the SDK assembled the calls %q, want %q", got, wantReads)
		}
		x.answered(t, c, res)
	}},

	{"a call without arguments", func(t *testing.T, x *sdkRun) {
		res := x.turn(t, sdkCase{Model: sdkPlain, User: noArgsPrompt, Tools: []sdkTool{statusTool}})
		x.ok(t, res)
		if got := inputs(res, "Status"); !slices.Equal(got, []string{`{}`}) {
			t.Fatalf("no call of Status with the input {}: %+v", res.Calls)
		}
	}},

	{"whole answers: two parallel calls and the usage", func(t *testing.T, x *sdkRun) {
		res := x.turn(t, sdkCase{Model: sdkPlain, User: parallelPrompt, Tools: []sdkTool{readTool}, Whole: true})
		x.ok(t, res)
		if got := inputs(res, "Read"); !slices.Equal(got, wantReads) {
			t.Errorf("the SDK read the calls %q, want %q", got, wantReads)
		}
		if u := res.Usage; u == nil || u.Prompt != x.last().PromptTokens || u.Output <= 0 {
			t.Errorf("usage %+v, the service billed %d prompt tokens", u, x.last().PromptTokens)
		}
	}},

	{"Gemini's thought signature through a tool call", func(t *testing.T, x *sdkRun) {
		c := sdkCase{Model: sdkGemini, User: toolPrompt, Tools: []sdkTool{readTool}}
		res := x.turn(t, c)
		x.ok(t, res)
		if len(res.Calls) != 1 || res.Calls[0].ID == "" || res.Calls[0].Input != wantReads[0] {
			t.Fatalf("calls %+v, want one call with an id reading README.md", res.Calls)
		}
		if x.c.seesSignatures && !res.Calls[0].Signed {
			t.Errorf("the call reached the client without the service's thought signature")
		}
		x.answered(t, c, res) // the stand-in refuses a call given back without its signature, as Gemini does
	}},

	{"the SDK aborts the stream: the service's answer is cancelled", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "slow-stream:50ms", -1)
		x.fails(t, x.turn(t, sdkCase{Model: sdkPlain, User: "hi", AbortOnText: true}), "abort")
		serviceCancelled(t, x.r)
	}},

	{"a rate limit: the error after the retries the headers time", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "429:100ms", -1)
		before := len(chatRequests(x.r))
		res := x.turn(t, sdkCase{Model: sdkPlain, User: "hi", MaxRetries: 2})
		e := x.fails(t, res, "429")
		tries := x.c.tries(2)
		if n := len(chatRequests(x.r)) - before; n != tries {
			t.Errorf("the service got %d requests, want %d", n, tries)
		}
		if e.Tries != nil && *e.Tries != tries {
			t.Errorf("the SDK's error counts %d attempts, want %d", *e.Tries, tries)
		}
		if !x.lacks(t, "error headers") && deref(e.RetryAfterMs) != "100" {
			t.Errorf("the SDK's error lacks the service's retry-after-ms: %+v", e)
		}
		retriedAsTold(t, res.recorded, tries, 429)
	}},

	{"a rate limit with Retry-After alone: the SDK waits its seconds", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "429:100ms", 1)
		x.f.mu.Lock()
		x.f.secondsOnly = true
		x.f.mu.Unlock()
		res := x.turn(t, sdkCase{Model: sdkPlain, User: "hi", MaxRetries: 2})
		x.ok(t, res)
		if len(res.Attempts) != 2 || res.Attempts[1].Status != 200 {
			t.Fatalf("attempts %+v, want a 429 then the answer", res.Attempts)
		}
		if a := res.Attempts[0]; deref(a.RetryAfter) != "1" || a.RetryAfterMs != nil {
			t.Errorf("the 429 reached the client with Retry-After %s, retry-after-ms %s; want 1 and none", deref(a.RetryAfter), deref(a.RetryAfterMs))
		}
		if !slices.Equal(res.Sleeps, []float64{1000}) {
			t.Errorf("the SDK slept %v ms before its retry, want [1000] (what Retry-After says)", res.Sleeps)
		}
	}},

	{"a rate limit that passes: the answer after two retries", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "429:100ms", 2)
		res := x.turn(t, sdkCase{Model: sdkPlain, User: "hi", MaxRetries: 2})
		x.ok(t, res)
		if res.Text != standin.Greeting(sdkPlain) {
			t.Errorf("text %q", res.Text)
		}
		retriedAsTold(t, res.recorded, 3, 200)
	}},

	{"overloaded (529): retried as the headers say", func(t *testing.T, x *sdkRun) { overloaded(t, x, "529") }},
	{"overloaded (503): retried as the headers say", func(t *testing.T, x *sdkRun) { overloaded(t, x, "503") }},

	{"the service's connection breaks mid-stream: the stream's error, not a truncated answer", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "reset:3", -1)
		res := x.turn(t, sdkCase{Model: sdkPlain, User: "hi", MaxRetries: 2})
		x.fails(t, res, "reset")
		if len(res.Attempts) != 1 {
			t.Errorf("attempts %+v", res.Attempts)
		}
	}},

	{"an unknown model: the error naming it and the id to use, not retried", func(t *testing.T, x *sdkRun) {
		res := x.turn(t, sdkCase{Model: "vendor-a/model-a-sonet-4.5", User: "hi", MaxRetries: 2})
		e := x.fails(t, res, "unknown model")
		if !strings.Contains(e.Message, "model not found / invalid model: ") || !strings.Contains(e.Message, "model-a-sonet-4.5") ||
			!strings.Contains(e.Message, "use the exact id: "+sonnet) {
			t.Errorf("the message %q does not name the model and the id to use", e.Message)
		}
		if len(res.Attempts) != 1 || !x.lacks(t, "should-retry") && deref(res.Attempts[0].ShouldRetry) != "false" {
			t.Errorf("attempts %+v: the SDK may retry what no retry fixes", res.Attempts)
		}
	}},

	{"context overflow: the protocol's words, not retried", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "overflow", -1)
		res := x.turn(t, sdkCase{Model: sdkPlain, User: "hi", MaxRetries: 2})
		x.fails(t, res, "overflow")
		if len(res.Attempts) != 1 || len(res.Sleeps) != 0 {
			t.Errorf("the SDK retried an overflow: %+v", res.recorded)
		}
	}},

	{"context overflow mid-stream: the stream's error in the protocol's words", func(t *testing.T, x *sdkRun) {
		x.f.set(t, "overflow:3", -1)
		res := x.turn(t, sdkCase{Model: sdkPlain, User: "hi", MaxRetries: 2})
		x.fails(t, res, "overflow mid-stream")
		if len(res.Attempts) != 1 || res.Attempts[0].Status != 200 {
			t.Errorf("attempts %+v", res.Attempts)
		}
	}},

	{"the service refuses gw's key: the error says so and what to do", func(t *testing.T, x *sdkRun) {
		other := newRig(t, rigOpts{key: func(context.Context) (string, error) { return "sk-wrong", nil }})
		res := x.turn(t, sdkCase{Base: other.base, Model: sdkPlain, User: "hi"})
		if e := x.fails(t, res, "wrong key"); !strings.Contains(e.Message, "API key invalid or unauthorized: ") || !strings.Contains(e.Message, " — ") {
			t.Errorf("the message %q does not say the key was refused and what to do", e.Message)
		}
	}},

	{"the service cannot be reached: the error says so, whole and streamed", func(t *testing.T, x *sdkRun) {
		closed := newRig(t, rigOpts{proxy: func(o *Options) { o.Upstream, _ = url.Parse("http://" + apitest.ClosedAddr(t) + "/v1") }})
		for _, whole := range []bool{true, false} {
			res := x.turn(t, sdkCase{Base: closed.base, Model: sdkPlain, User: "hi", Whole: whole})
			if e := x.fails(t, res, "unreachable"); !strings.Contains(e.Message, "unable to connect to API: ") || !strings.Contains(e.Message, " — ") {
				t.Errorf("the message %q does not say the service cannot be reached and what to do", e.Message)
			}
		}
	}},
}

func init() {
	// The reasoning of each dialect: streamed, whole, and before a tool
	// call in the same answer, given back with the call's result.
	for _, d := range sdkDialects {
		for _, how := range []string{"", "whole answers: ", "with a tool call: "} {
			sdkScenarios = append(sdkScenarios, sdkScenario{how + "reasoning given back: " + d.name, func(t *testing.T, x *sdkRun) {
				c := sdkCase{Model: d.model, User: "think first", Reasoning: true, Whole: how == "whole answers: "}
				if how == "with a tool call: " {
					c.User, c.Tools = toolPrompt, []sdkTool{readTool}
				}
				res := x.turn(t, c)
				x.ok(t, res)
				r := res.Reasoning
				if r.Text == "" {
					t.Errorf("no reasoning text: %+v", r)
				}
				if r.Signature == "" && !x.lacks(t, "reasoning signature") {
					t.Errorf("no signature: %+v", r)
				}
				if r.Sealed == "" && !x.lacks(t, "sealed reasoning") {
					t.Errorf("no redacted or encrypted reasoning: %+v", r)
				}
				switch {
				case c.Whole || x.lacks(t, "reasoning events"):
				case r.Signature != "" && !slices.Equal(r.Events, []string{r.Signature}):
					t.Errorf("the stream reported the signatures %q, the block has %q", r.Events, r.Signature)
				case r.Signature == "" && (len(r.Events) == 0 || !strings.Contains(r.Text, strings.Join(r.Events, ""))):
					t.Errorf("the stream reported %q of the reasoning %q as it came", r.Events, r.Text)
				}
				if x.lacks(t, "reasoning given back") {
					return
				}
				sent := x.last()
				if c.Tools != nil {
					if len(res.Calls) != 1 {
						t.Fatalf("calls %+v, want one after the reasoning", res.Calls)
					}
					x.answered(t, c, res)
				} else {
					c.History, c.User = res.History, "and now?"
					x.ok(t, x.turn(t, c))
				}
				x.gaveBack(t, sent, d.where)
			}})
		}
	}
}

// overloaded: a 529 or 503 the SDK retries once as the headers say.
func overloaded(t *testing.T, x *sdkRun, status string) {
	x.f.set(t, status+":100ms", -1)
	res := x.turn(t, sdkCase{Model: sdkPlain, User: "hi", MaxRetries: 1})
	e := x.fails(t, res, status)
	retriedAsTold(t, res.recorded, x.c.tries(1), *e.Status)
}

// TestSDK runs every scenario, and each client's own, for every client.
func TestSDK(t *testing.T) {
	for _, c := range sdkClients {
		t.Run(c.name, func(t *testing.T) {
			dir := sdkDir(t, c.dir, c.pkgs...)
			r, f := sdkRig(t)
			x := &sdkRun{c: &c, d: startSDK(t, r, c.script, dir, c.args...), r: r, f: f}
			for _, s := range append(slices.Clone(sdkScenarios), c.own...) {
				t.Run(s.name, func(t *testing.T) {
					if why, ok := c.lacks[s.name]; ok {
						t.Skip(why)
					}
					s.run(t, x)
				})
			}
		})
	}
}
