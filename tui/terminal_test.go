package tui

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/tui/tmuxtest"
	"golang.org/x/term"
)

// When GW_TUI_TEST_PROGRAM is set, the test binary is the program under test, run by the tests below in
// a real terminal (tmux): it shows the picker, reads a secret or spins, as gw does.
func TestMain(m *testing.M) {
	if prog := os.Getenv("GW_TUI_TEST_PROGRAM"); prog != "" {
		os.Exit(testProgram(prog))
	}
	os.Exit(m.Run())
}

func testProgram(prog string) int {
	ios := System(os.Getenv)
	switch prog {
	case "pick", "pick-multi", "pick-multi-selected":
		return pickMain(ios, prog != "pick", prog == "pick-multi-selected")
	case "secret", "secret-slow":
		if prog == "secret-slow" {
			// A loaded machine: time passes between the prompt showing and the read starting.
			read := ios.readPassword
			ios.readPassword = func(fd int) ([]byte, error) {
				time.Sleep(2 * time.Second)
				return read(fd)
			}
		}
		v, err := ios.ReadSecret("Key: ")
		if errors.Is(err, ErrInterrupted) {
			on, known := echoOn(0)
			fmt.Fprintf(ios.Out, "interrupted echo=%v known=%v\n", on, known)
			return 130
		}
		if err != nil {
			fmt.Fprintln(ios.ErrOut, "error:", err)
			return 1
		}
		fmt.Fprintf(ios.Out, "got %q\n", v)
		return 0
	case "spinner":
		// Wait for a key without echoing it: an echoed Enter would move the cursor off the spinner's line.
		state, err := term.MakeRaw(0)
		if err != nil {
			fmt.Fprintln(ios.ErrOut, "error:", err)
			return 1
		}
		stop := ios.StartSpinner("Working")
		_, _ = ios.In.Read(make([]byte, 1))
		stop()
		_ = term.Restore(0, state)
		fmt.Fprintln(ios.ErrOut, "done")
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown test program", prog)
	return 1
}

// pickMain shows the picker; preselected ticks the seven enabled models, as gw init agent does for the
// models already configured.
func pickMain(ios *IOStreams, multi, preselected bool) int {
	items := testItems()
	for i := range items {
		items[i].Selected = preselected && !items[i].Disabled
	}
	ids, err := Pick(ios, PickOptions{Title: "Pick models", Items: items, Multi: multi})
	fmt.Fprintln(ios.ErrOut, "picker closed")
	switch {
	case errors.Is(err, ErrCancelled):
		fmt.Fprintln(ios.ErrOut, "cancelled")
		return 2
	case errors.Is(err, ErrInterrupted):
		fmt.Fprintln(ios.ErrOut, "interrupted")
		return 130
	case err != nil:
		fmt.Fprintln(ios.ErrOut, "error:", err)
		return 1
	}
	for _, id := range ids {
		fmt.Fprintln(ios.Out, id)
	}
	return 0
}

func startProgram(t *testing.T, prog string, o tmuxtest.Options) *tmuxtest.Terminal {
	t.Helper()
	if testing.Short() {
		t.Skip("real-terminal test")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o.Env = append(o.Env, "GW_TUI_TEST_PROGRAM="+prog)
	return tmuxtest.Start(t, o, exe)
}

func startPicker(t *testing.T, mode string, o tmuxtest.Options) *tmuxtest.Terminal {
	t.Helper()
	prog := map[string]string{"single": "pick", "multi": "pick-multi", "multi-selected": "pick-multi-selected"}[mode]
	term := startProgram(t, prog, o)
	term.WaitFor("Filter:")
	return term
}

func TestTerminal_FilterAndEnter(t *testing.T) {
	term := startPicker(t, "single", tmuxtest.Options{})
	term.Type("flash")
	term.WaitFor("Filter: flash")
	term.Press("Enter")
	res := term.Wait()
	if res.ExitCode != 0 || res.Stdout != "vendor-b/model-b-3-flash-preview\n" {
		t.Fatalf("exit %d, stdout %q; want the flash model", res.ExitCode, res.Stdout)
	}
	// Nothing left behind, not even blank lines: what comes next starts where the picker began.
	if res.Screen != "picker closed" {
		t.Errorf("the picker left traces on the screen:\n%s", res.Screen)
	}
}

func TestTerminal_MultiToggle(t *testing.T) {
	term := startPicker(t, "multi", tmuxtest.Options{})
	term.Type("sonnet")
	term.WaitFor("3 of 8")
	term.Press("Down", "Tab", "Down", "Tab")
	term.WaitFor("2 selected")
	term.Press("C-u")
	term.WaitFor("8 of 8")
	// Clearing the filter keeps the cursor on Sonnet 4.5 Thinking; Opus 4.5 Thinking is three rows up.
	// With the filter empty, space toggles too.
	term.Press("Up", "Up", "Up", "Space")
	term.WaitFor("3 selected")
	term.Press("Enter")
	res := term.Wait()
	want := "vendor-a/model-a-opus-4.5-thinking\nvendor-a/model-a-sonnet-4.5\nvendor-a/model-a-sonnet-4.5-thinking\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("exit %d, stdout %q; want %q", res.ExitCode, res.Stdout, want)
	}
}

// Display names contain spaces: typed into a filter, a space is a letter, not a toggle.
func TestTerminal_SpaceInMultiFilter(t *testing.T) {
	term := startPicker(t, "multi-selected", tmuxtest.Options{})
	term.WaitFor("7 selected")
	term.Type("sonnet 4.5")
	term.WaitFor("Filter: sonnet 4.5_")
	screen := term.WaitFor("2 of 8 · 7 selected")
	if !strings.Contains(screen, "tab toggle") {
		t.Errorf("the help line does not say how to toggle while filtering:\n%s", screen)
	}
	term.Press("Tab") // unticks the highlighted Sonnet 4.5
	term.WaitFor("6 selected")
	term.Press("Enter")
	res := term.Wait()
	want := "vendor-a/model-a-opus-4.6\nvendor-a/model-a-opus-4.5-thinking\nvendor-a/model-a-sonnet-4.6\n" +
		"vendor-a/model-a-sonnet-4.5-thinking\nvendor-a/model-a-haiku-4.5\nvendor-b/model-b-3-flash-preview\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("exit %d, stdout %q; want %q", res.ExitCode, res.Stdout, want)
	}
}

