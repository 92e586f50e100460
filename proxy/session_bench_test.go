package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/standin"
)

// The cost of a session: a recorded Claude Code session and a Codex session
// of sessionTurns turns each, replayed through gw serve's handler to the
// stand-in (which caches prompts as the gateways do, see standin.PromptCache)
// and billed as the agent's native API would bill the same requests.
//
// Billed input tokens weigh each prompt token by its price relative to an
// uncached input token, as Anthropic and OpenAI price them: uncached 1,
// read from the cache 0.1, written to the cache 1.25 (Anthropic's 5-minute
// cache; OpenAI bills no writes). The same weights apply to what the
// stand-in reports for gw's requests, and both sides count tokens with the
// stand-in's estimate, so the ratio shows what gw's translation loses of
// caching (and adds in tokens), not a tokenizer's difference.
//
// The native side runs the same cache model (standin.PromptCache) on the
// native request: Anthropic's breakpoints on tools, system blocks and
// message blocks, read tools first; OpenAI's prefix caching under the
// Responses request's prompt_cache_key.

const sessionTurns = 20

// Prices of prompt tokens relative to an uncached input token.
const (
	priceCacheRead  = 0.1
	priceCacheWrite = 1.25
)

func billed(u standin.CacheUse) float64 {
	return float64(u.Prompt-u.Read-u.Write) + priceCacheRead*float64(u.Read) + priceCacheWrite*float64(u.Write)
}

// sessionCost is a replayed session's totals.
type sessionCost struct {
	native, gw         standin.CacheUse // summed over the turns
	nativeBill, gwBill float64
}

func (c *sessionCost) add(native, gw standin.CacheUse) {
	c.native.Prompt += native.Prompt
	c.native.Read += native.Read
	c.native.Write += native.Write
	c.gw.Prompt += gw.Prompt
	c.gw.Read += gw.Read
	c.gw.Write += gw.Write
	c.nativeBill += billed(native)
	c.gwBill += billed(gw)
}

// BenchmarkSessionCost replays both sessions and reports billed input
// tokens through gw ÷ native (goal ≤ 1.05), and each side's totals.
// scripts/bench-session.sh prints them as a table.
func BenchmarkSessionCost(b *testing.B) {
	for _, s := range []struct {
		name, path string
		turns      func(testing.TB) []string
		native     func(testing.TB, string) (model, key string, segs []standin.Segment)
	}{
		{"claude-code", "/v1/messages", claudeCodeSession, messagesSegments},
		{"claude-code-system-turns", "/v1/messages", claudeCodeSystemTurnsSession, messagesSegments},
		{"codex", "/v1/responses", codexSession, responsesSegments},
	} {
		b.Run(s.name, func(b *testing.B) {
			turns := s.turns(b)
			var cost sessionCost
			for b.Loop() {
				cost = replaySession(b, s.path, turns, s.native)
			}
			b.ReportMetric(cost.gwBill/cost.nativeBill, "gw/native")
			b.ReportMetric(cost.nativeBill, "native-billed")
			b.ReportMetric(cost.gwBill, "gw-billed")
			b.ReportMetric(float64(cost.native.Prompt), "native-prompt")
			b.ReportMetric(float64(cost.gw.Prompt), "gw-prompt")
			b.ReportMetric(100*float64(cost.native.Read)/float64(cost.native.Prompt), "native-cached-%")
			b.ReportMetric(100*float64(cost.gw.Read)/float64(max(1, cost.gw.Prompt)), "gw-cached-%")
		})
	}
}

