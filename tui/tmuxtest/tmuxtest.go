// Package tmuxtest runs a program in a real terminal — a tmux pane on a private tmux server — so that
// tests can type at an interactive interface, read the screen and collect what the program printed on
// stdout. stdout goes to a file, as in x=$(gw models --pick); stderr and stdin stay on the terminal.
package tmuxtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Options shape the terminal.
type Options struct {
	Width, Height int // default 80x24
	// Env is added to a minimal environment (PATH, HOME, TERM). It reaches the program through the tmux
	// server's environment, never a command line, so it may hold a key.
	Env []string
	Dir string // working directory; default the test's
	// Timeout bounds every wait; default 15 s.
	Timeout time.Duration
}

// Terminal is one program running in a tmux pane.
type Terminal struct {
	t       testing.TB
	socket  string
	target  string
	outFile string
	timeout time.Duration
}

// Available reports whether tmux can be run; tests skip when it cannot.
func Available() bool {
	_, err := exec.LookPath("tmux")
	return err == nil
}

// Start runs argv in a new terminal. The session is killed when the test ends.
func Start(t testing.TB, o Options, argv ...string) *Terminal {
	t.Helper()
	if !Available() {
		t.Skip("tmux is not installed")
	}
	if len(argv) == 0 {
		t.Fatal("tmuxtest.Start: no command")
	}
	if o.Width == 0 {
		o.Width = 80
	}
	if o.Height == 0 {
		o.Height = 24
	}
	if o.Timeout == 0 {
		o.Timeout = 15 * time.Second
	}
	// A short directory: Unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "tmx")
	if err != nil {
		t.Fatal(err)
	}
	term := &Terminal{
		t:       t,
		socket:  filepath.Join(dir, "s"),
		target:  "pick",
		outFile: filepath.Join(dir, "stdout"),
		timeout: o.Timeout,
	}
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", term.socket, "kill-server").Run()
		_ = os.RemoveAll(dir)
	})

	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	// Ctrl-C reaches the whole foreground process group: the no-op trap keeps this shell alive to report
	// the program's status (a trap, unlike an ignored signal, is not inherited by the program). The status
	// goes into the pane's title: tmux handles output in order, so once the title shows it, everything the
	// program wrote is on the screen. The shell then sleeps so the screen stays as the program left it.
	script := fmt.Sprintf(`trap : INT; %s >%s; printf '\033]2;%s%%d\033\\' $?; exec sleep 100000`,
		strings.Join(quoted, " "), shellQuote(term.outFile), exitTitle)

	// No status line: the pane gets the whole Width x Height.
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g status off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tmux", "-S", term.socket, "-f", conf,
		"new-session", "-d", "-s", term.target, "-x", strconv.Itoa(o.Width), "-y", strconv.Itoa(o.Height),
		"sh", "-c", script)
	cmd.Dir = o.Dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
	}, o.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
	return term
}

func (term *Terminal) tmux(args ...string) string {
	term.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", term.socket}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Type sends text literally, as if typed.
func (term *Terminal) Type(text string) {
	term.t.Helper()
	term.tmux("send-keys", "-t", term.target, "-l", text)
}

// Press sends named keys in tmux's notation: Up, Down, Enter, Space, Escape, BSpace, C-c, C-n.
func (term *Terminal) Press(keys ...string) {
	term.t.Helper()
	term.tmux(append([]string{"send-keys", "-t", term.target}, keys...)...)
}

// Resize changes the terminal's size; the program receives SIGWINCH.
func (term *Terminal) Resize(width, height int) {
	term.t.Helper()
	term.tmux("resize-window", "-t", term.target, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height))
}

// Screen returns the visible text of the terminal, without colours, trailing blank lines removed.
func (term *Terminal) Screen() string {
	term.t.Helper()
	return strings.TrimRight(term.tmux("capture-pane", "-p", "-t", term.target), "\n")
}

// ScreenAndHistory is Screen preceded by the lines scrolled off the top of the terminal (its scrollback).
func (term *Terminal) ScreenAndHistory() string {
	term.t.Helper()
	return strings.TrimRight(term.tmux("capture-pane", "-p", "-S", "-", "-t", term.target), "\n")
}

// ScreenWithEscapes is Screen with the colour and attribute sequences tmux keeps for each cell.
func (term *Terminal) ScreenWithEscapes() string {
	term.t.Helper()
	return strings.TrimRight(term.tmux("capture-pane", "-p", "-e", "-t", term.target), "\n")
}

// WaitFor waits until the screen shows want, and returns the screen. It fails the test, showing the last
// screen, when want does not appear in time.
func (term *Terminal) WaitFor(want string) string {
	term.t.Helper()
	var screen string
	ok := term.poll(func() bool {
		screen = term.Screen()
		return strings.Contains(screen, want)
	})
	if !ok {
		term.t.Fatalf("the terminal never showed %q; last screen:\n%s", want, screen)
	}
	return screen
}

// Result is what the program left behind.
type Result struct {
	Stdout   string
	ExitCode int
	Screen   string // the terminal after the program ended
}

const exitTitle = "tmuxtest-exit-"

// Wait waits for the program to end.
func (term *Terminal) Wait() Result {
	term.t.Helper()
	var title string
	ok := term.poll(func() bool {
		title = strings.TrimSpace(term.tmux("display-message", "-p", "-t", term.target, "#{pane_title}"))
		return strings.HasPrefix(title, exitTitle)
	})
	if !ok {
		term.t.Fatalf("the program did not end; last screen:\n%s", term.Screen())
	}
	code, err := strconv.Atoi(strings.TrimPrefix(title, exitTitle))
	if err != nil {
		term.t.Fatalf("reading the exit status from %q: %v", title, err)
	}
	out, err := os.ReadFile(term.outFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		term.t.Fatal(err)
	}
	return Result{Stdout: string(out), ExitCode: code, Screen: term.Screen()}
}

func (term *Terminal) poll(cond func() bool) bool {
	deadline := time.Now().Add(term.timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
