package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/keychain/keychaintest"
)

// codexSettings point the Codex CLI at gw serve: a model provider "gw" that
// speaks the Responses API (the only wire API Codex still has) with the
// local token from GW_LOCAL_TOKEN as its key, and nothing that reaches the
// internet: analytics off, no plugin sync (it looks up github.com), no
// update check.
func codexSettings(baseURL, model string) []string {
	return []string{
		"--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"-c", "model_providers.gw.name=gw",
		"-c", "model_providers.gw.base_url=" + baseURL,
		"-c", "model_providers.gw.env_key=GW_LOCAL_TOKEN",
		"-c", "model_providers.gw.wire_api=responses",
		"-c", "model_provider=gw",
		"-c", "model=" + model,
		"-c", "analytics.enabled=false",
		"-c", "features.plugins=false",
		"-c", "check_for_update_on_startup=false",
	}
}

// requireCodexTools skips (or, with GW_REQUIRE_CODEX=1, fails) when Codex or
// the keyring tools are missing.
func requireCodexTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gw and runs the Codex CLI")
	}
	required := os.Getenv("GW_REQUIRE_CODEX") == "1" || os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1"
	miss := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+" (GW_REQUIRE_CODEX=1 / GW_REQUIRE_REAL_KEYCHAIN=1)", args...)
		}
		t.Skipf(format, args...)
	}
	if runtime.GOOS != "linux" {
		miss("the end-to-end test uses gnome-keyring, which needs Linux, not %s", runtime.GOOS)
	}
	if _, err := exec.LookPath("codex"); err != nil {
		miss("codex is not installed; install: npm install -g @openai/codex@0.171.0")
	}
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			miss("%s is not installed; install: apt-get install -y dbus gnome-keyring libsecret-tools", tool)
		}
	}
}

// TestCodex: the Codex CLI through gw serve, with the key only in the OS
// keychain: codex exec runs its shell tool to read a file of a project and
// answers from it; then each of the service's three failure conditions shows
// the spec's message in Codex.
func TestCodex(t *testing.T) {
	requireCodexTools(t)
	if !keychaintest.Isolated() {
		gw := buildGW(t)
		keychaintest.RunIsolated(t, "TestCodex", "GW_REQUIRE_CODEX=1", gwBinaryEnv+"="+gw)
		return
	}
	gw := os.Getenv(gwBinaryEnv)
	if gw == "" {
		gw = buildGW(t)
	}
	codexThroughGwServe(t, gw)
}

func codexThroughGwServe(t *testing.T, gw string) {
	key := newKey(t)
	svc := startService(t, key)
	m := newMachine(t)
	codexHome := filepath.Join(m.home, ".codex")
	if err := os.Mkdir(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}

	m.run(t, nil, key+"\n", gw, "auth", "login", "--base-url", svc.BaseURL, "--with-key")
	token := authStatus(t, m, gw).LocalToken
	serve := m.startServe(t, gw, "--port", "0")
	base := "http://" + serve.addr + "/v1"
	if status, b := postResponses(t, base, token); status != http.StatusOK || !bytes.Contains(b, []byte(`"object":"response"`)) {
		t.Fatalf("POST /v1/responses answered %d: %s", status, b)
	}

	notes := filepath.Join(m.work, "notes.txt")
	if err := os.WriteFile(notes, []byte("The secret word is pineapple.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"CODEX_HOME=" + codexHome, "GW_LOCAL_TOKEN=" + token}
	codex := func(t *testing.T, model, prompt string, extra ...string) (string, bool) {
		t.Helper()
		args := append(append([]string{"exec"}, codexSettings(base, model)...), extra...)
		return m.runMayFail(t, env, "codex", append(args, prompt)...)
	}

	seen := len(svc.Seen())
	out, ok := codex(t, model, "Use the exec_command tool: `cat "+notes+"`")
	if !ok || !strings.Contains(out, "pineapple") {
		t.Fatalf("codex did not answer from the file (ok %v):\n%s", ok, out)
	}
	if n := streamedChats(t, svc, key, seen); n < 2 {
		t.Errorf("the stand-in saw %d streamed chat requests, want the call and the answer", n)
	}
	if logged := serve.stderr.String(); !regexp.MustCompile(`/v1/responses.*status=200`).MatchString(logged) {
		t.Errorf("gw serve's log has no line for Codex's request:\n%s", logged)
	}
	noFileHolds(t, m.home, key)

	// An unknown model: shown at once, not retried.
	seen = len(svc.Seen())
	out, ok = codex(t, "vendor-a/model-a-sonnet-4.7", "say hello")
	logShown(t, out, "model not found")
	if ok || !strings.Contains(out, "model not found / invalid model: ") || strings.Contains(out, "Reconnecting") {
		t.Errorf("for an unknown model codex shows (ok %v):\n%s", ok, out)
	}
	// (gw serve may also list the account's models once, to explain the id.)
	if n := chatRequests(svc.Seen()[seen:]); n != 1 {
		t.Errorf("the stand-in got %d chat requests for the unknown model, want 1", n)
	}

	// A rejected key (the balance is exhausted): shown at once, not retried.
	svc.SetBalance(key, 0)
	seen = len(svc.Seen())
	out, ok = codex(t, model, "say hello")
	logShown(t, out, "API key invalid")
	if ok || !strings.Contains(out, "API key invalid or unauthorized: ") || strings.Contains(out, "Reconnecting") {
		t.Errorf("for a rejected key codex shows (ok %v):\n%s", ok, out)
	}
	if n := len(svc.Seen()) - seen; n != 1 {
		t.Errorf("the stand-in got %d requests for the rejected key, want 1", n)
	}

	// The service unreachable: Codex retries a 502 (up to 30 requests over
	// about 25 s); its retries are turned off here to keep the test short.
	svc.Close()
	out, ok = codex(t, model, "say hello", "-c", "model_providers.gw.request_max_retries=0", "-c", "model_providers.gw.stream_max_retries=0")
	logShown(t, out, "unable to connect")
	if ok || !strings.Contains(out, "unable to connect to API: ") {
		t.Errorf("for an unreachable service codex shows (ok %v):\n%s", ok, out)
	}
	noFileHolds(t, m.home, key)
	serve.stop(t)
}

// postResponses sends gw serve a minimal Responses request.
func postResponses(t *testing.T, base, token string) (int, []byte) {
	t.Helper()
	body := `{"model":"` + model + `","input":"hi","stream":false}`
	req, _ := http.NewRequest(http.MethodPost, base+"/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	return res.StatusCode, bytes.TrimSpace(b)
}

// logShown logs the first line of Codex's output that contains what.
func logShown(t *testing.T, out, what string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, what) {
			t.Logf("codex shows: %s", line)
			return
		}
	}
}

// runMayFail runs a command to completion on the machine and returns its
// combined output and whether it succeeded; a run over two minutes fails
// the test.
func (m *machine) runMayFail(t *testing.T, extraEnv []string, name string, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	m.prepare(cmd, extraEnv)
	testutil.CancelKillsGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	t.Logf("%.1fs: %s %s", time.Since(began).Seconds(), filepath.Base(name), args[len(args)-1])
	if ctx.Err() != nil {
		t.Fatalf("%s did not end within 2 minutes:\n%s", name, out.String())
	}
	return out.String(), err == nil
}