// replaySession sends the turns through gw to a fresh stand-in and bills
// each as the stand-in did and as the native API would.
func replaySession(tb testing.TB, path string, turns []string, native func(testing.TB, string) (string, string, []standin.Segment)) sessionCost {
	up := standin.New(standin.Options{})
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	defer up.Close()
	upURL, _ := url.Parse(upSrv.URL + "/v1")
	tr := api.NewTransport(api.TransportOptions{})
	defer tr.CloseIdleConnections()
	gw, err := New(Options{Upstream: upURL, Transport: tr, LocalToken: testToken, Log: io.Discard,
		Key: NewKeyCache(func(context.Context) (string, error) { return realKey, nil }, 0), Warm: WarmOptions{Off: true}})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	client := srv.Client()

	nativeCache := standin.NewPromptCache(nil)
	var cost sessionCost
	for i, body := range turns {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		res, err := client.Do(req)
		if err != nil {
			tb.Fatalf("turn %d: %v", i+1, err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			tb.Fatalf("turn %d: %d %s", i+1, res.StatusCode, answer)
		}
		seen := up.Seen()
		last := seen[len(seen)-1]
		if last.Path != "/v1/chat/completions" || !last.Done || last.Status != http.StatusOK {
			tb.Fatalf("turn %d: the stand-in saw %+v", i+1, last)
		}
		gwUse := standin.CacheUse{Prompt: last.PromptTokens, Read: last.CachedTokens, Write: last.CacheWriteTokens}
		model, key, segs := native(tb, body)
		nativeUse := nativeCache.Use("native", model, key, segs)
		cost.add(nativeUse, gwUse)
		if os.Getenv("GW_BENCH_SESSION_TURNS") != "" {
			tb.Logf("%s turn %2d: native prompt %6d read %6d write %6d billed %8.1f | gw prompt %6d read %6d write %6d billed %8.1f",
				path, i+1, nativeUse.Prompt, nativeUse.Read, nativeUse.Write, billed(nativeUse),
				gwUse.Prompt, gwUse.Read, gwUse.Write, billed(gwUse))
		}
	}
	return cost
}

func readJSONFile(tb testing.TB, path string) map[string]any {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		tb.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

func mustMarshal(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// fileText is the synthetic content of the file a turn reads: numbered
// lines of code, different per turn, about 2 KB.
func fileText(turn int) string {
	var b strings.Builder
	for line := 1; line <= 40; line++ {
		fmt.Fprintf(&b, "%d\tfunc step%d_%d(x int) int { return x*%d + %d }\n", line, turn, line, turn, line)
	}
	return b.String()
}

// claudeCodeSession is the recorded Claude Code session (tools, system
// prompt, the first two requests) grown to sessionTurns turns as Claude
// Code grows it: each turn adds the previous answer (a text and a Read
// tool call) and the tool's result, and moves the last breakpoint to the
// new last block. Claude Code's other breakpoints, on two system blocks,
// stay where they are.
func claudeCodeSession(tb testing.TB) []string {
	first := readJSONFile(tb, "protocol/anthropic/testdata/claude-code/tool-round-trip/request-1.json")
	second := readJSONFile(tb, "protocol/anthropic/testdata/claude-code/tool-round-trip/request-2.json")
	turns := []string{mustMarshal(tb, first), mustMarshal(tb, second)}
	req := second
	for turn := 3; turn <= sessionTurns; turn++ {
		msgs := req["messages"].([]any)
		lastBlocks := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
		for _, bl := range lastBlocks {
			delete(bl.(map[string]any), "cache_control")
		}
		id := fmt.Sprintf("toolu_session_%02d", turn)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": fmt.Sprintf("Step %d: I will read the next file.", turn)},
				map[string]any{"type": "tool_use", "id": id, "name": "Read",
					"input": map[string]any{"file_path": fmt.Sprintf("/home/user/project/step%d.go", turn)}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": id, "content": fileText(turn),
					"cache_control": map[string]any{"type": "ephemeral"}},
			}},
		)
		req["messages"] = msgs
		turns = append(turns, mustMarshal(tb, req))
	}
	return turns
}

// claudeCodeSystemTurnsSession is claudeCodeSession with a system turn
// said in the middle of the conversation every systemTurnEvery turns (a
// reminder of what changed, as Claude Code and its hooks add them), after
// the tool's result, and kept in the requests that follow.
func claudeCodeSystemTurnsSession(tb testing.TB) []string {
	turns := claudeCodeSession(tb)
	var said []int // the turns after which a system turn was said
	for i := range turns {
		var req map[string]any
		if err := json.Unmarshal([]byte(turns[i]), &req); err != nil {
			tb.Fatal(err)
		}
		if turn := i + 1; turn > 2 && turn%systemTurnEvery == 0 {
			said = append(said, turn)
		}
		if len(said) == 0 {
			continue
		}
		// Each system turn goes after the tool result of its turn: the
		// messages of turn n (n ≥ 2) end at index 2n-1 of the recorded
		// layout, before any system turn is added.
		msgs := req["messages"].([]any)
		var out []any
		next := 0
		for j, m := range msgs {
			out = append(out, m)
			if next < len(said) && j == 2*said[next]-1 {
				out = append(out, map[string]any{"role": "system", "content": fmt.Sprintf(
					"<system-reminder>\nTurn %d: the file step%d.go was changed on disk since it was read. Read it again before editing it.\n</system-reminder>", said[next], said[next])})
				next++
			}
		}
		req["messages"] = out
		turns[i] = mustMarshal(tb, req)
	}
	return turns
}

