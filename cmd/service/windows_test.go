package service

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/internal/autostart"
)

// TestInstall_Windows_TaskRunsGwServeBackground_WindowsCannotRunHere: gw service install for Windows, with
// schtasks replaced (there is no Task Scheduler here): --dry-run shows a logon task that runs gw serve
// --background in the user's interactive session and runs nothing; install says what the user sees at
// logon and where gw serve's messages go.
func TestInstall_Windows_TaskRunsGwServeBackground_WindowsCannotRunHere(t *testing.T) {
	env := cmdtest.New(t)
	var ran []string
	opts := &InstallOptions{DryRun: true, Options: &Options{
		IO: env.IO, Getenv: env.Factory.Getenv, Config: env.Factory.Config, Platform: autostart.Windows,
		Run: func(_ context.Context, name string, args ...string) ([]byte, error) {
			ran = append(ran, name+" "+strings.Join(args, " "))
			if args[0] == "/Query" {
				return nil, errors.New("no task of that name")
			}
			return nil, nil
		},
		LookPath:   func(string) (string, error) { return `C:\Windows\System32\schtasks.exe`, nil },
		Executable: func() (string, error) { return `C:\Users\u\bin\gw.exe`, nil },
	}}
	if err := installRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	out := env.Out.String()
	for _, want := range []string{
		"<Command>C:\\Users\\u\\bin\\gw.exe</Command>",
		"<Arguments>serve --background</Arguments>",
		"<LogonType>InteractiveToken</LogonType>",
		"with no console window",
		"  schtasks /Create /TN 'gw serve' /XML ",
		"  schtasks /Run /TN 'gw serve'\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run does not show %q:\n%s", want, out)
		}
	}
	if len(ran) != 0 {
		t.Errorf("a dry run ran %q", ran)
	}

	// Installed (schtasks is the stand-in above), it says what the user sees at logon and where gw serve's
	// messages are. The task's file is gw's config directory + `\gw-serve-task.xml`: off Windows, a file
	// of that name in the directory above.
	env.Out.Reset()
	opts.DryRun = false
	if err := os.MkdirAll(env.Vars["XDG_CONFIG_HOME"], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := installRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	out = env.Out.String()
	for _, want := range []string{
		`gw serve now starts at login and runs: 'C:\Users\u\bin\gw.exe' serve --background` + "\n",
		"At logon its console window shows for a moment, then gw serve lets go of it (closing it does not stop gw serve); what gw serve says goes to its request log: gw logs\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("gw service install does not say %q:\n%s", want, out)
		}
	}
	if !slices.ContainsFunc(ran, func(c string) bool { return strings.HasPrefix(c, "schtasks /Create /TN gw serve /XML ") }) {
		t.Errorf("schtasks /Create was not run: %q", ran)
	}
}