func TestTerminal_DisabledThenEsc(t *testing.T) {
	term := startPicker(t, "single", tmuxtest.Options{})
	term.Type("pro")
	term.Press("Enter")
	term.WaitFor("cannot be chosen: not in your subscription")
	term.Press("Escape")
	res := term.Wait()
	if res.ExitCode != 2 || res.Stdout != "" {
		t.Fatalf("exit %d, stdout %q; want the cancel code and nothing printed", res.ExitCode, res.Stdout)
	}
}

func TestTerminal_CtrlC(t *testing.T) {
	term := startPicker(t, "multi", tmuxtest.Options{})
	term.Press("Space", "C-c")
	res := term.Wait()
	if res.ExitCode != 130 || res.Stdout != "" {
		t.Fatalf("exit %d, stdout %q; want the interrupt code and nothing printed", res.ExitCode, res.Stdout)
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// hasColour reports whether s sets a foreground or background colour (not merely bold or faint).
func hasColour(s string) bool {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				return true
			}
			if n == 38 || n == 48 {
				break // the rest are the colour's parameters
			}
		}
	}
	return false
}

func TestTerminal_NoColor(t *testing.T) {
	term := startPicker(t, "single", tmuxtest.Options{Env: []string{"NO_COLOR=1"}})
	if s := term.ScreenWithEscapes(); hasColour(s) {
		t.Errorf("NO_COLOR=1, yet the screen has colours: %q", s)
	}
	term.Press("Escape")
	term.Wait()

	term = startPicker(t, "single", tmuxtest.Options{})
	if s := term.ScreenWithEscapes(); !hasColour(s) {
		t.Errorf("without NO_COLOR the picker should use colour: %q", s)
	}
}

func TestTerminal_Resize(t *testing.T) {
	term := startPicker(t, "single", tmuxtest.Options{Width: 100, Height: 24})
	term.WaitFor("vendor-a/model-a-sonnet-4.5-thinking")
	term.Resize(40, 8)
	term.WaitFor("1–3 of 8")
	for _, l := range strings.Split(term.Screen(), "\n") {
		if w := len([]rune(l)); w > 40 {
			t.Errorf("line of %d columns in a 40-column terminal: %q", w, l)
		}
	}
	term.Press("Down", "Down", "Down", "Down")
	screen := term.WaitFor("3–5 of 8")
	// At 40 columns the name gives way so that the id stays whole.
	if !strings.Contains(screen, "> vendor-a/model-a-sonnet-4.5-thinking\n") {
		t.Errorf("the highlighted row scrolled out of view or its id is cut:\n%s", screen)
	}
	if !strings.Contains(screen, "esc cancel") {
		t.Errorf("the help line lost esc:\n%s", screen)
	}
	term.Press("Enter")
	if res := term.Wait(); res.Stdout != "vendor-a/model-a-sonnet-4.5-thinking\n" {
		t.Errorf("stdout %q, want the fifth model", res.Stdout)
	}
}

