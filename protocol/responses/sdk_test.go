package responses

import (
	"bytes"
	"encoding/json"
	"github.com/modelgateway/gw/protocol/translate"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sdkDir finds the openai package in .cache/openai-sdk (install: npm
// install --prefix .cache/openai-sdk openai); without it, or without node,
// the test is skipped (fails when GW_REQUIRE_SDKS=1).
func sdkDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs node with the official SDK")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", ".cache", "openai-sdk"))
	if err == nil {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err == nil {
			return dir
		}
	}
	msg := "openai is not installed; install: npm install --prefix .cache/openai-sdk openai"
	if os.Getenv("GW_REQUIRE_SDKS") == "1" {
		t.Fatal(msg + " (GW_REQUIRE_SDKS=1)")
	}
	t.Skip(msg)
	return ""
}

// TestSDKResponseStreamKeepsReasoning runs the official openai SDK's
// responses.stream against the stream gw writes for signed reasoning and a
// Gemini tool call: the SDK must assemble the reasoning item's summary and
// text from the events and keep its encrypted_content and the call_id, and
// its output, sent back as the next input, must give the service the
// reasoning and the thought signature as they came.
func TestSDKResponseStreamKeepsReasoning(t *testing.T) {
	dir := sdkDir(t)
	var deltas []string
	for _, name := range []string{"openrouter-signed-text", "gemini-thought-signature"} {
		for _, c := range dialectCases {
			if c.name == name {
				deltas = append(deltas, c.chunks...)
			}
		}
	}
	// One call: Gemini's replaces the other's index 0.
	deltas[3] = strings.Replace(deltas[3], `"index":0`, `"index":1`, 1)
	stream := runStream(t, thinkingMeta(t, true), chunksOf(t, deltas, "tool_calls"), nil)
	tr := checkStream(t, stream)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/responses" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	}))
	defer srv.Close()

	cmd := exec.Command("node", filepath.Join("testdata", "sdk", "responsestream.mjs"), dir)
	cmd.Env = append(os.Environ(), "GW_BASE_URL="+srv.URL+"/v1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the SDK failed: %v\n%s\n%s", err, out, stderr.String())
	}
	var got struct {
		Output    []map[string]any `json:"output"`
		Summaries []string         `json:"summaries"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, it := range got.Output {
		delete(it, "parsed_arguments") // the SDK's own addition
	}
	if !reflect.DeepEqual(got.Output, tr.items) {
		t.Errorf("the SDK's output\n%v\ndiffers from the stream's items\n%v", got.Output, tr.items)
	}
	if strings.Join(got.Summaries, "") != "Plan it." {
		t.Errorf("the SDK saw the summary %q, want %q", got.Summaries, "Plan it.")
	}

	req, meta, perr := ParseRequest(&translate.Request{Body: nextInput(t, got.Output, `["reasoning.encrypted_content"]`)}, testEnv)
	if perr != nil {
		t.Fatal(perr)
	}
	if len(meta.Dropped) > 0 {
		t.Errorf("dropped %v", meta.Dropped)
	}
	asst := req.Messages[1]
	if len(asst.ReasoningDetails) != 1 || asst.ReasoningDetails[0].Signature != "EqoBCkgIARAB+/sig==" || asst.ReasoningDetails[0].Text != "Plan it." {
		t.Errorf("reasoning sent back: %s", mustJSONString(t, asst))
	}
	var calls []string
	for _, tc := range asst.ToolCalls {
		calls = append(calls, tc.ID+"="+tc.ExtraContent.ThoughtSignature())
	}
	if strings.Join(calls, ",") != "toolu_01=,function-call-4711=CsgBAdHtim9+/Zx==" {
		t.Errorf("tool calls sent back: %s", mustJSONString(t, asst.ToolCalls))
	}
}
