package anthropic

import (
	tr "github.com/modelgateway/gw/protocol/translate"
	"net/http"
	"strings"
	"testing"
)

// What each part of a request becomes, request by request.
func TestParseRequestTranslates(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string // substrings of the chat request's JSON
		not        []string // must not appear
	}{{
		name: "system string, sampling, stop sequences",
		body: `{"model":"m","max_tokens":100,"system":"Be brief.","temperature":0.2,"top_p":0.9,"stop_sequences":["END"],
			"messages":[{"role":"user","content":"hi"}]}`,
		want: []string{`"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]`,
			`"max_tokens":100`, `"temperature":0.2`, `"top_p":0.9`, `"stop":["END"]`},
		not: []string{`"stream"`, `stream_options`},
	}, {
		name: "system blocks joined, billing line left out",
		body: `{"model":"m","max_tokens":1,"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=1; cch=abc;"},
			{"type":"text","text":"A"},{"type":"text","text":"B"}],
			"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
			"context_management":{"edits":[]},"some_future_field":{"x":1}}`,
		want: []string{`{"role":"system","content":"A\n\nB"}`, `{"role":"user","content":"hi"}`},
		not:  []string{"billing", `"user":`, "cache_control"},
	}, {
		name: "cache breakpoints stay on their blocks, the system prompt as parts; metadata.user_id is user",
		body: `{"model":"m","max_tokens":1,"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=1; cch=abc;"},
			{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B","cache_control":{"type":"ephemeral","ttl":"1h"}}],
			"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"there","cache_control":{"type":"ephemeral"}}]}],
			"metadata":{"user_id":"u"}}`,
		want: []string{`{"role":"system","content":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},` +
			`{"type":"text","text":"B","cache_control":{"type":"ephemeral","ttl":"1h"}}]}`,
			`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"there","cache_control":{"type":"ephemeral"}}]}`,
			`"user":"u"`},
		not: []string{"billing"},
	}, {
		name: "a system turn before the conversation joins the leading system message, later ones stay in place",
		body: `{"model":"m","max_tokens":1,"system":"S","messages":[{"role":"system","content":"first"},{"role":"user","content":"u1"},
			{"role":"system","content":[{"type":"text","text":"env"}]},{"role":"assistant","content":"a1"},
			{"role":"system","content":"later"},{"role":"user","content":"u2"}]}`,
		want: []string{`"messages":[{"role":"system","content":"S\n\nfirst"},{"role":"user","content":"u1"},{"role":"system","content":"env"},` +
			`{"role":"assistant","content":"a1"},{"role":"system","content":"later"},{"role":"user","content":"u2"}]`},
	}, {
		name: "images: base64 and url, text kept in order",
		body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"look"},
			{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"QUJD"}},
			{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}]}`,
		want: []string{`{"role":"user","content":[{"type":"text","text":"look"},` +
			`{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,QUJD"}},` +
			`{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}`},
	}, {
		name: "documents: a PDF as a file part, a text document as text",
		body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"},"title":"spec.pdf"},
			{"type":"document","source":{"type":"text","media_type":"text/plain","data":"plain words"}}]}]}`,
		want: []string{`{"type":"file","file":{"filename":"spec.pdf","file_data":"data:application/pdf;base64,JVBE"}}`,
			`{"type":"text","text":"plain words"}`},
	}, {
		name: "tool use and results: text, blocks, errors, several at once",
		body: `{"model":"m","max_tokens":1,"tools":[{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],
			"messages":[{"role":"user","content":"weather?"},
			{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Oslo"}},{"type":"tool_use","id":"t2","name":"get_weather","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"rain"},{"type":"text","text":"5C"}]},
			{"type":"tool_result","tool_use_id":"t2","content":"no city","is_error":true},{"type":"text","text":"and tomorrow?"}]}]}`,
		want: []string{
			`"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`,
			`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"t1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}},{"id":"t2","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`,
			`{"role":"tool","content":"rain\n5C","tool_call_id":"t1"},{"role":"tool","content":"Error: no city","tool_call_id":"t2"},{"role":"user","content":"and tomorrow?"}`,
		},
	}, {
		name: "tool_choice any, no parallel calls",
		body: `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object"}}],"tool_choice":{"type":"any","disable_parallel_tool_use":true},"messages":[{"role":"user","content":"x"}]}`,
		want: []string{`"tool_choice":"required","parallel_tool_calls":false`},
	}, {
		name: "tool_choice tool",
		body: `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"a"},"messages":[{"role":"user","content":"x"}]}`,
		want: []string{`"tool_choice":{"type":"function","function":{"name":"a"}}`},
	}, {
		name: "tool_choice none and auto",
		body: `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object"}}],"tool_choice":{"type":"none"},"messages":[{"role":"user","content":"x"}]}`,
		want: []string{`"tool_choice":"none"`},
	}, {
		name: "a server tool is left out",
		body: `{"model":"m","max_tokens":1,"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5},{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"x"}]}`,
		want: []string{`"tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]`},
		not:  []string{"web_search"},
	}, {
		name: "thinking another API signed goes back as plain reasoning without its signature; its redacted thinking is left out",
		body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"secret plan","signature":"EqoBsig"},{"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"ok"}]},
			{"role":"user","content":"y"}]}`,
		want: []string{`{"role":"assistant","content":"ok","reasoning_content":"secret plan"}`},
		not:  []string{"xyz", "EqoBsig"},
	}, {
		name: "unsigned thinking of an earlier answer goes back as reasoning_content, on the message with its tool call",
		body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":""},{"type":"tool_use","id":"c1","name":"Read","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"r"}]}]}`,
		want: []string{`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{}"}}],"reasoning_content":"plan"}`},
	}, {
		name: "an assistant turn of only thinking leaves nothing",
		body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":""}]},{"role":"user","content":"y"}]}`,
		want: []string{`"messages":[{"role":"user","content":"x"},{"role":"user","content":"y"}]`},
	}, {
		name: "reasoning model: budget tokens become an effort",
		body: `{"model":"vendor-a/model-a-opus-4.5-thinking","max_tokens":1,"thinking":{"type":"enabled","budget_tokens":10000},"messages":[{"role":"user","content":"x"}]}`,
		want: []string{`"reasoning_effort":"medium"`},
	}, {
		name: "reasoning model: adaptive thinking takes output_config.effort",
		body: `{"model":"vendor-b/model-b-3-pro-preview","max_tokens":1,"thinking":{"type":"adaptive"},"output_config":{"effort":"low"},"messages":[{"role":"user","content":"x"}]}`,
		want: []string{`"reasoning_effort":"low"`},
	}, {
		name: "a model that does not reason gets no reasoning_effort",
		body: `{"model":"vendor-a/model-a-sonnet-4.5","max_tokens":1,"thinking":{"type":"enabled","budget_tokens":30000},"messages":[{"role":"user","content":"x"}]}`,
		not:  []string{"reasoning_effort"},
	}, {
		name: "Claude Code's own model id passes unchanged",
		body: `{"model":"claude-sonnet-4-5-20250929","max_tokens":1,"messages":[{"role":"user","content":"x"}]}`,
		want: []string{`"model":"claude-sonnet-4-5-20250929"`},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := parse(t, []byte(c.body))
			got := mustJSON(t, req)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %s\nin %s", w, got)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("%q should not be in %s", n, got)
				}
			}
		})
	}
}

