package anthropic

import (
	"bytes"
	"encoding/json"
	tr "github.com/modelgateway/gw/protocol/translate"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sdkDir finds @anthropic-ai/sdk in .cache/anthropic-sdk (install:
// npm install --prefix .cache/anthropic-sdk @anthropic-ai/sdk); without it,
// or without node, the test is skipped (fails when GW_REQUIRE_SDKS=1).
func sdkDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs node with the official SDK")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", ".cache", "anthropic-sdk"))
	if err == nil {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@anthropic-ai", "sdk", "package.json")); err == nil {
			return dir
		}
	}
	msg := "@anthropic-ai/sdk is not installed; install: npm install --prefix .cache/anthropic-sdk @anthropic-ai/sdk"
	if os.Getenv("GW_REQUIRE_SDKS") == "1" {
		t.Fatal(msg + " (GW_REQUIRE_SDKS=1)")
	}
	t.Skip(msg)
	return ""
}

// TestSDKMessageStreamKeepsSignatures runs the official SDK's MessageStream
// against the stream gw writes for every reasoning dialect, all in one
// answer: it must accept the signature_delta and redacted_thinking blocks
// and assemble exactly the blocks gw meant, and the assistant message the
// SDK assembled, sent back as it is, must give the service its reasoning
// in the dialect it came in.
func TestSDKMessageStreamKeepsSignatures(t *testing.T) {
	dir := sdkDir(t)
	var deltas []string
	for _, name := range []string{"openrouter-signed-text", "litellm-thinking-blocks", "gemini-thought-signature"} {
		for _, c := range dialectCases {
			if c.name == name {
				deltas = append(deltas, c.chunks...)
			}
		}
	}
	stream := streamOf(t, deltas, "tool_calls")
	want, err := checkStream(stream)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(stream))
	}))
	defer srv.Close()

	cmd := exec.Command("node", filepath.Join("testdata", "sdk", "messagestream.mjs"), dir)
	cmd.Env = append(os.Environ(), "GW_BASE_URL="+srv.URL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the SDK failed: %v\n%s\n%s", err, out, stderr.String())
	}
	var got struct {
		Message struct {
			Content []map[string]any `json:"content"`
		} `json:"message"`
		Signatures []string `json:"signatures"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var sdkBlocks []answerBlock
	var wantSigs []string
	for _, b := range want.blocks {
		if b.signature != "" {
			wantSigs = append(wantSigs, b.signature)
		}
	}
	for _, c := range got.Message.Content {
		s := func(k string) string { v, _ := c[k].(string); return v }
		b := answerBlock{kind: s("type"), text: s("text"), thinking: s("thinking"), signature: s("signature"), data: s("data"), id: s("id"), name: s("name")}
		if b.kind == "tool_use" {
			in, _ := json.Marshal(c["input"])
			b.input = string(in)
		}
		sdkBlocks = append(sdkBlocks, b)
	}
	if !reflect.DeepEqual(sdkBlocks, want.blocks) {
		t.Errorf("the SDK assembled\n%+v\nwant\n%+v", sdkBlocks, want.blocks)
	}
	if !reflect.DeepEqual(got.Signatures, wantSigs) {
		t.Errorf("the SDK reported signatures %q, want %q", got.Signatures, wantSigs)
	}

	// The SDK's message, as a client sends it back.
	content, _ := json.Marshal(got.Message.Content)
	body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + string(content) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":` + jsonQuote(sdkBlocks[len(sdkBlocks)-1].id) + `,"content":"r"}]}]}`
	req, meta, perr := ParseRequest(&tr.Request{Body: []byte(body)}, tr.Env{})
	if perr != nil {
		t.Fatal(perr)
	}
	if len(meta.Dropped) > 0 {
		t.Errorf("dropped %v", meta.Dropped)
	}
	asst := req.Messages[1]
	if len(asst.ReasoningDetails) != 1 || asst.ReasoningDetails[0].Signature != "EqoBCkgIARAB+/sig==" ||
		len(asst.ThinkingBlocks) != 2 || asst.ThinkingBlocks[0].Signature != "EuYBCkQYAiJA/sig" || asst.ThinkingBlocks[1].Data != "EmwKAhgBEgy3va" {
		t.Errorf("reasoning sent back: %s", mustJSON(t, asst))
	}
	var sigs []string
	for _, tc := range asst.ToolCalls {
		sigs = append(sigs, tc.ID+"="+tc.ExtraContent.ThoughtSignature())
	}
	if strings.Join(sigs, ",") != "toolu_01=,function-call-4711=CsgBAdHtim9+/Zx==" {
		t.Errorf("tool calls sent back: %s", mustJSON(t, asst.ToolCalls))
	}
	if last := req.Messages[len(req.Messages)-1]; last.ToolCallID != "function-call-4711" {
		t.Errorf("tool message %s", mustJSON(t, last))
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
