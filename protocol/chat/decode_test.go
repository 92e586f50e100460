package chat

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestFieldPath(t *testing.T) {
	for _, c := range []struct{ parent, field, want string }{
		{"", "", ""},
		{"", "model", "model"},
		{"", "messages.0.content.1.text", "messages[0].content[1].text"},
		{"messages[0].content", "0.text", "messages[0].content[0].text"},
		{"tools", "3", "tools[3]"},
		{"input[2]", "content", "input[2].content"},
	} {
		if got := FieldPath(c.parent, c.field); got != c.want {
			t.Errorf("FieldPath(%q, %q) = %q, want %q", c.parent, c.field, got, c.want)
		}
	}
}

// eventCases are chunks as services send them.
var eventCases = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764000000,"model":"vendor-a/m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"héllo \"wörld\"\n\u00e9\ud83d\ude42"},"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"think","content":null}}]}`,
	`{"choices":[{"index":0,"delta":{"refusal":"no"}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"fi"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"le\"}"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":"END"}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":128001}]}`,
	`{"id":"c","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":1}}}`,
	`{"id":"c","choices":[],"usage":null}`,
	`{"error":{"message":"over quota","type":"insufficient_quota","code":"insufficient_quota"}}`,
	`{"error":null,"choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":1,"delta":{"content":"second"}},{"index":0,"delta":{"content":"first"}}]}`,
	` { "choices" : [ { "delta" : { "content" : "spaced" } } ] } `,
	`{"choices":[{"index":0,"delta":{"content":"x","extra":{"nested":[true,false,null,1e5]}},"logprobs":{"content":[]}}]}`,
	`{"choices":null}`, `{}`, `{"a":[1,{"b":null}],"c":{"d":[]}}`, `{"created":-0}`,
	`{"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "line\nnext \"q\""}, "finish_reason": null}]}`, // Python's json.dumps
	// the dialects of reasoning (OpenRouter, LiteLLM, Gemini)
	`{"choices":[{"index":0,"delta":{"reasoning":"th","reasoning_details":[{"type":"reasoning.text","text":"th","signature":null,"id":null,"format":"anthropic-claude-v1","index":0}]}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAA","format":"openai-responses-v1","index":1},{"type":"reasoning.summary","summary":"s"}]}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"t","thinking_blocks":[{"type":"thinking","thinking":"t","signature":"EqoB"}]}}]}`,
	`{"choices":[{"index":0,"delta":{"thinking_blocks":[{"type":"redacted_thinking","data":"EmwK"}],"reasoning_details":null,"thinking_blocks_x":1}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"f1","type":"function","function":{"name":"Read","arguments":"{}"},"extra_content":{"google":{"thought_signature":"CsgB"}}}]}}]}`,
	// and the ways a service might differ
	`{"Choices":[{"Index":0,"Delta":{"Content":"cased"}}]}`, `{"ID":"upper","id":"lower"}`, `{"id":"a","id":"b"}`,
	`{"\u0069d":"escaped name"}`, "{\"choices\":[{\"delta\":{\"content\":\"bad \xff utf8\"}}]}",
	`{"choices":[null]}`, `{"choices":[{"delta":null}]}`, `{"id":"x"} trailing`, `{"id":`, ``, `[]`, `null`,
	`{"choices":[{"index":"0"}]}`, `{"choices":[{"index":1.5}]}`, `{"id":5}`, `{"choices":{}}`, `{"usage":5}`,
	`{"choices":[{"delta":{"reasoning_details":{"type":"reasoning.text"}}}]}`, `{"choices":[{"delta":{"thinking_blocks":[{"type":5}]}}]}`,
}

// TestParseEventAsEncodingJSON: events decode as encoding/json decodes
// them.
func TestParseEventAsEncodingJSON(t *testing.T) {
	for _, data := range eventCases {
		var e Event
		err := ParseEvent([]byte(data), &e)
		var std struct {
			Chunk
			Error json.RawMessage `json:"error"`
		}
		stdErr := json.Unmarshal([]byte(data), &std)
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("%s: error %v, encoding/json's %v", data, err, stdErr)
		}
		if !reflect.DeepEqual(e.Chunk, std.Chunk) || e.IsError() != (len(std.Error) > 0 && string(std.Error) != "null") {
			t.Errorf("%s:\n got %+v\nencoding/json %+v", data, e, std)
		}
	}
}

func BenchmarkParseEvent(b *testing.B) {
	data := []byte(strings.Replace(eventCases[0], `"content":""`, `"content":"lorem ipsum dolor sit amet, cons"`, 1))
	b.Run("ParseEvent", func(b *testing.B) {
		var e Event
		b.ReportAllocs()
		for b.Loop() {
			if err := ParseEvent(data, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var e struct {
				Chunk
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(data, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMaxDepthIsTheDecoders: MaxDepth is the depth the decoder refuses
// past, and TooDeep tells that refusal apart: a chunk nested a million deep
// is an error, not a stack overflow.
func TestMaxDepthIsTheDecoders(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(`{"choices":[],"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
	}
	var ev Event
	if err := ParseEvent(nest(MaxDepth-2), &ev); err != nil {
		t.Errorf("a chunk nested %d deep: %v", MaxDepth, err)
	}
	if err := ParseEvent(nest(MaxDepth), &ev); !TooDeep(err) {
		t.Errorf("a chunk nested past %d: %v, want the decoder's depth error", MaxDepth, err)
	}
	if err := ParseEvent([]byte(`{"choices":`+strings.Repeat("[", 1_000_000)), &ev); !TooDeep(err) {
		t.Errorf("a chunk nested a million deep: %v", err)
	}
	if TooDeep(ParseEvent([]byte(`{"choices":[}`), &ev)) {
		t.Error("a plain syntax error taken for depth")
	}
}