// In a narrow terminal the ids, which are what the user picks, stay whole or at least tell the models
// apart, and the help line keeps the way out.
func TestTerminal_NarrowMultiKeepsIDsApart(t *testing.T) {
	term := startPicker(t, "multi", tmuxtest.Options{Width: 40, Height: 14})
	// The help line differs at each width, so waiting for it waits for the redraw.
	for width, help := range map[int]string{40: "\ntab toggle • enter confirm • esc cancel", 30: "\nenter confirm • esc cancel"} {
		term.Resize(width, 14)
		screen := term.WaitFor(help)
		lines := strings.Split(screen, "\n")
		if len(lines) < 10 {
			t.Fatalf("%d columns: too few lines:\n%s", width, screen)
		}
		seen := map[string]bool{}
		for _, l := range lines[2:10] {
			if w := len([]rune(l)); w > width {
				t.Errorf("line of %d columns in a %d-column terminal: %q", w, width, l)
			}
			if seen[l] {
				t.Errorf("%d columns: two rows read %q:\n%s", width, l, screen)
			}
			seen[l] = true
		}
		if width == 40 && !strings.Contains(screen, "[ ] vendor-a/model-a-sonnet-4.5\n") {
			t.Errorf("%d columns: the id vendor-a/model-a-sonnet-4.5 is not whole:\n%s", width, screen)
		}
	}
	term.Press("Escape")
	term.Wait()
}

func TestTerminal_ReadSecretHidden(t *testing.T) {
	term := startProgram(t, "secret", tmuxtest.Options{})
	term.WaitFor("Key:")
	term.Type("typed-secret")
	term.Type("x")
	term.Press("BSpace") // line editing still works
	if s := term.Screen(); strings.Contains(s, "typed") {
		t.Errorf("the secret is shown while typing:\n%s", s)
	}
	term.Press("Enter")
	res := term.Wait()
	if res.ExitCode != 0 || res.Stdout != "got \"typed-secret\"\n" {
		t.Fatalf("exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
	if strings.Contains(res.Screen, "typed") {
		t.Errorf("the secret is on the screen:\n%s", res.Screen)
	}
}

// A key pasted the moment the prompt shows is not echoed, however late reading starts: echo goes off before
// the prompt is printed (it went off only when reading began, and a loaded machine showed the key).
func TestTerminal_ReadSecretPastedAtOnceIsHidden(t *testing.T) {
	term := startProgram(t, "secret-slow", tmuxtest.Options{})
	term.WaitFor("Key:")
	term.Type("pasted-secret")
	if s := term.Screen(); strings.Contains(s, "pasted") {
		t.Errorf("the key pasted at the prompt is shown:\n%s", s)
	}
	term.Press("Enter")
	res := term.Wait()
	if res.ExitCode != 0 || res.Stdout != "got \"pasted-secret\"\n" {
		t.Fatalf("exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
	if strings.Contains(res.Screen, "pasted") {
		t.Errorf("the key is on the screen:\n%s", res.Screen)
	}
}

func TestTerminal_ReadSecretCtrlCRestoresEcho(t *testing.T) {
	term := startProgram(t, "secret", tmuxtest.Options{})
	term.WaitFor("Key:")
	term.Type("abc")
	term.Press("C-c")
	res := term.Wait()
	if res.ExitCode != 130 {
		t.Fatalf("exit %d, want 130; stdout %q\n%s", res.ExitCode, res.Stdout, res.Screen)
	}
	if res.Stdout != "interrupted echo=true known=true\n" {
		t.Errorf("after ctrl-c: %q; want echo back on", res.Stdout)
	}
}

func TestTerminal_Spinner(t *testing.T) {
	term := startProgram(t, "spinner", tmuxtest.Options{})
	term.WaitFor("Working")
	term.WaitFor(spinnerFrames[2] + " Working") // it moves
	term.Press("Enter")
	res := term.Wait()
	if res.ExitCode != 0 || !strings.Contains(res.Screen, "done") {
		t.Fatalf("exit %d, screen:\n%s", res.ExitCode, res.Screen)
	}
	if strings.Contains(res.Screen, "Working") {
		t.Errorf("the spinner's line was not cleared:\n%s", res.Screen)
	}
}
