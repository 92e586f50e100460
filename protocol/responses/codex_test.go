package responses

import (
	"context"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/standin"
)

// findCodex is the Codex CLI to test with: $GW_CODEX, codex on PATH, or the
// copy scripts/test.sh installs under .cache/codex. Without one the test is
// skipped, or fails with GW_REQUIRE_CODEX=1.
func findCodex(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the Codex CLI")
	}
	if p := os.Getenv("GW_CODEX"); p != "" {
		return p
	}
	if p, err := exec.LookPath("codex"); err == nil {
		return p
	}
	if p, err := filepath.Abs(filepath.Join("..", "..", ".cache", "codex", "node_modules", ".bin", "codex")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("GW_REQUIRE_CODEX") == "1" {
		t.Fatal("the Codex CLI is not installed (GW_REQUIRE_CODEX=1); install: npm install -g @openai/codex@0.171.0")
	}
	t.Skip("the Codex CLI is not installed; install: npm install -g @openai/codex@0.171.0")
	return ""
}

// runCodex runs codex exec with gw serve's settings against baseURL and
// returns its output and whether it succeeded.
func runCodex(t *testing.T, codex, baseURL, model, prompt string, extra ...string) (string, bool) {
	t.Helper()
	home, project := t.TempDir(), t.TempDir()
	args := []string{"exec",
		"--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"-c", "model_providers.gw.name=gw",
		"-c", "model_providers.gw.base_url=" + baseURL,
		"-c", "model_providers.gw.env_key=GW_LOCAL_TOKEN",
		"-c", "model_providers.gw.wire_api=responses",
		"-c", "model_provider=gw",
		"-c", "model=" + model,
		// Offline: no analytics, no plugin sync (it looks up github.com), no update check.
		"-c", "analytics.enabled=false",
		"-c", "features.plugins=false",
		"-c", "check_for_update_on_startup=false",
	}
	args = append(append(args, extra...), prompt)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, args...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "HOME="+home, "GW_LOCAL_TOKEN=gw-local-test")
	began := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%.1fs: codex exec %q", time.Since(began).Seconds(), prompt)
	if ctx.Err() != nil {
		t.Fatalf("codex did not end within 2 minutes:\n%s", out)
	}
	return string(out), err == nil
}

// TestCodex_ShellTool: the real Codex CLI, through Serve, in front of the
// stand-in: it runs its shell tool for the command the stand-in's model
// asks for, sends the output back, and prints the answer that quotes it.
func TestCodex_ShellTool(t *testing.T) {
	codex := findCodex(t)
	h := newHarness(t, standin.Options{}, testKey)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("The secret word is pineapple.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, ok := runCodex(t, codex, h.srv.URL+"/v1", "vendor-a/model-a-sonnet-4.5", "Use the exec_command tool: `cat "+notes+"`")
	if !ok || !strings.Contains(out, "Tool result received: «") || !strings.Contains(out, "pineapple") {
		t.Fatalf("codex did not answer from the file (ok %v):\n%s", ok, out)
	}
	var streamed int
	for _, s := range h.svc.Seen() {
		if s.Path == "/v1/chat/completions" && s.Stream && s.Status == 200 && s.Key == testKey {
			streamed++
		}
	}
	if streamed != 2 {
		t.Errorf("the stand-in saw %d streamed chat requests, want 2 (the call, then the answer): %+v", streamed, h.svc.Seen())
	}
}

// TestCodex_Failures: what Codex shows for the service's three failure
// conditions. A rejected key and an unknown model are shown at once, without
// Codex's five retries; an unreachable service is retried by Codex (here
// with its retries set to 0 to keep the test short).
func TestCodex_Failures(t *testing.T) {
	codex := findCodex(t)
	cases := []struct {
		name, key, model, want string
		upstream               func(t *testing.T) *harness
		extra                  []string
		requests               int
	}{
		{name: "key rejected", key: "sk-wrong-0123456789abcdef", model: "vendor-a/model-a-sonnet-4.5",
			want: "API key invalid or unauthorized: ", requests: 1},
		{name: "unknown model", key: testKey, model: "vendor-a/model-a-sonnet-4.7",
			want: "model not found / invalid model: ", requests: 1},
		{name: "service unreachable", model: "vendor-a/model-a-sonnet-4.5", want: "unable to connect to API: ",
			extra: []string{"-c", "model_providers.gw.request_max_retries=0", "-c", "model_providers.gw.stream_max_retries=0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h *harness
			if c.key != "" {
				h = newHarness(t, standin.Options{}, c.key)
			} else {
				h = newHarnessUpstream(t, nil, relaytest.UpstreamTo("http://127.0.0.1:1/v1", testKey, http.DefaultClient))
			}
			out, ok := runCodex(t, codex, h.srv.URL+"/v1", c.model, "say hello", c.extra...)
			if ok || !strings.Contains(out, c.want) {
				t.Fatalf("codex (ok %v) does not show %q:\n%s", ok, c.want, out)
			}
			if strings.Contains(out, "Reconnecting") && c.requests > 0 {
				t.Errorf("codex retried:\n%s", out)
			}
			if h.svc != nil && len(h.svc.Seen()) != c.requests {
				t.Errorf("the stand-in got %d requests, want %d", len(h.svc.Seen()), c.requests)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, c.want) {
					t.Logf("codex shows: %s", line)
					break
				}
			}
		})
	}
}
