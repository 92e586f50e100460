package standin

import (
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// These tests use the official Go client as a real consumer of the stand-in.

func client(rs *Running, key string) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(rs.BaseURL),
		option.WithAPIKey(key),
		option.WithHTTPClient(rs.Client()),
		option.WithMaxRetries(0),
	)
}

func readTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name: "read",
		Parameters: openai.FunctionParameters{
			"type":       "object",
			"properties": map[string]any{"filePath": map[string]any{"type": "string"}},
			"required":   []string{"filePath"},
		},
	})
}

func TestOpenAIGo_StreamAccumulates(t *testing.T) {
	rs := start(t, Options{})
	c := client(rs, DemoKeyFull)
	stream := c.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
		Model:         "vendor-b/model-b-3-pro-preview",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Please call the read tool")},
		Tools:         []openai.ChatCompletionToolUnionParam{readTool()},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	var finishedTool *openai.FinishedChatCompletionToolCall
	chunks := 0
	for stream.Next() {
		chunks++
		if !acc.AddChunk(stream.Current()) {
			t.Fatalf("the accumulator refused chunk %d: %s", chunks, stream.Current().RawJSON())
		}
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finishedTool = &tc
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("%d choices", len(acc.Choices))
	}
	ch := acc.Choices[0]
	if !strings.Contains(ch.Message.Content, Greeting("vendor-b/model-b-3-pro-preview")) {
		t.Errorf("content %q", ch.Message.Content)
	}
	if len(ch.Message.ToolCalls) != 1 || ch.Message.ToolCalls[0].Function.Name != "read" ||
		ch.Message.ToolCalls[0].Function.Arguments != `{"filePath":"gw stand-in"}` || ch.FinishReason != "tool_calls" {
		t.Errorf("tool calls %+v finish %q", ch.Message.ToolCalls, ch.FinishReason)
	}
	if finishedTool == nil || finishedTool.Name != "read" {
		t.Errorf("the accumulator did not report the finished tool call")
	}
	if acc.Usage.TotalTokens == 0 || acc.Usage.TotalTokens != acc.Usage.PromptTokens+acc.Usage.CompletionTokens {
		t.Errorf("usage %+v", acc.Usage)
	}
}

func TestOpenAIGo_NonStreaming(t *testing.T) {
	rs := start(t, Options{})
	c := client(rs, DemoKeyPartial)
	resp, err := c.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
		Model:    "vendor-b/model-b-3-flash-preview",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage("Say hello")},
		Tools:    []openai.ChatCompletionToolUnionParam{readTool()},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != Greeting("vendor-b/model-b-3-flash-preview") || len(resp.Choices[0].Message.ToolCalls) != 0 {
		t.Errorf("message %+v", resp.Choices[0].Message)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
		t.Errorf("usage %+v", resp.Usage)
	}
}

func TestOpenAIGo_ListModels(t *testing.T) {
	rs := start(t, Options{})
	c := client(rs, DemoKeyPartial)
	pager := c.Models.ListAutoPaging(t.Context())
	var ids []string
	for pager.Next() {
		ids = append(ids, pager.Current().ID)
	}
	if err := pager.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != strings.Join(PartialPlan(), ",") {
		t.Errorf("ids %v, want %v", ids, PartialPlan())
	}
}

func TestOpenAIGo_Errors(t *testing.T) {
	rs := start(t, Options{})
	for _, tc := range []struct {
		key, model string
		status     int
		code       string
	}{
		{"sk-wrong", "vendor-a/model-a-haiku-4.5", 401, "invalid_api_key"},
		{DemoKeyNoBalance, "vendor-a/model-a-haiku-4.5", 402, "insufficient_quota"},
		{DemoKeyFull, "vendor-a/model-a-haiku-4-5", 404, "model_not_found"},
	} {
		c := client(rs, tc.key)
		_, err := c.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
			Model:    tc.model,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		})
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("%s: want an *openai.Error, got %v", tc.key, err)
		}
		if apiErr.StatusCode != tc.status || apiErr.Code != tc.code {
			t.Errorf("%s %s: status %d code %q, want %d %q", tc.key, tc.model, apiErr.StatusCode, apiErr.Code, tc.status, tc.code)
		}
		if strings.Contains(err.Error(), tc.key) {
			t.Errorf("error text contains the key: %v", err)
		}
	}
}

// The official client reads the cache counts where OpenAI puts them: a
// second request under the same prompt_cache_key reports its shared
// prefix as cached tokens, in steps of 128.
func TestOpenAIGo_CachedTokensUnderPromptCacheKey(t *testing.T) {
	rs := start(t, Options{})
	c := client(rs, DemoKeyFull)
	system := openai.SystemMessage(strings.Repeat("You are a careful assistant. ", 200))
	ask := func(msgs ...openai.ChatCompletionMessageParamUnion) *openai.ChatCompletion {
		t.Helper()
		resp, err := c.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
			Model:          "vendor-a/model-a-sonnet-4.6",
			Messages:       append([]openai.ChatCompletionMessageParamUnion{system}, msgs...),
			PromptCacheKey: openai.String("conversation-1"),
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := ask(openai.UserMessage("Say hello"))
	second := ask(openai.UserMessage("Say hello"), openai.AssistantMessage(first.Choices[0].Message.Content), openai.UserMessage("Again"))
	if got := first.Usage.PromptTokensDetails.CachedTokens; got != 0 {
		t.Errorf("first request: %d cached tokens", got)
	}
	got, prompt := second.Usage.PromptTokensDetails.CachedTokens, second.Usage.PromptTokens
	if want := first.Usage.PromptTokens / 128 * 128; got != want || prompt <= got {
		t.Errorf("second request: %d of %d prompt tokens cached, want %d (the first prompt, in steps of 128)", got, prompt, want)
	}
}
