package proxy

import (
	"strings"
	"testing"
)

// @anthropic-ai/sdk as the client of what the newest agents send: Claude
// Code's WebSearch request fails with the SDK's BadRequestError whose
// message says web search is not available (what Claude Code hands the
// model as the tool's result); structured output, a strict tool and an
// effort without a thinking block reach the service.
func TestSDKAnthropicContractThroughServe(t *testing.T) {
	dir := sdkDir(t, "anthropic-sdk", "@anthropic-ai/sdk")
	var up upstreamBodies
	r := newRig(t, rigOpts{wrapUp: up.wrap})
	sdk := startSDK(t, r, "anthropic.mjs", dir)
	run := func(p map[string]any) anthropicResult {
		t.Helper()
		var res anthropicResult
		sdk.run(t, map[string]any{"params": p, "maxRetries": 0}, &res)
		return res
	}

	t.Run("WebSearch", func(t *testing.T) {
		res := run(map[string]any{
			"model": sonnet, "max_tokens": 1024,
			"messages":    []any{map[string]any{"role": "user", "content": "Perform a web search for the query: gw"}},
			"tools":       []any{map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": 8}},
			"tool_choice": map[string]any{"type": "tool", "name": "web_search"},
		})
		if res.Error == nil || res.Error.Class != "BadRequestError" || res.Error.Status == nil || *res.Error.Status != 400 ||
			!strings.Contains(res.Error.Message, "Web search is not available through this service") {
			t.Errorf("the SDK got %+v, want a BadRequestError saying web search is not available", res.Error)
		}
		if up.count() != 0 {
			t.Errorf("the service was asked %d times", up.count())
		}
	})

	t.Run("structured output, a strict tool, an effort", func(t *testing.T) {
		schema := map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}},
			"required": []any{"answer"}, "additionalProperties": false}
		res := run(map[string]any{
			"model": thinkingModel, "max_tokens": 1024,
			"messages":      []any{map[string]any{"role": "user", "content": "hi"}},
			"output_config": map[string]any{"effort": "xhigh", "format": map[string]any{"type": "json_schema", "schema": schema}},
			"tools": []any{map[string]any{"name": "Read", "description": "Reads a file", "strict": true,
				"input_schema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}},
					"required": []any{"path"}, "additionalProperties": false}}},
		})
		if res.Error != nil || res.Message == nil {
			t.Fatalf("the SDK failed: %+v", res.Error)
		}
		c := up.last(t)
		if c.ReasoningEffort != "high" || !strings.Contains(string(c.ResponseFormat), `"type":"json_schema"`) ||
			len(c.Tools) != 1 || c.Tools[0].Function.Strict == nil || !*c.Tools[0].Function.Strict {
			t.Errorf("the service got %s", c.raw)
		}
	})
}
