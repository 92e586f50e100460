package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestClaudeCodeWebSearch: the real Claude Code's WebSearch through gw
// serve. The service has no web search, so the search request Claude Code
// makes is refused with words saying so, and Claude Code hands them to the
// model as the tool's result: the model reads that no search was made
// instead of an empty search it might answer from.
func TestClaudeCodeWebSearch(t *testing.T) {
	claudeBinary(t)
	runStories(t, "GW_REQUIRE_CLAUDE_CODE", []story{{"NotAvailable", claudeWebSearch}}, nil)
}

func claudeWebSearch(t *testing.T, gw string) {
	claude := claudeBinary(t)
	key := newKey(t)
	svc := startService(t, key)
	m, serve, token := claudeSetup(t, gw, key, svc)
	env := append([]string{"ANTHROPIC_BASE_URL=http://" + serve.addr, "ANTHROPIC_API_KEY=" + token}, claudeModels(model)...)
	// WebSearch is one of Claude Code's deferred tools: the model loads it
	// with ToolSearch, then calls it.
	prompt := "1. Use the ToolSearch tool: `query=select:WebSearch`\n2. Use the WebSearch tool: `query=gw release notes`"
	p := m.start(t, append(claudeCodeEnv(), env...), claude, "-p", prompt, "--output-format", "json", "--allowedTools", "ToolSearch,WebSearch")
	_ = p.wait(t, 2*time.Minute)
	var res claudeResult
	if err := json.Unmarshal([]byte(p.stdout.String()), &res); err != nil || res.Type != "result" {
		t.Fatalf("claude printed no result (%v)\nstdout:\n%s\nstderr:\n%s", err, p.stdout, p.stderr)
	}
	t.Logf("Claude Code answers: %s", res.Result)
	if !strings.Contains(res.Result, "Web search is not available through this service") {
		t.Errorf("the model was not told that web search is not available: %+v\ngw serve:\n%s", res, serve.stderr)
	}
}
