package proxy

import (
	"encoding/json"
	"github.com/modelgateway/gw/protocol/translate"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/modelgateway/gw/protocol/anthropic"
)

// messageStartInputTokens is the prompt size a Messages stream says at its
// start: message_start's input_tokens and cache counts.
func messageStartInputTokens(t *testing.T, stream string) int {
	t.Helper()
	evs, err := readEvents(strings.NewReader(stream))
	if err != nil || len(evs) == 0 || evs[0].name != "message_start" {
		t.Fatalf("no message_start (%v): %.300s", err, stream)
	}
	var ms struct {
		Message struct {
			Usage struct {
				InputTokens              int `json:"input_tokens"`
				CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
				CacheReadInputTokens     int `json:"cache_read_input_tokens"`
			} `json:"usage"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(evs[0].data), &ms); err != nil {
		t.Fatal(err)
	}
	u := ms.Message.Usage
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// TestMessageStartSaysWhatIsBilled replays the recorded Claude Code
// session (20 turns, claudeCodeSession) through gw serve and compares the
// prompt size message_start says (what Claude Code's context meter and
// LangChain read) with the prompt tokens the service then billed. From the
// second turn gw serve knows what the service billed for the turn before,
// which the next one repeats, and adds its estimate of what the turn adds:
// within 2% of what is billed. The estimate alone (four bytes a token, the
// first turn's figure) is reported beside it, measured in the same run.
// docs/benchmarks.md has the figures (go test -v -run this).
func TestMessageStartSaysWhatIsBilled(t *testing.T) {
	r := newRig(t, rigOpts{})
	turns := claudeCodeSession(t)
	var sumErr, sumEstErr, worst float64
	for i, body := range turns {
		res := r.do(waitCtx(t), "POST", "/v1/messages", body, http.Header{"Anthropic-Version": {"2023-06-01"}})
		stream := readAll(t, res)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("turn %d: %d %s", i+1, res.StatusCode, stream)
		}
		said := messageStartInputTokens(t, stream)
		seen := r.up.Seen()
		billed := seen[len(seen)-1].PromptTokens
		_, meta, perr := anthropic.ParseRequest(&translate.Request{Body: []byte(body)}, translate.Env{})
		if perr != nil {
			t.Fatal(perr)
		}
		errPct := 100 * math.Abs(float64(said-billed)) / float64(billed)
		estPct := 100 * math.Abs(float64(meta.InputTokens-billed)) / float64(billed)
		t.Logf("turn %2d: billed %6d, message_start %6d (%5.2f%% off), the estimate alone %6d (%5.2f%% off)", i+1, billed, said, errPct, meta.InputTokens, estPct)
		if i == 0 {
			continue
		}
		sumErr += errPct
		sumEstErr += estPct
		worst = max(worst, errPct)
		if errPct > 2 {
			t.Errorf("turn %d: message_start said %d input tokens, the service billed %d (%.2f%% off; goal 2%%)", i+1, said, billed, errPct)
		}
	}
	n := float64(len(turns) - 1)
	t.Logf("turns 2–%d: message_start off by %.2f%% on average (at most %.2f%%); the estimate alone by %.2f%%", len(turns), sumErr/n, worst, sumEstErr/n)
}
