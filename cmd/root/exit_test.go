package root

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
)

// A service failure whose own words sound like cobra's ("accepts", "invalid argument") is a failure (exit 1)
// explained as one, not a usage error pointing at --help: exit codes are decided by the error's type.
func TestRun_ServiceMessageWithUsageWordsExits1(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":{"message":"this gateway accepts keys at most once a minute: invalid argument, requires at least a short pause","type":"overloaded"}}`))
	}))
	defer srv.Close()
	e := cmdtest.New(t)
	e.Vars["GW_BASE_URL"] = srv.URL + "/v1"
	e.Vars["GW_API_KEY"] = "sk-test-key-0123"

	code := Run(context.Background(), e.Factory, []string{"models"})
	if code != cmdutil.ExitError {
		t.Errorf("gw models against a 503: exit %d, want 1; stderr:\n%s", code, e.ErrOut)
	}
	if !strings.Contains(e.ErrOut.String(), "accepts keys at most once a minute") {
		t.Errorf("stderr does not carry the service's words:\n%s", e.ErrOut)
	}
	if strings.Contains(e.ErrOut.String(), "--help") {
		t.Errorf("a service failure points at --help as if it were a usage error:\n%s", e.ErrOut)
	}
}

// Every way cobra itself can refuse an invocation reaches Run as a typed usage error: exit 2. One that does
// not say what to do points at the command's --help; one that does (a value's form, the closest command)
// ends with its fix.
func TestRun_CobraUsageErrorsExit2(t *testing.T) {
	for _, c := range []struct {
		args []string
		help string // the pointer at the command's help; "": none
	}{
		{[]string{"bogus"}, ""}, // did you mean: logs
		{[]string{"models", "--bogus"}, "Run 'gw models --help' for usage."},
		{[]string{"models", "-Z"}, "Run 'gw models --help' for usage."},
		{[]string{"serve", "--port"}, "Run 'gw serve --help' for usage."},
		{[]string{"serve", "--port", "abc"}, ""}, // want a number
		{[]string{"models", "extra"}, ""},        // takes no arguments; see: gw models --help
		{[]string{"auth", "login", "extra", "args"}, ""},
		{[]string{"auth", "bogus"}, "Run 'gw auth --help' for usage."},
		{[]string{"completion", "tcsh"}, ""}, // did you mean: bash, fish, zsh
		{[]string{"help", "bogus"}, ""},      // the topics are the commands listed by: gw --help
		{[]string{"version", "--json=maybe"}, ""},
	} {
		e := cmdtest.New(t)
		code := Run(context.Background(), e.Factory, c.args)
		if code != cmdutil.ExitUsage {
			t.Errorf("gw %s: exit %d, want 2; stderr:\n%s", strings.Join(c.args, " "), code, e.ErrOut)
		}
		got := e.ErrOut.String()
		if has := strings.Contains(got, "for usage."); c.help != "" && !strings.HasSuffix(got, c.help+"\n") || c.help == "" && has {
			t.Errorf("gw %s: stderr\n%s\nwant it to end with %q", strings.Join(c.args, " "), got, c.help)
		}
	}
}

// Cobra refuses an unknown flag or a flag without its value on every command of the tree, not only on the
// ones listed above; each of those refusals is a usage error.
func TestRun_EveryCommandRefusesUnknownFlagAsUsage(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden {
			return
		}
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(NewCmdRoot(cmdtest.New(t).Factory), nil)
	for _, path := range paths {
		e := cmdtest.New(t)
		args := append(append([]string(nil), path...), "--no-such-flag")
		if code := Run(context.Background(), e.Factory, args); code != cmdutil.ExitUsage {
			t.Errorf("gw %s: exit %d, want 2; stderr:\n%s", strings.Join(args, " "), code, e.ErrOut)
		}
	}
}

// On a terminal, help is fitted to its width: no line is longer (but for a word longer than the width),
// and no word is lost.
func TestHelpFitsTheTerminal(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"logs", "--help"}, {"init", "agent", "--help"}} {
		e := cmdtest.New(t)
		e.Factory.IOStreams.SetStdoutTTY(true)
		e.Factory.IOStreams.SetTerminalWidth(60)
		if code := Run(context.Background(), e.Factory, args); code != cmdutil.ExitOK {
			t.Fatalf("gw %v: exit %d: %s", args, code, e.ErrOut)
		}
		narrow := e.Out.String()
		for _, l := range strings.Split(narrow, "\n") {
			if n := utf8.RuneCountInString(l); n > 60 && strings.Contains(strings.TrimSpace(l), " ") {
				t.Errorf("gw %v: a line of %d characters on a terminal of 60:\n%s", args, n, l)
			}
		}
		w := cmdtest.New(t)
		if code := Run(context.Background(), w.Factory, args); code != cmdutil.ExitOK {
			t.Fatal(code)
		}
		if a, b := strings.Fields(narrow), strings.Fields(w.Out.String()); strings.Join(a, " ") != strings.Join(b, " ") {
			t.Errorf("gw %v: the fitted help says something else than the help:\n%s", args, narrow)
		}
	}
}