// systemTurnEvery is how often claudeCodeSystemTurnsSession says a system
// turn.
const systemTurnEvery = 4

// codexSession is the recorded Codex session (its first four requests, one
// prompt_cache_key) grown to sessionTurns turns the way Codex grows it:
// alternately a tool round (reasoning, a function call and its output) and
// a conversational round (the assistant's answer and the user's next ask).
func codexSession(tb testing.TB) []string {
	var turns []string
	var req map[string]any
	for n := 1; n <= 4; n++ {
		req = readJSONFile(tb, fmt.Sprintf("protocol/responses/testdata/codex/request%d.json", n))
		turns = append(turns, mustMarshal(tb, req))
	}
	for turn := 5; turn <= sessionTurns; turn++ {
		input := req["input"].([]any)
		call := fmt.Sprintf("call_session_%02d", turn)
		if turn%2 == 1 {
			input = append(input,
				map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_session_%02d", turn), "encrypted_content": nil,
					"summary": []any{map[string]any{"type": "summary_text", "text": "The user wants the next file."}},
					"content": []any{map[string]any{"type": "reasoning_text", "text": "I will read the next file."}}},
				map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_session_%02d", turn), "call_id": call, "name": "exec_command",
					"arguments": fmt.Sprintf(`{"cmd":"cat step%d.go"}`, turn), "status": "completed"},
				map[string]any{"type": "function_call_output", "call_id": call,
					"output": "Process exited with code 0\nOutput:\n" + fileText(turn)},
			)
		} else {
			input = append(input,
				map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_session_%02d", turn), "status": "completed",
					"content": []any{map[string]any{"type": "output_text", "text": fmt.Sprintf("Read step %d.", turn-1), "annotations": []any{}}}},
				map[string]any{"type": "message", "role": "user",
					"content": []any{map[string]any{"type": "input_text", "text": fmt.Sprintf("Now read step%d.go", turn+1)}}},
			)
		}
		req["input"] = input
		turns = append(turns, mustMarshal(tb, req))
	}
	return turns
}

// nativeCC is a cache_control as the native APIs take it.
type nativeCC struct {
	Type string `json:"type"`
	TTL  string `json:"ttl"`
}

func breakpoint(cc *nativeCC) string {
	switch {
	case cc == nil:
		return ""
	case cc.TTL == "1h":
		return "1h"
	default:
		return "5m"
	}
}

// textOf is the text of a string or an array of text blocks.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// messagesSegments cuts a Messages API request as Anthropic reads it for
// caching: tools, then system blocks, then each message's blocks; 3 tokens
// more per message (the system prompt counting as one), as the stand-in
// counts chat messages.
func messagesSegments(tb testing.TB, body string) (string, string, []standin.Segment) {
	var req struct {
		Model string `json:"model"`
		Tools []struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"input_schema"`
			CacheControl *nativeCC       `json:"cache_control"`
		} `json:"tools"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		tb.Fatal(err)
	}
	type block struct {
		Type         string          `json:"type"`
		Text         string          `json:"text"`
		Name         string          `json:"name"`
		Input        json.RawMessage `json:"input"`
		Content      json.RawMessage `json:"content"`
		CacheControl *nativeCC       `json:"cache_control"`
	}
	blocksOf := func(raw json.RawMessage) []block {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []block{{Type: "text", Text: s}}
		}
		var bl []block
		_ = json.Unmarshal(raw, &bl)
		return bl
	}
	var segs []standin.Segment
	for _, t := range req.Tools {
		desc := t.Name + "\x00" + t.Description + "\x00" + string(t.InputSchema)
		segs = append(segs, standin.Segment{Key: "tool\x00" + desc, Tokens: standin.EstimateTokens(desc), Breakpoint: breakpoint(t.CacheControl)})
	}
	add := func(role string, blocks []block) {
		first := len(segs)
		for _, bl := range blocks {
			var text string
			switch bl.Type {
			case "text":
				text = bl.Text
			case "tool_use":
				text = bl.Name + "\x00" + string(bl.Input)
			case "tool_result":
				text = textOf(bl.Content)
			case "image", "document":
				segs = append(segs, standin.Segment{Key: role + "\x00" + string(bl.Content), Tokens: 256, Breakpoint: breakpoint(bl.CacheControl)})
				continue
			default: // thinking: not part of the prompt
				continue
			}
			segs = append(segs, standin.Segment{Key: role + "\x00" + bl.Type + "\x00" + text, Tokens: standin.EstimateTokens(text), Breakpoint: breakpoint(bl.CacheControl)})
		}
		if len(segs) == first {
			segs = append(segs, standin.Segment{Key: role + "\x00empty"})
		}
		segs[first].Tokens += 3
		segs[first].Key = "message\x00" + segs[first].Key
	}
	if len(req.System) > 0 {
		add("system", blocksOf(req.System))
	}
	for _, m := range req.Messages {
		add(m.Role, blocksOf(m.Content))
	}
	return req.Model, "", segs
}

