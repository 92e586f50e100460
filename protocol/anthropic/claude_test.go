package anthropic

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// claudeCodeVersion is the Claude Code release the recorded requests come
// from and the harness runs (scripts/test.sh installs the same).
const claudeCodeVersion = "2.1.332"

// claudeBinary finds the claude CLI: on PATH, else the copy scripts/test.sh
// keeps in .cache/. Without it the test is skipped, or fails when
// GW_REQUIRE_CLAUDE_CODE=1.
func claudeBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real Claude Code CLI")
	}
	if p, err := exec.LookPath("claude"); err == nil {
		return p
	}
	if p, err := filepath.Abs(filepath.Join("..", "..", ".cache", "claude-code", "node_modules", ".bin", "claude")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := "claude is not installed; install: npm install --prefix .cache/claude-code @anthropic-ai/claude-code@" + claudeCodeVersion
	if os.Getenv("GW_REQUIRE_CLAUDE_CODE") == "1" {
		t.Fatal(msg + " (GW_REQUIRE_CLAUDE_CODE=1)")
	}
	t.Skip(msg)
	return ""
}

// claudeOffline keeps Claude Code to the address it is given. The first
// alone already stops every other connection (telemetry, error reports,
// update checks, the feature-flag service); the others say the same for
// releases that split it up.
var claudeOffline = []string{
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	"DISABLE_TELEMETRY=1",
	"DISABLE_AUTOUPDATER=1",
	"DISABLE_ERROR_REPORTING=1",
}

// claudeEnv is the environment of one Claude Code run: a HOME of its own,
// the base URL (without /v1: Claude Code adds /v1/messages), the token it
// sends as x-api-key, and model for every model setting, so that no
// request names one of Claude Code's own ids.
func claudeEnv(home, baseURL, token, model string) []string {
	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=" + token,
	}
	if model != "" {
		env = append(env,
			"ANTHROPIC_MODEL="+model,
			"ANTHROPIC_DEFAULT_OPUS_MODEL="+model,
			"ANTHROPIC_DEFAULT_SONNET_MODEL="+model,
			"ANTHROPIC_DEFAULT_HAIKU_MODEL="+model,
			"ANTHROPIC_SMALL_FAST_MODEL="+model,
		)
	}
	return append(env, claudeOffline...)
}

// claudeRun is the outcome of one `claude -p`.
type claudeRun struct {
	stdout, stderr string
	err            error
}

// runClaude runs `claude -p prompt --output-format json` in dir, allowing
// the Read tool only (--dangerously-skip-permissions is refused as root).
// limit only keeps a hung CLI from holding the test.
func runClaude(t *testing.T, bin, dir string, env []string, limit time.Duration, prompt string) claudeRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--output-format", "json", "--allowedTools", "Read")
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
	t.Logf("%.1fs: claude -p %q", time.Since(began).Seconds(), prompt)
	return claudeRun{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// newProject makes a HOME with a project directory in it, outside any git
// repository, and writes files into the project.
func newProject(t *testing.T, files map[string][]byte) (root, home, project string) {
	t.Helper()
	root, err := os.MkdirTemp("", "ccrec")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	home = filepath.Join(root, "home")
	project = filepath.Join(home, "project")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(project, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, home, project
}
