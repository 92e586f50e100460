package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
)

// The test harness stands in for gw serve's proxy: the Gemini translator
// runs in gw serve's loop (proxy/relay), and its upstream posts the chat
// request to the stand-in of the service with the real key, as the proxy
// does.

// geminiCLIVersion is the Gemini CLI these tests were recorded with.
const geminiCLIVersion = "0.61.0"

// upstream sends a chat request to the service.
type upstream = relaytest.Upstream

// startGateway serves the Gemini API through gw serve's loop on loopback:
// what GOOGLE_GEMINI_BASE_URL points at (no /v1: @google/genai adds
// /v1beta).
func startGateway(t *testing.T, up upstream) string {
	t.Helper()
	url, _ := startCountingGateway(t, up)
	return url
}

// startCountingGateway is startGateway, and how many requests for a model's
// answer (generateContent or streamGenerateContent) it has received so far.
func startCountingGateway(t *testing.T, up upstream) (string, func() int) {
	t.Helper()
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ":generateContent") || strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			n.Add(1)
		}
		relaytest.Serve(w, r, Protocol{}, up, time.Second, 0)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, func() int { return int(n.Load()) }
}

// geminiBinary is the real Gemini CLI: on PATH, or the pinned copy
// scripts/test.sh keeps in .cache/gemini-cli.
func geminiBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real Gemini CLI")
	}
	if p, err := exec.LookPath("gemini"); err == nil {
		return p
	}
	if p, err := filepath.Abs(filepath.Join("..", "..", ".cache", "gemini-cli", "node_modules", ".bin", "gemini")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := "gemini is not installed; install: npm install --prefix .cache/gemini-cli @google/gemini-cli@" + geminiCLIVersion
	if os.Getenv("GW_REQUIRE_GEMINI_CLI") == "1" || os.Getenv("GW_REQUIRE_AGENTS") == "1" {
		t.Fatal(msg + " (GW_REQUIRE_GEMINI_CLI=1 / GW_REQUIRE_AGENTS=1)")
	}
	t.Skip(msg)
	return ""
}

// geminiSettings keeps Gemini CLI to the address it is given: the API key
// route (which reads GOOGLE_GEMINI_BASE_URL), no usage statistics, no
// update checks.
const geminiSettings = `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},` +
	`"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},"telemetry":{"enabled":false}}`

// newProject makes a HOME with Gemini CLI's settings and a project
// directory in it, outside any git repository, and writes files into the
// project.
func newProject(t *testing.T, files map[string][]byte) (home, project string) {
	t.Helper()
	root, err := os.MkdirTemp("", "gemrec")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	home = filepath.Join(root, "home")
	project = filepath.Join(home, "project")
	for _, d := range []string{project, filepath.Join(home, ".gemini")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(geminiSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(project, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, project
}

// geminiEnv is the CLI's whole environment: nothing of the test's own.
func geminiEnv(home, base, token string) []string {
	return []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "NO_COLOR=1",
		"GOOGLE_GEMINI_BASE_URL=" + base, "GEMINI_API_KEY=" + token,
		"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_TELEMETRY_ENABLED=false",
	}
}

// geminiResult is what `gemini -p … --output-format json` prints.
type geminiResult struct {
	Response string `json:"response"`
	Error    *struct {
		Message string `json:"message"`
		Code    int    `json:"code"`
	} `json:"error"`
	Stats struct {
		Models map[string]struct {
			API struct {
				TotalRequests int `json:"totalRequests"`
			} `json:"api"`
			Tokens struct {
				Prompt     int `json:"prompt"`
				Candidates int `json:"candidates"`
				Thoughts   int `json:"thoughts"`
			} `json:"tokens"`
		} `json:"models"`
		Tools struct {
			TotalCalls   int `json:"totalCalls"`
			TotalSuccess int `json:"totalSuccess"`
		} `json:"tools"`
	} `json:"stats"`
}

type geminiRun struct {
	stdout, stderr string
	err            error
}

func (r geminiRun) result(t *testing.T) geminiResult {
	t.Helper()
	// The result is on stdout; an error's on stderr, after the CLI's report.
	var res geminiResult
	out := r.stdout
	if strings.TrimSpace(out) == "" {
		out = r.stderr
		if i := strings.LastIndex(out, "{\n  \"session_id\""); i >= 0 {
			out = out[i:]
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("gemini printed no result (%v, exit %v)\nstdout:\n%s\nstderr:\n%s", err, r.err, r.stdout, r.stderr)
	}
	return res
}

// runGemini runs `gemini -p prompt` in dir, with every tool allowed.
func runGemini(t *testing.T, bin, dir string, env []string, model, prompt string) geminiRun {
	t.Helper()
	return runGeminiArgs(t, bin, dir, env, "-m", model, "--yolo", "--output-format", "json", "-p", prompt)
}

// runGeminiArgs runs gemini with args in dir, for at most 2 minutes.
func runGeminiArgs(t *testing.T, bin, dir string, env []string, args ...string) geminiRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader("")
	testutil.OwnProcessGroup(cmd)
	testutil.CancelKillsGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	t.Logf("%.1fs: gemini %q", time.Since(began).Seconds(), args)
	return geminiRun{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// chunk is a chat chunk from JSON, for the stream tests.
func chunk(t *testing.T, s string) *chat.Chunk {
	t.Helper()
	var c chat.Chunk
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return &c
}

// requestOf is a client's request for the translator.
type requestOf struct {
	method, path, query string
	body                []byte
}

func (r *requestOf) tr() *tr.Request {
	return &tr.Request{Method: r.method, Path: r.path, Query: r.query, Header: http.Header{}, Body: r.body}
}