// responsesSegments cuts a Responses API request as OpenAI's prefix cache
// reads it: instructions, tools, then each input item; 3 tokens more per
// item. The key is the request's prompt_cache_key.
func responsesSegments(tb testing.TB, body string) (string, string, []standin.Segment) {
	var req struct {
		Model          string            `json:"model"`
		Instructions   string            `json:"instructions"`
		Tools          []json.RawMessage `json:"tools"`
		Input          []json.RawMessage `json:"input"`
		PromptCacheKey string            `json:"prompt_cache_key"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		tb.Fatal(err)
	}
	var segs []standin.Segment
	add := func(kind, text string) {
		segs = append(segs, standin.Segment{Key: kind + "\x00" + text, Tokens: standin.EstimateTokens(text) + 3})
	}
	if req.Instructions != "" {
		add("instructions", req.Instructions)
	}
	var addTools func([]json.RawMessage)
	addTools = func(tools []json.RawMessage) {
		for _, t := range tools {
			var tool struct {
				Name        string            `json:"name"`
				Description string            `json:"description"`
				Parameters  json.RawMessage   `json:"parameters"`
				Format      json.RawMessage   `json:"format"`
				Tools       []json.RawMessage `json:"tools"` // a namespace's
			}
			_ = json.Unmarshal(t, &tool)
			desc := tool.Name + "\x00" + tool.Description + "\x00" + string(tool.Parameters) + string(tool.Format)
			segs = append(segs, standin.Segment{Key: "tool\x00" + desc, Tokens: standin.EstimateTokens(desc)})
			addTools(tool.Tools)
		}
	}
	addTools(req.Tools)
	for _, raw := range req.Input {
		var item struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Input     string          `json:"input"`
			Output    json.RawMessage `json:"output"`
		}
		_ = json.Unmarshal(raw, &item)
		switch item.Type {
		case "message":
			add(item.Role, textOf(item.Content))
		case "function_call":
			add(item.Type, item.Name+"\x00"+item.Arguments)
		case "custom_tool_call":
			add(item.Type, item.Name+"\x00"+item.Input)
		case "function_call_output", "custom_tool_call_output":
			add(item.Type, textOf(item.Output))
		default: // reasoning: carried encrypted or not at all, not counted
			segs = append(segs, standin.Segment{Key: item.Type + "\x00" + string(raw)})
		}
	}
	return req.Model, req.PromptCacheKey, segs
}

// TestSessionCost_Replays keeps BenchmarkSessionCost from rotting: both
// sessions replay through gw turn after turn, the native side caches most
// of each prompt as the native APIs would, and gw's translation sends about
// as many prompt tokens as the native request holds (the benchmark's ratio
// then measures caching, not counting). It does not hold gw to the
// benchmark's goal.
func TestSessionCost_Replays(t *testing.T) {
	for name, s := range map[string]struct {
		path   string
		turns  func(testing.TB) []string
		native func(testing.TB, string) (string, string, []standin.Segment)
	}{
		"claude-code":              {"/v1/messages", claudeCodeSession, messagesSegments},
		"claude-code-system-turns": {"/v1/messages", claudeCodeSystemTurnsSession, messagesSegments},
		"codex":                    {"/v1/responses", codexSession, responsesSegments},
	} {
		turns := s.turns(t)
		if len(turns) != sessionTurns {
			t.Fatalf("%s: %d turns, want %d", name, len(turns), sessionTurns)
		}
		cost := replaySession(t, s.path, turns, s.native)
		if share := float64(cost.native.Read) / float64(cost.native.Prompt); share < 0.8 {
			t.Errorf("%s: the native API would read %.0f%% of the prompts from its cache; want most of them", name, 100*share)
		}
		if r := float64(cost.gw.Prompt) / float64(cost.native.Prompt); r < 0.97 || r > 1.03 {
			t.Errorf("%s: gw sent %d prompt tokens for the native %d (%.3f×); the replay or the counting is off", name, cost.gw.Prompt, cost.native.Prompt, r)
		}
	}
}
