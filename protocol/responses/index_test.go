package responses

import (
	"github.com/modelgateway/gw/protocol/translate"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestReasoningEffort_OnlyForReasoningModels: reasoning.effort becomes
// reasoning_effort for the catalogue's reasoning models only, as on the
// Messages route: other models refuse the field.
func TestReasoningEffort_OnlyForReasoningModels(t *testing.T) {
	for _, c := range []struct {
		model string
		want  bool
	}{
		{"vendor-a/model-a-sonnet-4.5-thinking", true},
		{"vendor-b/model-b-3-pro-preview", true},
		{"vendor-a/model-a-sonnet-4.5", false},
		{"vendor-a/model-a-haiku-4.5", false},
		{"some/unknown-model", false},
	} {
		req, _, perr := ParseRequest(&translate.Request{Body: []byte(`{"model":"` + c.model + `","input":"hi","reasoning":{"effort":"high","summary":"auto"}}`)}, testEnv)
		if perr != nil {
			t.Fatal(perr)
		}
		b, _ := json.Marshal(req)
		if got := strings.Contains(string(b), `"reasoning_effort":"high"`); got != c.want {
			t.Errorf("%s: reasoning_effort sent = %v, want %v: %s", c.model, got, c.want, b)
		}
	}
}
