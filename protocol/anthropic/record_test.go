package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The requests in testdata/claude-code/ were recorded from the real Claude
// Code CLI (claudeCodeVersion) talking to a scripted Messages API server:
//
//	GW_RECORD_CLAUDE_CODE=1 go test -run TestRecordClaudeCode ./protocol/anthropic
//
// re-records them (then run the golden tests with -update and read the diff).
// Machine-specific words (temporary paths, the OS version, the date, device
// and session ids) are replaced by fixed ones; no key is involved.

const recordedDir = "testdata/claude-code"

// cannedBlock is one content block of a scripted answer.
type cannedBlock struct {
	Type     string         `json:"type"` // text | thinking | tool_use
	Text     string         `json:"text,omitempty"`
	Thinking string         `json:"thinking,omitempty"`
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name,omitempty"`
	Input    map[string]any `json:"input,omitempty"`
}

// recording is one scenario: a prompt, the model setting and the scripted
// answers, one per /v1/messages request, in order (the last one repeats).
type recording struct {
	name    string
	model   string // "" leaves Claude Code's own model ids
	files   map[string][]byte
	prompt  func(project string) string
	answers func(project string) [][]cannedBlock
}

func recordings(t *testing.T) []recording {
	text := func(s string) cannedBlock { return cannedBlock{Type: "text", Text: s} }
	read := func(id, path string) cannedBlock {
		return cannedBlock{Type: "tool_use", ID: id, Name: "Read", Input: map[string]any{"file_path": path}}
	}
	notes := map[string][]byte{"notes.txt": []byte("The launch code is PINEAPPLE-42.\n")}
	return []recording{{
		name:  "tool-round-trip",
		model: "vendor-a/model-a-sonnet-4.5",
		files: notes,
		prompt: func(p string) string {
			return "Use the Read tool on `" + p + "/notes.txt` and tell me the launch code."
		},
		answers: func(p string) [][]cannedBlock {
			return [][]cannedBlock{
				{text("I will read the file."), read("toolu_rec_01", p+"/notes.txt")},
				{text("The launch code is PINEAPPLE-42.")},
			}
		},
	}, {
		name:  "thinking",
		model: "vendor-a/model-a-sonnet-4.5-thinking",
		files: notes,
		prompt: func(p string) string {
			return "Use the Read tool on `" + p + "/notes.txt` and tell me the launch code."
		},
		answers: func(p string) [][]cannedBlock {
			return [][]cannedBlock{
				{{Type: "thinking", Thinking: "The user wants a file read."}, read("toolu_rec_01", p+"/notes.txt")},
				{{Type: "thinking", Thinking: "The file names the code."}, text("The launch code is PINEAPPLE-42.")},
			}
		},
	}, {
		name:  "parallel-tools",
		model: "vendor-a/model-a-sonnet-4.5",
		files: map[string][]byte{"a.txt": []byte("alpha\n"), "b.txt": []byte("beta\n")},
		prompt: func(p string) string {
			return "Use the Read tool on `" + p + "/a.txt` and `" + p + "/b.txt` and join their words."
		},
		answers: func(p string) [][]cannedBlock {
			return [][]cannedBlock{
				{read("toolu_rec_a", p+"/a.txt"), read("toolu_rec_b", p+"/b.txt")},
				{text("alpha beta")},
			}
		},
	}, {
		name:   "tool-error",
		model:  "vendor-a/model-a-sonnet-4.5",
		prompt: func(p string) string { return "Use the Read tool on `" + p + "/missing.txt`." },
		answers: func(p string) [][]cannedBlock {
			return [][]cannedBlock{{read("toolu_rec_01", p+"/missing.txt")}, {text("The file does not exist.")}}
		},
	}, {
		name:   "image",
		model:  "vendor-a/model-a-sonnet-4.5",
		files:  map[string][]byte{"dot.png": tinyPNG(t)},
		prompt: func(p string) string { return "Use the Read tool on `" + p + "/dot.png` and say its colour." },
		answers: func(p string) [][]cannedBlock {
			return [][]cannedBlock{{read("toolu_rec_01", p+"/dot.png")}, {text("It is red.")}}
		},
	}, {
		name:  "tool-search",
		model: "vendor-a/model-a-sonnet-4.5",
		prompt: func(string) string {
			return "Use the ToolSearch tool with `select:WebFetch`, then fetch nothing."
		},
		answers: func(string) [][]cannedBlock {
			return [][]cannedBlock{
				{{Type: "tool_use", ID: "toolu_rec_01", Name: "ToolSearch", Input: map[string]any{"query": "select:WebFetch", "max_results": 5}}},
				{text("WebFetch is loaded.")},
			}
		},
	}, {
		name:    "default-models",
		prompt:  func(string) string { return "say hello" },
		answers: func(string) [][]cannedBlock { return [][]cannedBlock{{text("Hello.")}} },
	}}
}

