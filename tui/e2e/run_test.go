package e2e

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgateway/gw/standin"
	"github.com/modelgateway/gw/tui/tmuxtest"
)

// fakeOpenCode is a shell script standing in for OpenCode in a real terminal: it says whether its process
// group has the terminal, counts the SIGINTs it gets, and reads a line from the terminal. It writes on
// stderr, the terminal (tmuxtest captures stdout in a file), and its stdout is checked to be gw's.
const fakeOpenCode = `#!/bin/sh
trap 'echo "agent got INT" >&2' INT
echo "agent pgid=$(ps -o pgid= -p $$ | tr -d ' ') tpgid=$(ps -o tpgid= -p $$ | tr -d ' ')" >&2
echo "agent ready" >&2
echo "agent's stdout"
while :; do
  if read line; then echo "agent read: $line" >&2; exit 5; fi
done
`

// gw run in a terminal: the agent's process group has the terminal (so its keys are the agent's), ctrl-c
// reaches the agent once (not once from the terminal and again from gw), the agent reads what is typed,
// gw prints nothing of its own and exits with the agent's status.
func TestRun_TerminalHandedToTheAgent(t *testing.T) {
	exe := buildGW(t)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "opencode"), []byte(fakeOpenCode), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := standin.New(standin.Options{})
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); ts.Close() })
	home := t.TempDir()
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"GW_CONFIG_DIR=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"GW_BASE_URL=" + ts.URL + "/v1",
		"GW_API_KEY=" + standin.DemoKeyPartial,
	}
	term := tmuxtest.Start(t, tmuxtest.Options{Width: 100, Height: 20, Env: env}, exe, "run", "opencode")
	screen := term.WaitFor("agent ready")
	m := regexp.MustCompile(`agent pgid=(\d+) tpgid=(\d+)`).FindStringSubmatch(screen)
	if m == nil || m[1] != m[2] {
		t.Errorf("the agent's process group does not have the terminal:\n%s", screen)
	}
	term.Press("C-c")
	term.WaitFor("agent got INT")
	term.Type("hello")
	term.Press("Enter")
	res := term.Wait()
	if n := strings.Count(res.Screen, "agent got INT"); n != 1 {
		t.Errorf("ctrl-c reached the agent %d times, want once:\n%s", n, res.Screen)
	}
	if !strings.Contains(res.Screen, "agent read: hello") {
		t.Errorf("the agent did not read what was typed:\n%s", res.Screen)
	}
	if res.Stdout != "agent's stdout\n" {
		t.Errorf("gw's stdout: %q, want the agent's", res.Stdout)
	}
	if res.ExitCode != 5 {
		t.Errorf("gw run exited %d, want the agent's 5", res.ExitCode)
	}
	if strings.Contains(res.Screen, "gw") {
		t.Errorf("gw printed something:\n%s", res.Screen)
	}
}
