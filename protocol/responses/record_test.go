package responses

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestRecordCodex re-records the golden requests in testdata/codex/ from the
// real Codex CLI: GW_RECORD_CODEX=/path/to/codex go test -run TestRecordCodex
// ./protocol/responses. Codex talks to a scripted Responses server on
// loopback that records every request body and answers like the OpenAI
// service would: a reasoning item and a call of the tool the prompt names,
// then, after the tool's output, a short answer. Machine-specific bits
// (temporary paths, ids, dates) are replaced so the goldens stay stable.
func TestRecordCodex(t *testing.T) {
	codex := os.Getenv("GW_RECORD_CODEX")
	if codex == "" {
		t.Skip("set GW_RECORD_CODEX to a codex binary to re-record testdata/codex/")
	}
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/responses" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		bodies = append(bodies, body)
		n := len(bodies)
		mu.Unlock()
		scriptedAnswer(w, body, n)
	}))
	defer srv.Close()

	home, project := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte("The secret word is pineapple.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(project, "dot.png")
	if err := os.WriteFile(png, tinyPNG(t), 0o600); err != nil {
		t.Fatal(err)
	}
	catalog := filepath.Join(home, "models.json")
	if err := os.WriteFile(catalog, []byte(codexCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{
		"--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"-c", "model_providers.gw.name=gw",
		"-c", "model_providers.gw.base_url=" + srv.URL + "/v1",
		"-c", "model_providers.gw.env_key=GW_LOCAL_TOKEN",
		"-c", "model_providers.gw.wire_api=responses",
		"-c", "model_provider=gw",
		"-c", "model=vendor-a/model-a-sonnet-4.5",
		"-c", "model_catalog_json=" + strconvQuote(catalog),
		"-c", "analytics.enabled=false",
		"-c", "check_for_update_on_startup=false",
		"-c", "features.plugins=false",
	}
	run := func(extra ...string) {
		t.Helper()
		cmd := exec.Command(codex, append(append([]string{"exec"}, extra[:len(extra)-1]...), append(args, extra[len(extra)-1])...)...)
		cmd.Dir = project
		cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "GW_LOCAL_TOKEN=gw-local-recording")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("codex %v: %v\n%s", extra, err, out)
		}
		t.Logf("codex %v:\n%s", extra, out)
	}
	// Turn 1 calls the shell tool and answers; turn 2 (the same session)
	// calls apply_patch, a freeform tool; turn 3 sends an image.
	run("Use the exec_command tool: `cat notes.txt`")
	run("resume", "--last", "Now use the apply_patch tool to add hello.txt")
	run("-i", png, "What is in this image?")

	dir := filepath.Join("testdata", "codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	scrub := scrubber(project, home, srv.URL)
	for i, b := range bodies {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("request %d is not JSON: %v", i+1, err)
		}
		var pretty bytes.Buffer
		enc := json.NewEncoder(&pretty)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, fmt.Sprintf("request%d.json", i+1))
		if err := os.WriteFile(name, scrub(pretty.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded %d requests in %s", len(bodies), dir)
}

// scriptedAnswer streams what the OpenAI service would answer request n.
func scriptedAnswer(w http.ResponseWriter, body []byte, n int) {
	var req struct {
		Input []struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	last := req.Input[len(req.Input)-1]
	text := ""
	for _, c := range last.Content {
		text += c.Text
	}
	w.Header().Set("Content-Type", "text/event-stream")
	seq := 0
	event := func(typ string, v map[string]any) {
		v["type"], v["sequence_number"] = typ, seq
		seq++
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	id := fmt.Sprintf("resp_rec%d", n)
	event("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress"}})
	var items []map[string]any
	call := fmt.Sprintf("call_rec%d", n)
	switch {
	case last.Type == "message" && strings.Contains(text, "exec_command"):
		items = append(items, recordedReasoning(n), map[string]any{"type": "function_call", "id": "fc_rec", "call_id": call,
			"name": "exec_command", "arguments": `{"cmd":"cat notes.txt"}`, "status": "completed"})
	case last.Type == "message" && strings.Contains(text, "apply_patch"):
		items = append(items, recordedReasoning(n), map[string]any{"type": "custom_tool_call", "id": "ctc_rec", "call_id": call,
			"name": "apply_patch", "input": "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n", "status": "completed"})
	default:
		items = append(items, map[string]any{"type": "message", "id": "msg_rec", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Done.", "annotations": []any{}}}})
	}
	for _, it := range items {
		event("response.output_item.done", map[string]any{"item": it})
	}
	event("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed",
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}

func recordedReasoning(n int) map[string]any {
	return map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_rec%d", n),
		"summary": []any{map[string]any{"type": "summary_text", "text": "The user wants a tool run."}},
		"content": []any{map[string]any{"type": "reasoning_text", "text": "I will call the tool."}}}
}

// codexCatalog describes the model to Codex (model_catalog_json) so that it
// offers apply_patch as a freeform tool, as it does for OpenAI's models.
const codexCatalog = `{"models":[{
 "slug":"vendor-a/model-a-sonnet-4.5","display_name":"Model A Sonnet 4.5","description":"through gw serve",
 "default_reasoning_level":null,"supported_reasoning_levels":[],"shell_type":"default","visibility":"list",
 "supported_in_api":true,"priority":1,"upgrade":null,"base_instructions":"You are a coding agent.",
 "supports_reasoning_summaries":false,"support_verbosity":false,"default_verbosity":null,
 "apply_patch_tool_type":"freeform","truncation_policy":{"mode":"bytes","limit":10000},
 "supports_parallel_tool_calls":true,"context_window":200000,"experimental_supported_tools":[],
 "input_modalities":["text","image"]}]}`

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// tinyPNG is a 1×1 PNG.
func tinyPNG(t *testing.T) []byte {
	b, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	dateRE  = regexp.MustCompile(`<current_date>[^<]*</current_date>`)
	tzRE    = regexp.MustCompile(`<timezone>[^<]*</timezone>`)
	msRE    = regexp.MustCompile(`(turn_started_at_unix_ms\\":)\d+`)
	wallRE  = regexp.MustCompile(`Wall time: [0-9.]+ seconds`)
	chunkRE = regexp.MustCompile(`Chunk ID: [0-9a-f]+`)
)

// scrubber replaces what differs from one recording to the next.
func scrubber(project, home, url string) func([]byte) []byte {
	return func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte(project), []byte("/home/user/project"))
		b = bytes.ReplaceAll(b, []byte(home), []byte("/home/user/.codex"))
		b = bytes.ReplaceAll(b, []byte(url), []byte("http://127.0.0.1:8787"))
		ids := map[string]string{}
		b = uuidRE.ReplaceAllFunc(b, func(m []byte) []byte {
			if r, ok := ids[string(m)]; ok {
				return []byte(r)
			}
			r := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(ids)+1)
			ids[string(m)] = r
			return []byte(r)
		})
		b = dateRE.ReplaceAll(b, []byte("<current_date>2026-01-01</current_date>"))
		b = tzRE.ReplaceAll(b, []byte("<timezone>Etc/UTC</timezone>"))
		b = msRE.ReplaceAll(b, []byte("${1}1767225600000"))
		b = wallRE.ReplaceAll(b, []byte("Wall time: 0.1 seconds"))
		b = chunkRE.ReplaceAll(b, []byte("Chunk ID: 000000"))
		return b
	}
}
