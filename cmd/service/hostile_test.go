package service

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/internal/autostart"
)

// rawControl is a control character that acts on a terminal: C0 but tab and newline, DEL, C1.
var rawControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]")

// TestInstall_HostilePathsReachTheTerminalEscaped: gw's path and the user's home go into what gw service
// install prints (the file, the commands, where it wrote); a path holding an OSC 52 clipboard write, a
// screen clear and an 8-bit CSI (U+009B) is shown with them escaped, by the dry run, the install and the
// uninstall. systemctl is a stand-in (a real systemd user manager is in systemd_linux_test.go).
func TestInstall_HostilePathsReachTheTerminalEscaped(t *testing.T) {
	const evil = "\x1b]52;c;aGk=\x07\x1b[2J\u009b31m"
	env := cmdtest.New(t)
	home := t.TempDir() + "/home" + evil
	env.Vars["HOME"], env.Vars["XDG_CONFIG_HOME"], env.Vars["XDG_RUNTIME_DIR"] = home, home+"/.config", t.TempDir()
	if err := os.MkdirAll(home+"/.config/systemd/user", 0o755); err != nil {
		t.Fatal(err)
	}
	o := &Options{
		IO: env.IO, Getenv: env.Factory.Getenv, Config: env.Factory.Config, Platform: autostart.Linux,
		Run: func(_ context.Context, name string, args ...string) ([]byte, error) {
			if strings.Join(args, " ") == "--user is-system-running" {
				return []byte("running\n"), nil
			}
			return nil, nil
		},
		LookPath:   func(string) (string, error) { return "/usr/bin/systemctl", nil },
		Executable: func() (string, error) { return "/opt/gw" + evil + "/gw", nil },
	}
	for _, step := range []struct {
		name string
		run  func() error
	}{
		{"install --dry-run", func() error { return installRun(t.Context(), &InstallOptions{Options: o, DryRun: true}) }},
		{"install", func() error { return installRun(t.Context(), &InstallOptions{Options: o}) }},
		{"uninstall", func() error { return uninstallRun(t.Context(), &UninstallOptions{Options: o}) }},
	} {
		env.Out.Reset()
		env.ErrOut.Reset()
		if err := step.run(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		out := env.Out.String() + env.ErrOut.String()
		if loc := rawControl.FindStringIndex(out); loc != nil {
			t.Errorf("%s printed a raw control character at %q:\n%q", step.name, out[max(0, loc[0]-20):loc[1]], out)
		}
		if !strings.Contains(out, `home\x1b]52;c;aGk=\x07\x1b[2J\u009b31m/.config/systemd/user/gw.service`) {
			t.Errorf("%s does not show the unit's path, escaped:\n%s", step.name, out)
		}
	}
}
