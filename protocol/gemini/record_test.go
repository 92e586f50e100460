package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The golden tests of the translation read requests the real Gemini CLI
// sent (testdata/gemini-cli/<scenario>/request-N.json, recorded with
// -record against a scripted Gemini API server) and compare the chat
// request each translates to with request-N.chat.json (-update rewrites
// those).

var (
	record = flag.Bool("record", false, "record the real Gemini CLI's requests into testdata/gemini-cli")
	update = flag.Bool("update", false, "rewrite the golden files")
)

// onePixelPNG is a 1×1 PNG, for the scenario with an image.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// scenarios are the tasks recorded: the prompt, and the project's files.
var scenarios = []struct {
	name, prompt string
	files        map[string][]byte
}{
	{"tool-round-trip", "Use the run_shell_command tool: `echo hi`", nil},
	{"image", "What is in @pixel.png? Answer in one word.", map[string][]byte{"pixel.png": mustBase64(onePixelPNG)}},
}

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// scripted answers the CLI as the Gemini API would: a function call (with
// a thought and a thought signature) for the first streamed request that
// offers the tool the prompt names, text after a function's response, and
// a JSON verdict for the CLI's own generateContent checks.
func scripted(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Contents []struct {
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(body, &req)
	usage := map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 5, "thoughtsTokenCount": 3, "totalTokenCount": 108}
	if !strings.Contains(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": `{"reasoning":"the answer is complete","next_speaker":"user"}`}}},
			"finishReason": "STOP"}}, "usageMetadata": usage})
		return
	}
	last := req.Contents[len(req.Contents)-1].Parts
	var parts []any
	if _, answered := last[0]["functionResponse"]; !answered && strings.Contains(string(body), "Use the run_shell_command tool") {
		parts = []any{
			map[string]any{"text": "The user wants a command run.", "thought": true},
			map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": "echo hi"}}, "thoughtSignature": "c2lnbmF0dXJlLW9mLXRoZS1jYWxs"},
		}
	} else {
		parts = []any{map[string]any{"text": "Done."}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	b, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}}, "usageMetadata": usage})
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func TestRecordGeminiCLI(t *testing.T) {
	if !*record {
		t.Skip("records with -record")
	}
	bin := geminiBinary(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var mu sync.Mutex
			var bodies [][]byte
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, append([]byte(r.Method+" "+r.URL.RequestURI()+"\n"), body...))
				mu.Unlock()
				scripted(w, r, body)
			}))
			defer ts.Close()
			home, project := newProject(t, sc.files)
			r := runGemini(t, bin, project, geminiEnv(home, ts.URL, "gw-local-recording"), "gemini-2.5-pro", sc.prompt)
			if res := r.result(t); res.Error != nil {
				t.Fatalf("the CLI failed: %+v\n%s", res.Error, r.stderr)
			}
			dir := filepath.Join("testdata", "gemini-cli", sc.name)
			_ = os.RemoveAll(dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			root := filepath.Dir(home)
			for i, b := range bodies {
				line, body, _ := bytes.Cut(b, []byte("\n"))
				body = bytes.ReplaceAll(body, []byte(root), []byte("/root"))
				// The CLI names its own install directory (its built-in skills):
				// recorded as a global npm install's, not this machine's.
				if i := strings.Index(bin, "/node_modules/"); i > 0 {
					body = bytes.ReplaceAll(body, []byte(bin[:i]), []byte("/usr/local/lib"))
				}
				var v any
				if err := json.Unmarshal(body, &v); err != nil {
					t.Fatalf("request %d is not JSON: %v", i+1, err)
				}
				pretty, _ := json.MarshalIndent(map[string]any{"request": string(line), "body": v}, "", " ")
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("request-%d.json", i+1)), append(pretty, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("recorded %d requests", len(bodies))
		})
	}
}

// TestGeminiCLIRequestsGolden translates every recorded request: the path
// names the model and the stream, and the chat request is the golden one.
func TestGeminiCLIRequestsGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "gemini-cli", "*", "request-*.json"))
	var recorded []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".chat.json") {
			recorded = append(recorded, f)
		}
	}
	sort.Strings(recorded)
	if len(recorded) < 4 {
		t.Fatalf("%d recorded requests, want the scenarios' (record them with -record)", len(recorded))
	}
	for _, f := range recorded {
		t.Run(strings.TrimPrefix(f, filepath.Join("testdata", "gemini-cli")+string(filepath.Separator)), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var rec struct {
				Request string          `json:"request"`
				Body    json.RawMessage `json:"body"`
			}
			if err := json.Unmarshal(raw, &rec); err != nil {
				t.Fatal(err)
			}
			method, uri, _ := strings.Cut(rec.Request, " ")
			path, query, _ := strings.Cut(uri, "?")
			req := &requestOf{method, path, query, rec.Body}
			a, handled := (Protocol{}).Local(req.tr(), translatetest.Env())
			if strings.HasSuffix(path, ":countTokens") {
				// Answered by gw serve itself: an estimate the CLI reads.
				var n struct {
					TotalTokens int `json:"totalTokens"`
				}
				if !handled || a.Status != http.StatusOK || json.Unmarshal(a.Body, &n) != nil || n.TotalTokens < 10 {
					t.Fatalf("countTokens answered %v %d %s", handled, a.Status, a.Body)
				}
				return
			}
			if handled {
				t.Fatalf("answered locally: %d %s", a.Status, a.Body)
			}
			ex, refused := Protocol{}.Translate(req.tr(), translatetest.Env())
			if refused != nil {
				t.Fatalf("refused: %s", refused.Body)
			}
			info := ex.Info()
			if info.Model != "gemini-2.5-pro" || info.Stream != strings.Contains(path, ":streamGenerateContent") {
				t.Errorf("info %+v for %s", info, rec.Request)
			}
			call := ex.Call()
			got, _ := json.MarshalIndent(map[string]any{"chat": call.Chat, "extra": call.Extra, "notes": info.Notes}, "", " ")
			translatetest.Golden(t, strings.TrimSuffix(f, ".json")+".chat.json", append(got, '\n'), *update)
		})
	}
}