func TestRecordClaudeCode(t *testing.T) {
	if os.Getenv("GW_RECORD_CLAUDE_CODE") != "1" {
		t.Skip("re-records testdata/claude-code from the real CLI; set GW_RECORD_CLAUDE_CODE=1")
	}
	bin := claudeBinary(t)
	for _, rec := range recordings(t) {
		t.Run(rec.name, func(t *testing.T) {
			root, home, project := newProject(t, rec.files)
			srv := &scriptedServer{answers: rec.answers(project)}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			run := runClaude(t, bin, project, claudeEnv(home, ts.URL, "gw-local-recording", rec.model), 2*time.Minute, rec.prompt(project))
			if run.err != nil {
				t.Fatalf("claude: %v\nstdout:\n%s\nstderr:\n%s", run.err, run.stdout, run.stderr)
			}
			dir := filepath.Join(recordedDir, rec.name)
			_ = os.RemoveAll(dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			scrub := scrubber(root, home)
			var calls strings.Builder
			for i, c := range srv.calls {
				name := fmt.Sprintf("request-%d.json", i+1)
				if err := os.WriteFile(filepath.Join(dir, name), scrub(c.body), 0o644); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&calls, "%s %s %s\n", name, c.method, c.url)
				for _, h := range []string{"Anthropic-Version", "Anthropic-Beta", "Content-Type", "X-Api-Key", "Authorization"} {
					if v := c.header.Get(h); v != "" {
						if h == "X-Api-Key" || h == "Authorization" {
							v = "(the token)"
						}
						fmt.Fprintf(&calls, "  %s: %s\n", h, v)
					}
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "calls.txt"), []byte(calls.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d requests recorded; claude printed:\n%s", len(srv.calls), run.stdout)
		})
	}
}

// scrubber replaces what is particular to this machine and run.
func scrubber(root, home string) func([]byte) []byte {
	mangled := func(p string) string { return strings.NewReplacer("/", "-", ".", "-", "_", "-").Replace(p) }
	words := strings.NewReplacer(home, "/home/user", mangled(home), "-home-user", root, "/tmp/root")
	res := []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "00000000-0000-0000-0000-000000000000"},
		{regexp.MustCompile(`[0-9a-f]{64}`), strings.Repeat("0", 64)},
		{regexp.MustCompile(`OS Version: [^\\"]*`), "OS Version: Linux"},
		{regexp.MustCompile(`Today's date is \d{4}-\d{2}-\d{2}`), "Today's date is 2026-01-01"},
	}
	return func(b []byte) []byte {
		s := words.Replace(string(b))
		for _, r := range res {
			s = r.re.ReplaceAllString(s, r.with)
		}
		return []byte(s)
	}
}

type recordedCall struct {
	method, url string
	header      http.Header
	body        []byte
}

// scriptedServer answers /v1/messages with its answers in turn, streamed or
// not as asked, and count_tokens with a fixed count; it keeps every request.
type scriptedServer struct {
	mu      sync.Mutex
	answers [][]cannedBlock
	calls   []recordedCall
	served  int
}

func (s *scriptedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.calls = append(s.calls, recordedCall{method: r.Method, url: r.URL.String(), header: r.Header.Clone(), body: body})
	var blocks []cannedBlock
	if r.URL.Path == "/v1/messages" {
		blocks = s.answers[min(s.served, len(s.answers)-1)]
		s.served++
	}
	s.mu.Unlock()

	switch r.URL.Path {
	case "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"input_tokens":1000}`)
		return
	case "/v1/messages":
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"Not found"}}`)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	stop := "end_turn"
	for _, b := range blocks {
		if b.Type == "tool_use" {
			stop = "tool_use"
		}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20}
	if !req.Stream {
		content := make([]any, len(blocks))
		for i, b := range blocks {
			content[i] = b
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_rec", "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	var buf bytes.Buffer
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	ev(map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_rec", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1},
	}})
	for i, b := range blocks {
		var start, delta map[string]any
		switch b.Type {
		case "thinking":
			start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			delta = map[string]any{"type": "thinking_delta", "thinking": b.Thinking}
		case "text":
			start = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": b.Text}
		case "tool_use":
			start = map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
			in, _ := json.Marshal(b.Input)
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
		}
		ev(map[string]any{"type": "content_block_start", "index": i, "content_block": start})
		ev(map[string]any{"type": "content_block_delta", "index": i, "delta": delta})
		ev(map[string]any{"type": "content_block_stop", "index": i})
	}
	ev(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	ev(map[string]any{"type": "message_stop"})
	_, _ = w.Write(buf.Bytes())
}

// tinyPNG is an 8×8 red square.
func tinyPNG(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := range 8 {
		for y := range 8 {
			img.Set(x, y, color.RGBA{R: 255, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
