// Package e2e runs the built gw in a real terminal (tmux) against the stand-in service, to check what the
// unit tests of the picker cannot: raw mode, key decoding, drawing on stderr while stdout is captured.
package e2e

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgateway/gw/standin"
	"github.com/modelgateway/gw/tui/tmuxtest"
)

// buildGW compiles cmd/gw into a temporary directory.
func buildGW(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gw and drives a real terminal")
	}
	if !tmuxtest.Available() {
		t.Skip("tmux is not installed")
	}
	exe := filepath.Join(t.TempDir(), "gw")
	cmd := exec.Command("go", "build", "-o", exe, "github.com/modelgateway/gw/cmd/gw")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building gw: %v\n%s", err, out)
	}
	return exe
}

// startGW runs gw with args in a terminal against a stand-in, with the partial-plan demo key (three
// models listed, the other five "not in your subscription").
func startGW(t *testing.T, exe string, args ...string) *tmuxtest.Terminal {
	t.Helper()
	srv := standin.New(standin.Options{})
	ts := httptest.NewServer(srv) // loopback
	t.Cleanup(func() { srv.Close(); ts.Close() })

	home := t.TempDir()
	env := []string{
		"HOME=" + home,
		"GW_CONFIG_DIR=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"GW_BASE_URL=" + ts.URL + "/v1",
		// Through the tmux server's environment, never a command line.
		"GW_API_KEY=" + standin.DemoKeyPartial,
	}
	return tmuxtest.Start(t, tmuxtest.Options{Width: 110, Height: 24, Env: env}, append([]string{exe}, args...)...)
}

func TestModelsPick_Multi(t *testing.T) {
	exe := buildGW(t)
	term := startGW(t, exe, "models", "--pick", "--multi")
	screen := term.WaitFor("Filter:")
	if !strings.Contains(screen, "not in your subscription") {
		t.Errorf("models outside the plan are not marked:\n%s", screen)
	}

	term.Type("sonnet 4") // a space in the filter is a letter, not a toggle
	term.WaitFor("3 of 8 · 0 selected")
	term.Press("Tab") // Sonnet 4.5: in the plan, listed first
	term.WaitFor("1 selected")
	term.Press("Down", "Tab") // Sonnet 4.6: not in the plan
	term.WaitFor("cannot be chosen: not in your subscription")
	term.Press("C-u")
	term.Type("flash")
	term.WaitFor("1 of 8")
	term.Press("Tab")
	term.WaitFor("2 selected")
	term.Press("Enter")

	res := term.Wait()
	want := "vendor-a/model-a-sonnet-4.5\nvendor-b/model-b-3-flash-preview\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("exit %d, stdout %q; want 0, %q\nscreen:\n%s", res.ExitCode, res.Stdout, want, res.Screen)
	}
	if strings.TrimSpace(res.Screen) != "" {
		t.Errorf("the picker left traces on the terminal:\n%s", res.Screen)
	}
	if strings.Contains(res.Screen, standin.DemoKeyPartial) {
		t.Error("the key appeared on the terminal")
	}
}

func TestModelsPick_SingleAndEsc(t *testing.T) {
	exe := buildGW(t)
	term := startGW(t, exe, "models", "--pick")
	term.WaitFor("Filter:")
	term.Type("HAIKU")
	term.WaitFor("1 of 8")
	term.Press("Enter")
	if res := term.Wait(); res.ExitCode != 0 || res.Stdout != "vendor-a/model-a-haiku-4.5\n" {
		t.Fatalf("exit %d, stdout %q; want the haiku model\nscreen:\n%s", res.ExitCode, res.Stdout, res.Screen)
	}

	term = startGW(t, exe, "models", "--pick")
	term.WaitFor("Filter:")
	term.Press("Escape")
	res := term.Wait()
	if res.ExitCode != 3 || res.Stdout != "" {
		t.Fatalf("esc: exit %d, stdout %q; want exit 3 (cancelled) and nothing on stdout", res.ExitCode, res.Stdout)
	}
}

// Ctrl-C at gw auth login's hidden prompt must not leave the terminal without echo.
func TestAuthLogin_CtrlCRestoresEcho(t *testing.T) {
	exe := buildGW(t)
	home := t.TempDir()
	env := []string{
		"HOME=" + home,
		"GW_CONFIG_DIR=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"GW_BASE_URL=http://127.0.0.1:9/v1",
	}
	// gw talks to the terminal (stdout included, as a person would run it); the shell reports afterwards.
	script := `trap : INT; "$0" auth login >/dev/tty 2>&1; echo "exit=$?"; stty -a`
	term := tmuxtest.Start(t, tmuxtest.Options{Env: env}, "sh", "-c", script, exe)
	term.WaitFor("input is hidden")
	term.Type("sk-typed")
	term.Press("C-c")
	res := term.Wait()
	if !strings.Contains(res.Stdout, "exit=130\n") {
		t.Errorf("gw auth login after ctrl-c: %q, want exit 130\nscreen:\n%s", res.Stdout, res.Screen)
	}
	if !regexp.MustCompile(`(^|\s)echo(\s|$)`).MatchString(res.Stdout) {
		t.Errorf("echo is off after ctrl-c at the prompt:\n%s", res.Stdout)
	}
	if strings.Contains(res.Screen, "sk-typed") {
		t.Error("the typed key was shown")
	}
}