// Tool names chat completions does not allow are renamed for the service
// and mapped back; the history and tool_choice use the same names.
func TestParseRequestRenamesToolNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	body := `{"model":"m","max_tokens":1,"tools":[{"name":"mcp.server/do it","input_schema":{"type":"object"}},{"name":"` + long + `","input_schema":{"type":"object"}},{"name":"Read","input_schema":{"type":"object"}}],
		"tool_choice":{"type":"tool","name":"mcp.server/do it"},
		"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"mcp.server/do it","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}]}`
	req, meta := parse(t, []byte(body))
	var names []string
	for _, tl := range req.Tools {
		if !validName.MatchString(tl.Function.Name) {
			t.Errorf("function name %q is not allowed in chat completions", tl.Function.Name)
		}
		names = append(names, tl.Function.Name)
	}
	if names[2] != "Read" {
		t.Errorf("a valid name was renamed: %q", names[2])
	}
	if meta.toolName(names[0]) != "mcp.server/do it" || meta.toolName(names[1]) != long || meta.toolName("Read") != "Read" {
		t.Errorf("names %q do not map back: %v", names, meta.ToolNames)
	}
	if call := req.Messages[1].ToolCalls[0].Function.Name; call != names[0] {
		t.Errorf("the history's call is named %q, the tool %q", call, names[0])
	}
	if tc := mustJSON(t, req.ToolChoice); !strings.Contains(tc, names[0]) {
		t.Errorf("tool_choice %s does not name %q", tc, names[0])
	}
}

