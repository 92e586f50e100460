package responses

import (
	"encoding/json"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
)

// Codex's prompt_cache_key (one per session) reaches the service as chat
// prompt_cache_key, in every recorded request; the response's events carry
// the prompt's estimate until the service's counts replace it.
func TestRecordedPromptCacheKeyAndEstimate(t *testing.T) {
	for i := 1; i <= 5; i++ {
		body, err := os.ReadFile(filepath.Join("testdata", "codex", fmt.Sprintf("request%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			PromptCacheKey string `json:"prompt_cache_key"`
		}
		if err := json.Unmarshal(body, &r); err != nil || r.PromptCacheKey == "" {
			t.Fatalf("request%d has no prompt_cache_key: %v", i, err)
		}
		req, meta, perr := ParseRequest(&translate.Request{Body: body}, testEnv)
		if perr != nil {
			t.Fatal(perr)
		}
		if req.PromptCacheKey != r.PromptCacheKey {
			t.Errorf("request%d: prompt_cache_key %q, want Codex's %q", i, req.PromptCacheKey, r.PromptCacheKey)
		}
		if b, _ := json.Marshal(req); !strings.Contains(string(b), `"prompt_cache_key":"`+r.PromptCacheKey+`"`) {
			t.Errorf("request%d: the chat request on the wire lacks prompt_cache_key", i)
		}
		if meta.InputTokens < len(body)/10 || meta.InputTokens > len(body)/3 {
			t.Errorf("request%d: estimated %d input tokens for a %d-byte request", i, meta.InputTokens, len(body))
		}
		evs := parseSSE(t, runStream(t, meta, []chat.Chunk{text("ok"), finish("stop")}, nil))
		for _, ev := range evs[:2] {
			u, _ := ev.data["response"].(map[string]any)["usage"].(map[string]any)
			if num(u["input_tokens"]) != meta.InputTokens || num(u["total_tokens"]) != meta.InputTokens || num(u["output_tokens"]) != 0 {
				t.Errorf("request%d: %s usage %v, want the estimate %d", i, ev.name, u, meta.InputTokens)
			}
		}
	}
}

func TestUserAndSafetyIdentifierKept(t *testing.T) {
	for _, c := range []struct{ body, user string }{
		{`{"model":"m","input":"hi","user":"u1"}`, "u1"},
		{`{"model":"m","input":"hi","safety_identifier":"s1"}`, "s1"},
		{`{"model":"m","input":"hi","user":"u1","safety_identifier":"s1"}`, "u1"},
	} {
		req, _, err := ParseRequest(&translate.Request{Body: []byte(c.body)}, testEnv)
		if err != nil || req.User != c.user || req.PromptCacheKey != "" {
			t.Errorf("%s: user %q, prompt_cache_key %q, %v; want user %q", c.body, req.User, req.PromptCacheKey, err, c.user)
		}
	}
}
