package tui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"
)

// IOStreams is made once per run and handed to every command. Commands never touch os.Stdout or ask
// whether something is a terminal themselves, so tests can swap buffers and pretend to be a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	neverPrompt                    bool

	// Decided from the environment once, in the constructor; methods never read the environment.
	colorDisabled bool // NO_COLOR, or TERM=dumb
	colorForced   bool // CLICOLOR_FORCE or FORCE_COLOR

	// readPassword reads a line without echo from the terminal on fd. It is term.ReadPassword except in
	// tests, which cannot own a real terminal.
	readPassword func(fd int) ([]byte, error)
	// spinnerInterval is how often the spinner redraws.
	spinnerInterval time.Duration
	// termWidth asks the width of the terminal on stdout (nil: unknown).
	termWidth func() int
}

// System returns the streams of this process. getenv is consulted here only: GW_NO_PROMPT disables
// prompting, NO_COLOR disables colour, CLICOLOR_FORCE/FORCE_COLOR force it.
func System(getenv func(string) string) *IOStreams {
	s := &IOStreams{
		In:              os.Stdin,
		Out:             os.Stdout,
		ErrOut:          os.Stderr,
		stdinTTY:        isTerminal(os.Stdin),
		stdoutTTY:       isTerminal(os.Stdout),
		stderrTTY:       isTerminal(os.Stderr),
		readPassword:    term.ReadPassword,
		spinnerInterval: 100 * time.Millisecond,
		termWidth: func() int {
			w, _, err := term.GetSize(int(os.Stdout.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
	s.applyEnv(getenv)
	return s
}

// Test returns streams backed by buffers, none of them a terminal, with an empty environment.
func Test() (ios *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{
		In:              in,
		Out:             out,
		ErrOut:          errOut,
		readPassword:    term.ReadPassword,
		spinnerInterval: 100 * time.Millisecond,
	}
	return ios, in, out, errOut
}

// TestWithEnv is Test with an environment, for checking what NO_COLOR, GW_NO_PROMPT and friends do.
func TestWithEnv(getenv func(string) string) (ios *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	ios, in, out, errOut = Test()
	ios.applyEnv(getenv)
	return ios, in, out, errOut
}

func (s *IOStreams) applyEnv(getenv func(string) string) {
	if getenv == nil {
		return
	}
	s.neverPrompt = truthy(getenv("GW_NO_PROMPT"))
	// no-color.org: present and not empty, whatever the value.
	s.colorDisabled = getenv("NO_COLOR") != "" || getenv("TERM") == "dumb"
	s.colorForced = truthy(getenv("CLICOLOR_FORCE")) || truthy(getenv("FORCE_COLOR"))
}

// truthy treats "0" and "false" as unset so that FOO=0 switches a feature off, as users expect.
func truthy(v string) bool {
	v = strings.TrimSpace(strings.ToLower(v))
	return v != "" && v != "0" && v != "false"
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func (s *IOStreams) IsStdinTTY() bool  { return s.stdinTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// TerminalWidth is the width of the terminal on stdout in columns; 0 when
// stdout is not a terminal or its width is not known.
func (s *IOStreams) TerminalWidth() int {
	if !s.stdoutTTY {
		return 0
	}
	if s.termWidth != nil {
		return s.termWidth()
	}
	return 0
}

// SetTerminalWidth makes TerminalWidth report w while stdout is a terminal (tests).
func (s *IOStreams) SetTerminalWidth(w int) { s.termWidth = func() int { return w } }

func (s *IOStreams) SetStdinTTY(v bool)  { s.stdinTTY = v }
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// SetNeverPrompt disables every interactive prompt (the GW_NO_PROMPT environment variable does the same).
func (s *IOStreams) SetNeverPrompt(v bool) { s.neverPrompt = v }

// CanPrompt reports whether gw may ask the user something: stdin and stdout are terminals and prompting
// was not disabled.
func (s *IOStreams) CanPrompt() bool {
	return !s.neverPrompt && s.stdinTTY && s.stdoutTTY
}

// CanPromptOnStderr is CanPrompt for interfaces drawn on stderr whose result goes to stdout (the picker):
// stdout may be a pipe, as in x=$(gw models --pick), but stdin and stderr must be terminals.
func (s *IOStreams) CanPromptOnStderr() bool {
	return !s.neverPrompt && s.stdinTTY && s.stderrTTY
}

// ColorEnabled reports whether output on stdout may carry colour.
func (s *IOStreams) ColorEnabled() bool { return s.colorFor(s.stdoutTTY) }

// StderrColorEnabled reports whether output on stderr may carry colour.
func (s *IOStreams) StderrColorEnabled() bool { return s.colorFor(s.stderrTTY) }

func (s *IOStreams) colorFor(tty bool) bool {
	// NO_COLOR is the user's explicit wish and wins over a forcing variable set by some tool.
	if s.colorDisabled {
		return false
	}
	return s.colorForced || tty
}

// ErrNoInput is returned by ReadSecret when the input ended before anything was read.
var ErrNoInput = errors.New("no input")

// ReadSecret reads one line, typically an API key. On a terminal the prompt goes to stderr and the input
// is not echoed (Ctrl-C there returns ErrInterrupted, with the terminal restored); from a pipe there is nobody to prompt, so it reads one line silently. The line ending is
// removed; other whitespace is kept for the caller to judge.
func (s *IOStreams) ReadSecret(prompt string) (string, error) {
	if fd, ok := s.stdinFd(); ok && s.stdinTTY {
		// Echo goes off before the prompt shows, so nothing typed or pasted at once is echoed.
		restore, _ := echoOff(fd)
		defer restore()
		fmt.Fprint(s.ErrOut, prompt)
		b, err := s.readHidden(fd)
		// The user's Enter was not echoed either; end the prompt line ourselves.
		fmt.Fprintln(s.ErrOut)
		if errors.Is(err, ErrInterrupted) {
			return "", err
		}
		if err != nil {
			return "", fmt.Errorf("reading from the terminal: %w", err)
		}
		return string(b), nil
	}
	return readLine(s.In)
}

// readHidden reads without echo. Ctrl-C at the prompt would otherwise kill gw with echo still off and
// leave the user's shell unable to show what they type: the terminal is restored first, and the caller
// gets ErrInterrupted.
func (s *IOStreams) readHidden(fd int) ([]byte, error) {
	state, err := term.GetState(fd)
	if err != nil {
		return s.readPassword(fd)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := s.readPassword(fd)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-sig:
		_ = term.Restore(fd, state)
		return nil, ErrInterrupted
	}
}

func (s *IOStreams) stdinFd() (int, bool) {
	f, ok := s.In.(interface{ Fd() uintptr })
	if !ok {
		return 0, false
	}
	return int(f.Fd()), true
}

// readLine reads byte by byte so that nothing after the line is consumed from a shared stdin.
func readLine(r io.Reader) (string, error) {
	var sb strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			sb.WriteByte(buf[0])
		}
		if errors.Is(err, io.EOF) {
			if sb.Len() == 0 {
				return "", ErrNoInput
			}
			break
		}
		if err != nil {
			return "", fmt.Errorf("reading stdin: %w", err)
		}
	}
	return strings.TrimSuffix(sb.String(), "\r"), nil
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// StartSpinner shows an animated label on stderr while something slow runs, and returns the function
// that removes it. When stderr is not a terminal it writes nothing at all, so logs and piped output stay
// the same from run to run. stop may be called more than once.
func (s *IOStreams) StartSpinner(label string) (stop func()) {
	if !s.stderrTTY {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(s.spinnerInterval)
		defer t.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(s.ErrOut, "\r%s %s", spinnerFrames[i%len(spinnerFrames)], label)
			select {
			case <-done:
				// Carriage return and erase-line leave the cursor where the spinner began.
				fmt.Fprint(s.ErrOut, "\r\x1b[K")
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
		})
	}
}