// Bad input is a 400 invalid_request_error naming the field and what to do.
func TestParseRequestRejects(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"empty body", ``, "the request body is empty"},
		{"not JSON", `{"model":`, "not valid JSON"},
		{"wrong type", `{"model":"m","messages":"hi"}`, "messages: is a JSON string where the Messages API expects an array"},
		{"no model", `{"messages":[{"role":"user","content":"x"}]}`, "model: is required; set the model id (run: gw models to list them)"},
		{"no messages", `{"model":"m","messages":[]}`, "messages: is empty"},
		{"unknown role", `{"model":"m","messages":[{"role":"tool","content":"x"}]}`, `messages[0].role: "tool" is not a role`},
		{"unknown block", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"video","source":{}}]}]}`,
			`messages[0].content[1].type: "video" is a content block gw serve cannot pass on`},
		{"block without type", `{"model":"m","messages":[{"role":"user","content":[{"text":"a"}]}]}`, `messages[0].content[0].type: is missing`},
		{"image from Anthropic's Files API", `{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]}`,
			`messages[0].content[0].source.type: "file": gw serve passes images as base64 or url sources only`},
		{"PDF by URL", `{"model":"m","messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}}]}]}`,
			`messages[0].content[0].source: a (no media_type) document of type "url" cannot be passed on`},
		{"image without source", `{"model":"m","messages":[{"role":"user","content":[{"type":"image"}]}]}`, `messages[0].content[0].source: is missing`},
		{"unknown block in a tool result", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"search_result"}]}]}]}`,
			`messages[0].content[0].content[0].type: "search_result"`},
		{"tool result without id", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]}`, `messages[0].content[0].tool_use_id: is missing`},
		{"server tool use in history", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}]}`,
			`messages[1].content[0].type: "server_tool_use" cannot be part of an assistant turn`},
		{"tool_use in a user turn", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_use","id":"t","name":"a","input":{}}]}]}`,
			`messages[0].content[0].type: tool_use belongs in an assistant turn`},
		{"image in a system prompt", `{"model":"m","system":[{"type":"image"}],"messages":[{"role":"user","content":"x"}]}`, `system[0].type: "image": a system prompt holds text blocks only`},
		{"unknown tool_choice", `{"model":"m","tool_choice":{"type":"some"},"messages":[{"role":"user","content":"x"}]}`, `tool_choice.type: "some" is not one of auto, any, tool, none`},
		{"tool_choice tool without name", `{"model":"m","tool_choice":{"type":"tool"},"messages":[{"role":"user","content":"x"}]}`, `tool_choice.name: is missing`},
		{"tool without name", `{"model":"m","tools":[{"input_schema":{}}],"messages":[{"role":"user","content":"x"}]}`, `tools[0].name: is missing`},
		{"schema not an object", `{"model":"m","tools":[{"name":"a","input_schema":"x"}],"messages":[{"role":"user","content":"x"}]}`, `tools[0].input_schema: must be a JSON schema object`},
		{"content of a wrong type", `{"model":"m","messages":[{"role":"user","content":42}]}`, `messages[0].content: must be a string or an array of content blocks`},
		{"block field of a wrong type", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`, `messages[0].content[0].text: is a JSON number where the Messages API expects a string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _, err := ParseRequest(&tr.Request{Body: []byte(c.body)}, tr.Env{})
			if err == nil {
				t.Fatalf("accepted: %s", mustJSON(t, req))
			}
			if err.Status != http.StatusBadRequest || err.Type != TypeInvalidRequest {
				t.Errorf("status %d type %s, want 400 invalid_request_error", err.Status, err.Type)
			}
			if !strings.Contains(err.Message, c.want) {
				t.Errorf("message %q\nwant it to contain %q", err.Message, c.want)
			}
		})
	}
}
