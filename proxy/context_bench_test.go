package proxy

import (
	"encoding/json"
	"github.com/modelgateway/gw/protocol/translate"
	"testing"

	"github.com/modelgateway/gw/protocol/anthropic"
)

// Context editing, measured: should gw serve apply a Messages request's
// context_management edits itself before translating? The Claude Code
// session of BenchmarkSessionCost is replayed through gw serve twice in
// the same run: as it is (gw serve ignores the edits), and with Anthropic's
// clear_tool_uses_20250919 applied to each request before it reaches gw
// serve (clearOldToolResults: once the prompt passes contextTrigger
// tokens, the results of all but the last 3 tool uses become a short
// placeholder), which is what applying it in gw serve would send. Both are
// billed by the stand-in's prompt cache.

const (
	contextTrigger = 15000
	contextKeep    = 3
	clearedResult  = "[This tool result was cleared to save context.]"
)

// clearOldToolResults applies clear_tool_uses to a Messages request body.
func clearOldToolResults(tb testing.TB, body string) string {
	_, meta, perr := anthropic.ParseRequest(&translate.Request{Body: []byte(body)}, translate.Env{})
	if perr != nil {
		tb.Fatal(perr)
	}
	if meta.InputTokens < contextTrigger {
		return body
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		tb.Fatal(err)
	}
	var results []map[string]any
	for _, m := range req["messages"].([]any) {
		blocks, ok := m.(map[string]any)["content"].([]any)
		if !ok {
			continue
		}
		for _, bl := range blocks {
			if b := bl.(map[string]any); b["type"] == "tool_result" {
				results = append(results, b)
			}
		}
	}
	for i := 0; i < len(results)-contextKeep; i++ {
		results[i]["content"] = clearedResult
	}
	return mustMarshal(tb, req)
}

// BenchmarkContextEdits reports billed input tokens with clear_tool_uses
// applied ÷ ignored (above 1: applying it costs more), and the prompt
// tokens sent each way.
func BenchmarkContextEdits(b *testing.B) {
	var applied, ignored sessionCost
	for b.Loop() {
		turns := claudeCodeSession(b)
		edited := make([]string, len(turns))
		for i, t := range turns {
			edited[i] = clearOldToolResults(b, t)
		}
		applied = replaySession(b, "/v1/messages", edited, messagesSegments)
		ignored = replaySession(b, "/v1/messages", turns, messagesSegments)
	}
	b.ReportMetric(applied.gwBill/ignored.gwBill, "applied/ignored")
	b.ReportMetric(applied.gwBill, "applied-billed")
	b.ReportMetric(ignored.gwBill, "ignored-billed")
	b.ReportMetric(float64(applied.gw.Prompt)/float64(ignored.gw.Prompt), "prompt-applied/ignored")
	b.ReportMetric(100*float64(applied.gw.Read)/float64(applied.gw.Prompt), "applied-cached-%")
	b.ReportMetric(100*float64(ignored.gw.Read)/float64(ignored.gw.Prompt), "ignored-cached-%")
}
