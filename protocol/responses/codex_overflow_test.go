package responses

import (
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCodex_ContextOverflow: the real Codex CLI takes a context overflow of
// the service, whole or mid-stream, in the dialects of gateways that do not
// send OpenAI's code (LiteLLM, OpenRouter), for what it is (its "context window"
// error, not retried), not for a failure to reconnect to.
func TestCodex_ContextOverflow(t *testing.T) {
	codex := findCodex(t)
	for _, c := range []struct {
		dialect  string
		inStream bool
	}{
		{"litellm", false}, {"litellm", true}, {"openrouter", false}, {"openrouter", true},
	} {
		name := c.dialect + map[bool]string{false: "/Whole", true: "/InStream"}[c.inStream]
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			h := newHarnessUpstream(t, nil, translatetest.Refusing(overflowDialects[c.dialect], c.inStream, &calls))
			out, ok := runCodex(t, codex, h.srv.URL+"/v1", "vendor-a/model-a-sonnet-4.5", "say hello")
			t.Logf("codex (ok %v, %d requests):\n%s", ok, calls.Load(), out)
			if ok || strings.Contains(out, "Reconnecting") || calls.Load() != 1 {
				t.Errorf("codex retried or succeeded (ok %v, %d requests)", ok, calls.Load())
			}
			if !strings.Contains(out, "ran out of room in the model's context window") {
				t.Errorf("codex does not say the context window is full")
			}
		})
	}
}
