package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
)

// usages returns the usage of a stream's message_start and of its
// message_delta, as a client decodes them.
func usages(t *testing.T, raw string) (start, delta map[string]any) {
	t.Helper()
	for _, line := range strings.Split(raw, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Usage map[string]any `json:"usage"`
			} `json:"message"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		switch ev.Type {
		case "message_start":
			start = ev.Message.Usage
		case "message_delta":
			delta = ev.Usage
		}
	}
	return start, delta
}

func num(n int) *int { return &n }

// The service's counts in the shapes gateways report them, and what a
// Messages client reads: input_tokens without what was read from or
// written to the cache.
var usageCases = []struct {
	name                        string
	usage                       *chat.Usage
	input, created, read, outTk float64
}{
	{"OpenAI: cached_tokens", &chat.Usage{PromptTokens: 1200, CompletionTokens: 30,
		PromptTokensDetails: &chat.PromptTokensDetails{CachedTokens: 1000}}, 200, 0, 1000, 30},
	{"OpenRouter: cache_write_tokens", &chat.Usage{PromptTokens: 1200, CompletionTokens: 30,
		PromptTokensDetails: &chat.PromptTokensDetails{CachedTokens: 100, CacheWriteTokens: 900}}, 200, 900, 100, 30},
	{"LiteLLM: cache_creation_input_tokens and cache_read_input_tokens", &chat.Usage{PromptTokens: 1200, CompletionTokens: 30,
		CacheReadInputTokens: num(1000), CacheCreationInputTokens: num(150)}, 50, 150, 1000, 30},
	{"LiteLLM: prompt_tokens_details.cache_creation_tokens", &chat.Usage{PromptTokens: 1200, CompletionTokens: 30,
		PromptTokensDetails: &chat.PromptTokensDetails{CachedTokens: 1000, CacheCreationTokens: 150}}, 50, 150, 1000, 30},
	{"no cache", &chat.Usage{PromptTokens: 1200, CompletionTokens: 30}, 1200, 0, 0, 30},
	{"counts beyond the prompt are capped", &chat.Usage{PromptTokens: 100, CompletionTokens: 3,
		PromptTokensDetails: &chat.PromptTokensDetails{CachedTokens: 90, CacheWriteTokens: 50}}, 0, 10, 90, 3},
	{"no usage: the estimate", nil, 4321, 0, 0, 0},
}

func TestUsageWhole(t *testing.T) {
	meta := sonnet
	meta.Stream, meta.InputTokens = false, 4321
	text := "Hi."
	for _, c := range usageCases {
		t.Run(c.name, func(t *testing.T) {
			b, err := FromResponse(meta, &chat.Response{ID: "chatcmpl-1", Usage: c.usage,
				Choices: []chat.Choice{{Message: chat.ResponseMsg{Role: "assistant", Content: &text}, FinishReason: "stop"}}})
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Usage map[string]any `json:"usage"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"input_tokens": c.input, "cache_creation_input_tokens": c.created,
				"cache_read_input_tokens": c.read, "output_tokens": c.outTk}
			if !equalJSON(m.Usage, want) {
				t.Errorf("usage %v, want %v", m.Usage, want)
			}
		})
	}
}

// TestUsageStreamed: message_start carries the estimate, message_delta the
// service's counts as TestUsageWhole's; a service that streamed no usage
// leaves the estimate, so Claude Code's context meter does not drop to an
// empty context at the end of the answer.
func TestUsageStreamed(t *testing.T) {
	meta := sonnet
	meta.InputTokens = 4321
	for _, c := range usageCases {
		t.Run(c.name, func(t *testing.T) {
			chunks := []*chat.Chunk{translatetest.Text("Hi."), translatetest.Finish("stop")}
			if c.usage != nil {
				chunks = append(chunks, &chat.Chunk{Choices: []chat.ChunkChoice{}, Usage: c.usage})
			}
			_, raw := translate(t, meta, chunks, nil)
			start, delta := usages(t, raw)
			if start["input_tokens"] != 4321.0 || start["output_tokens"] != 0.0 {
				t.Errorf("message_start usage %v: want the estimate, 4321 input tokens", start)
			}
			want := map[string]any{"input_tokens": c.input, "cache_creation_input_tokens": c.created,
				"cache_read_input_tokens": c.read, "output_tokens": c.outTk}
			if !equalJSON(delta, want) {
				t.Errorf("message_delta usage %v, want %v", delta, want)
			}
		})
	}
}

// A recorded Claude Code request: message_start carries its estimate, the
// same number for the same request, in the order of its size.
func TestUsageEstimateOfRecordedRequest(t *testing.T) {
	body := recorded(t, "tool-round-trip")[1]
	_, meta := parse(t, body)
	_, again := parse(t, body)
	if meta.InputTokens != again.InputTokens || meta.InputTokens < len(body)/8 || meta.InputTokens > len(body)/3 {
		t.Fatalf("estimate %d (then %d) for a %d-byte request", meta.InputTokens, again.InputTokens, len(body))
	}
	var buf bytes.Buffer
	w := NewStreamWriter(&buf, meta)
	if err := w.Ping(); err != nil {
		t.Fatal(err)
	}
	start, _ := usages(t, buf.String())
	if start["input_tokens"] != float64(meta.InputTokens) {
		t.Errorf("message_start usage %v, want input_tokens %d", start, meta.InputTokens)
	}
}

func equalJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