// gw init agent on a terminal shows two pickers in a row: the models, then OpenCode's default. The second
// must not appear under what is left of the first, on the screen or in the scrollback above it. The
// terminal is as short as the first picker's frame would be, which is when a frame used to scroll away
// whole and stay in the scrollback.
func TestInitAgent_FirstPickerGoneWhenSecondShows(t *testing.T) {
	exe := buildGW(t)
	srv := standin.New(standin.Options{})
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); ts.Close() })
	for _, height := range []int{12, 30} {
		home := t.TempDir()
		env := []string{
			"HOME=" + home,
			"GW_CONFIG_DIR=" + filepath.Join(home, "config"),
			"XDG_CONFIG_HOME=" + filepath.Join(home, "xdg"),
			"XDG_STATE_HOME=" + filepath.Join(home, "state"),
			"GW_BASE_URL=" + ts.URL + "/v1",
			"GW_API_KEY=" + standin.DemoKeyPartial,
		}
		// As a person runs it: after some output, with stdout on the terminal too.
		script := `seq 40 >/dev/tty; "$0" init agent --agent opencode --dry-run >/dev/tty 2>&1`
		term := tmuxtest.Start(t, tmuxtest.Options{Width: 100, Height: height, Env: env}, "sh", "-c", script, exe)
		term.WaitFor("Models to add to OpenCode")
		term.WaitFor("3 selected")
		term.Press("Enter")
		term.WaitFor("Default model for OpenCode")
		all := term.ScreenAndHistory()
		for _, trace := range []string{"Models to add to OpenCode", "[x]", "[-]", "selected", "not in your subscription"} {
			if strings.Contains(all, trace) {
				t.Fatalf("%d lines: the first picker left %q on the terminal:\n%s", height, trace, all)
			}
		}
		if !strings.Contains(all, "\n40\nDefault model for OpenCode") {
			t.Errorf("%d lines: the second picker does not start where the first began:\n%s", height, all)
		}
		term.Press("Escape") // leave the default unchanged
		if res := term.Wait(); res.ExitCode != 0 {
			t.Fatalf("%d lines: exit %d\nscreen:\n%s", height, res.ExitCode, res.Screen)
		}
	}
}

// gw init agent on a terminal without --agent: the agents found (on PATH, or by their config) come first
// with their config's state; the one picked gets the model pickers and its own config.
func TestInitAgent_PicksTheAgent(t *testing.T) {
	exe := buildGW(t)
	srv := standin.New(standin.Options{})
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); ts.Close() })
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"qwen", "claude"} {
		if err := os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// Codex configured by hand for a gw serve on another port.
	codex := "model = \"vendor-a/model-a-haiku-4.5\"\nmodel_provider = \"gw\"\n\n[model_providers.gw]\nbase_url = \"http://127.0.0.1:9999/v1\"\nwire_api = \"responses\"\nexperimental_bearer_token = \"gw-local-0123456789abcdef0123456789abcdef\"\n"
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(codex), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{
		// The fake agents and the system's commands (tmux needs sh), not an agent installed in /usr/local
		// or by npm (the tests' copies are on PATH), which would be listed as found too.
		"PATH=" + bin + ":/usr/bin:/bin",
		"HOME=" + home,
		"GW_CONFIG_DIR=" + filepath.Join(home, "config"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "xdg"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"GW_BASE_URL=" + ts.URL + "/v1",
		"GW_API_KEY=" + standin.DemoKeyPartial,
	}
	script := `"$0" init agent --dry-run >/dev/tty 2>&1; echo "exit=$?" >/dev/tty`
	term := tmuxtest.Start(t, tmuxtest.Options{Width: 110, Height: 30, Env: env}, "/bin/sh", "-c", script, exe)
	screen := term.WaitFor("Agent to point at gw")
	for _, want := range []string{"Claude Code    claude-code  not configured", "Codex          codex        configured: other port, stale token, setting to check; not on PATH", "Qwen Code      qwen-code    not configured"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the agent picker does not show %q:\n%s", want, screen)
		}
	}
	if i, j := strings.Index(screen, "Qwen Code"), strings.Index(screen, "OpenCode"); i < 0 || j < 0 || j < i {
		t.Errorf("the agents found are not listed before the others:\n%s", screen)
	}
	term.Type("qwen")
	term.WaitFor("1 of 11")
	term.Press("Enter")
	term.WaitFor("Models to add to Qwen Code")
	term.WaitFor("3 selected")
	term.Press("Enter")
	term.WaitFor("Default model for Qwen Code")
	term.Press("Escape")
	term.WaitFor("exit=0")
	if screen := term.ScreenAndHistory(); !strings.Contains(screen, "+++ "+filepath.Join(home, ".qwen", "settings.json")) || !strings.Contains(screen, "dry run: nothing was written") {
		t.Errorf("no dry-run diff of Qwen Code's settings:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(home, ".qwen")); err == nil {
		t.Error("the dry run wrote Qwen Code's settings")
	}
}
