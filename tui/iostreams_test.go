package tui

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestTestStreamsAreNotTerminals(t *testing.T) {
	ios, _, _, _ := Test()
	if ios.IsStdinTTY() || ios.IsStdoutTTY() || ios.IsStderrTTY() {
		t.Fatal("Test() streams must not claim to be terminals")
	}
	if ios.CanPrompt() || ios.ColorEnabled() {
		t.Fatalf("CanPrompt=%v ColorEnabled=%v, want both false off a terminal", ios.CanPrompt(), ios.ColorEnabled())
	}
}

func TestCanPrompt(t *testing.T) {
	tests := []struct {
		name                 string
		env                  func(string) string
		stdin, stdout, never bool
		want                 bool
	}{
		{"both terminals", env(), true, true, false, true},
		{"stdin piped", env(), false, true, false, false},
		{"stdout piped", env(), true, false, false, false},
		{"SetNeverPrompt", env(), true, true, true, false},
		{"GW_NO_PROMPT=1", env("GW_NO_PROMPT", "1"), true, true, false, false},
		{"GW_NO_PROMPT=0 means prompting allowed", env("GW_NO_PROMPT", "0"), true, true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := TestWithEnv(tt.env)
			ios.SetStdinTTY(tt.stdin)
			ios.SetStdoutTTY(tt.stdout)
			if tt.never {
				ios.SetNeverPrompt(true)
			}
			if got := ios.CanPrompt(); got != tt.want {
				t.Errorf("CanPrompt() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCanPromptOnStderr_AllowsPipedStdout(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	if !ios.CanPromptOnStderr() {
		t.Error("x=$(gw models --pick) must be able to prompt: stdin and stderr are terminals")
	}
	if ios.CanPrompt() {
		t.Error("CanPrompt must still require stdout to be a terminal")
	}
	ios.SetNeverPrompt(true)
	if ios.CanPromptOnStderr() {
		t.Error("SetNeverPrompt must disable prompting on stderr too")
	}
}

func TestColorEnabled(t *testing.T) {
	tests := []struct {
		name string
		env  func(string) string
		tty  bool
		want bool
	}{
		{"terminal", env(), true, true},
		{"pipe", env(), false, false},
		{"NO_COLOR on a terminal", env("NO_COLOR", "1"), true, false},
		{"NO_COLOR any value", env("NO_COLOR", "no"), true, false},
		{"TERM=dumb", env("TERM", "dumb"), true, false},
		{"CLICOLOR_FORCE on a pipe", env("CLICOLOR_FORCE", "1"), false, true},
		{"FORCE_COLOR on a pipe", env("FORCE_COLOR", "true"), false, true},
		{"FORCE_COLOR=0 does not force", env("FORCE_COLOR", "0"), false, false},
		{"NO_COLOR beats CLICOLOR_FORCE", env("NO_COLOR", "1", "CLICOLOR_FORCE", "1"), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := TestWithEnv(tt.env)
			ios.SetStdoutTTY(tt.tty)
			if got := ios.ColorEnabled(); got != tt.want {
				t.Errorf("ColorEnabled() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStderrColorFollowsStderr(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetStderrTTY(true)
	if ios.ColorEnabled() {
		t.Error("stdout is a pipe: no colour there")
	}
	if !ios.StderrColorEnabled() {
		t.Error("stderr is a terminal: colour there")
	}
}

func TestColorScheme(t *testing.T) {
	ios, _, _, _ := Test()
	cs := ios.ColorScheme()
	if got := cs.SuccessIcon() + cs.WarningIcon() + cs.FailureIcon() + cs.SkipIcon(); got != "✓!✗-" {
		t.Errorf("plain marks = %q, want %q", got, "✓!✗-")
	}
	ios.SetStdoutTTY(true)
	cs = ios.ColorScheme()
	if got := cs.SuccessIcon(); got != "\x1b[32m✓\x1b[0m" {
		t.Errorf("coloured success mark = %q, want green ✓", got)
	}
	if got := cs.FailureIcon(); got != "\x1b[31m✗\x1b[0m" {
		t.Errorf("coloured failure mark = %q, want red ✗", got)
	}
	if got := cs.WarningIcon(); got != "\x1b[33m!\x1b[0m" {
		t.Errorf("coloured warning mark = %q, want yellow !", got)
	}

	ios, _, _, _ = TestWithEnv(env("NO_COLOR", "1"))
	ios.SetStdoutTTY(true)
	if got := ios.ColorScheme().Red("x"); got != "x" {
		t.Errorf("NO_COLOR: Red(x) = %q, want plain", got)
	}
}

func TestReadSecret_Pipe(t *testing.T) {
	ios, in, _, errOut := Test()
	in.WriteString("sk-abc\r\nnext line\n")
	got, err := ios.ReadSecret("API key: ")
	if err != nil {
		t.Fatal(err)
	}
	if got != "sk-abc" {
		t.Errorf("ReadSecret = %q, want %q", got, "sk-abc")
	}
	if errOut.Len() != 0 {
		t.Errorf("no prompt when stdin is a pipe, got %q", errOut.String())
	}
	if in.String() != "next line\n" {
		t.Errorf("ReadSecret consumed past the first line; left %q", in.String())
	}
}

func TestReadSecret_PipeWithoutNewline(t *testing.T) {
	ios, in, _, _ := Test()
	in.WriteString("sk-abc")
	if got, err := ios.ReadSecret("API key: "); err != nil || got != "sk-abc" {
		t.Errorf("ReadSecret = %q, %v; want %q", got, err, "sk-abc")
	}
}

func TestReadSecret_EmptyPipe(t *testing.T) {
	ios, _, _, _ := Test()
	if _, err := ios.ReadSecret("API key: "); !errors.Is(err, ErrNoInput) {
		t.Errorf("err = %v, want ErrNoInput", err)
	}
}

// A real terminal cannot be owned by a unit test; the hidden read itself is x/term's. This checks what
// gw does around it: prompt on stderr, read from the stdin descriptor, end the line.
func TestReadSecret_FakeTerminal(t *testing.T) {
	ios, _, out, errOut := Test()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	ios.In = r
	ios.SetStdinTTY(true)
	var gotFd int
	ios.readPassword = func(fd int) ([]byte, error) { gotFd = fd; return []byte("sk-secret"), nil }

	got, err := ios.ReadSecret("API key: ")
	if err != nil {
		t.Fatal(err)
	}
	if got != "sk-secret" {
		t.Errorf("ReadSecret = %q", got)
	}
	if gotFd != int(r.Fd()) {
		t.Errorf("read from fd %d, want stdin's %d", gotFd, r.Fd())
	}
	if errOut.String() != "API key: \n" {
		t.Errorf("stderr = %q, want the prompt and a newline", errOut.String())
	}
	if strings.Contains(out.String()+errOut.String(), "sk-secret") {
		t.Error("the secret was echoed")
	}
}

func TestStartSpinner_SilentOffTerminal(t *testing.T) {
	ios, _, out, errOut := Test()
	stop := ios.StartSpinner("Checking the key")
	stop()
	stop()
	if out.Len()+errOut.Len() != 0 {
		t.Errorf("spinner wrote %q / %q off a terminal; want nothing", out.String(), errOut.String())
	}
}

func TestStartSpinner_Terminal(t *testing.T) {
	ios, _, out, errOut := Test()
	ios.SetStderrTTY(true)
	stop := ios.StartSpinner("Checking the key")
	stop()
	stop() // idempotent
	got := errOut.String()
	if !strings.Contains(got, "Checking the key") {
		t.Errorf("stderr = %q, want the label", got)
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("stderr = %q, want the line cleared at the end", got)
	}
	if out.Len() != 0 {
		t.Errorf("spinner wrote to stdout: %q", out.String())
	}
}
