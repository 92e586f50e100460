package autostart

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/internal/remedy"
)

// fakeTools stands in for systemctl, launchctl and schtasks, which cannot run here (no launchd, no
// Windows; a systemd user manager only for root, in cmd/service/systemd_linux_test.go): it records each command and answers from answers, keyed by the
// command line; a key missing is a success with no output.
type fakeTools struct {
	ran     []string
	answers map[string]fakeAnswer
}

type fakeAnswer struct {
	out string
	err bool
}

func (f *fakeTools) run(_ context.Context, name string, args ...string) ([]byte, error) {
	line := Command(append([]string{name}, args...)).String()
	f.ran = append(f.ran, line)
	a := f.answers[line]
	if a.err {
		return []byte(a.out), errors.New("exit status 1")
	}
	return []byte(a.out), nil
}

func newManager(t *testing.T, platform string, tools *fakeTools, env map[string]string) Manager {
	t.Helper()
	home := t.TempDir()
	exe := "/usr/bin/gw"
	if platform == Windows {
		exe = `C:\gw\gw.exe`
	}
	u, err := Generate(platform, Spec{Exe: exe, Home: home, UID: 501, User: `PC\u`, TaskDir: filepath.Join(home, "gw")})
	if err != nil {
		t.Fatal(err)
	}
	if platform == Windows {
		u.Path = filepath.Join(home, "gw", TaskFile) // a Windows path means nothing here
	}
	return Manager{Unit: u, Run: tools.run, Getenv: func(k string) string { return env[k] },
		LookPath: func(name string) (string, error) { return "/usr/bin/" + name, nil }}
}

var sessionEnv = map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "USER": "u"}

func running() *fakeTools {
	return &fakeTools{answers: map[string]fakeAnswer{"systemctl --user is-system-running": {out: "running\n"}}}
}

// TestInstall_Systemd_FakeSystemctl_WritesEnablesAndIsIdempotent: the first install writes the unit (mode
// 0644) and runs daemon-reload and enable --now; a second changes nothing and only makes sure it runs; after
// gw's unit changed (another port), it rewrites the unit and restarts it.
func TestInstall_Systemd_FakeSystemctl_WritesEnablesAndIsIdempotent(t *testing.T) {
	tools := running()
	m := newManager(t, Linux, tools, sessionEnv)
	c, err := m.Install(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.File != "write" {
		t.Errorf("file: %s", c.File)
	}
	fi, err := os.Stat(m.Unit.Path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the unit: %v %v", fi, err)
	}
	want := []string{"systemctl --user is-system-running", "systemctl --user daemon-reload", "systemctl --user enable --now gw.service"}
	if !slices.Equal(tools.ran, want) {
		t.Errorf("ran %q, want %q", tools.ran, want)
	}

	tools.ran = nil
	if c, err = m.Install(context.Background()); err != nil || c.File != "keep" {
		t.Fatalf("again: %+v %v", c, err)
	}
	if want := []string{"systemctl --user is-system-running", "systemctl --user enable --now gw.service"}; !slices.Equal(tools.ran, want) {
		t.Errorf("again ran %q, want %q", tools.ran, want)
	}

	tools.ran = nil
	moved, _ := Generate(Linux, Spec{Exe: "/usr/bin/gw", Port: 9000, Home: filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(m.Unit.Path))))})
	if moved.Path != m.Unit.Path {
		t.Fatalf("paths differ: %s %s", moved.Path, m.Unit.Path)
	}
	m.Unit = moved
	if c, err = m.Install(context.Background()); err != nil || c.File != "replace" {
		t.Fatalf("after a change: %+v %v", c, err)
	}
	if !slices.Contains(tools.ran, "systemctl --user restart gw.service") {
		t.Errorf("a rewritten unit is not restarted: %q", tools.ran)
	}
	if b, _ := os.ReadFile(m.Unit.Path); !strings.Contains(string(b), "serve --port 9000") {
		t.Errorf("the unit was not rewritten:\n%s", b)
	}
}

// TestInstall_RefusesAFileGwDidNotWriteOrThatWasEdited: the file stays byte-identical, nothing is run, and
// the error names the file and what to do.
func TestInstall_RefusesAFileGwDidNotWriteOrThatWasEdited(t *testing.T) {
	for name, content := range map[string]func(gw string) string{
		"foreign": func(string) string { return "[Service]\nExecStart=/usr/bin/gw serve --listen 0.0.0.0\n" },
		"edited":  func(gw string) string { return strings.Replace(gw, "RestartSec=5", "RestartSec=1", 1) },
	} {
		t.Run(name, func(t *testing.T) {
			tools := running()
			m := newManager(t, Linux, tools, sessionEnv)
			data := content(m.Unit.Text)
			if err := os.MkdirAll(filepath.Dir(m.Unit.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(m.Unit.Path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, op := range []func(context.Context) (Change, error){m.Install, m.Uninstall} {
				_, err := op(context.Background())
				if !errors.As(err, new(*NotOursError)) || !strings.Contains(err.Error(), m.Unit.Path) {
					t.Errorf("err = %v", err)
				}
				if r, ok := remedy.Of(err); !ok || r.Do != remedy.Say {
					t.Errorf("no fix: %v", err)
				}
			}
			if b, _ := os.ReadFile(m.Unit.Path); string(b) != data {
				t.Error("the file changed")
			}
			if fi, _ := os.Stat(m.Unit.Path); fi.Mode().Perm() != 0o600 {
				t.Errorf("its mode changed: %v", fi.Mode())
			}
			if len(tools.ran) > 0 {
				t.Errorf("ran %q", tools.ran)
			}
		})
	}
}

// TestReady_Systemd_SaysWhatIsMissing: no systemctl, no XDG_RUNTIME_DIR, a user manager that does not
// answer: each refused with the reason and a fix, and nothing written.
func TestReady_Systemd_SaysWhatIsMissing(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		tools  *fakeTools
		noTool bool
		want   string
	}{
		{"no systemctl", sessionEnv, running(), true, "systemd is not this system's service manager"},
		{"no runtime dir", map[string]string{"USER": "u"}, running(), false, "XDG_RUNTIME_DIR is not set"},
		{"offline", sessionEnv, &fakeTools{answers: map[string]fakeAnswer{"systemctl --user is-system-running": {out: "offline\n", err: true}}}, false,
			"no systemd user instance answers (systemctl --user is-system-running: offline)"},
		{"no bus", sessionEnv, &fakeTools{answers: map[string]fakeAnswer{"systemctl --user is-system-running": {out: "Failed to connect to bus: No such file or directory\n", err: true}}}, false,
			"is-system-running: Failed to connect to bus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newManager(t, Linux, c.tools, c.env)
			if c.noTool {
				m.LookPath = func(string) (string, error) { return "", errors.New("not found") }
			}
			_, err := m.Install(context.Background())
			if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
			if r, ok := remedy.Of(err); !ok || r.Value == "" {
				t.Errorf("no fix: %v", err)
			}
			if _, err := os.Stat(m.Unit.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the unit was written: %v", err)
			}
		})
	}
}

// TestUninstall_Systemd_FakeSystemctl: stops and disables, removes gw's file, reloads; then there is nothing
// to remove.
func TestUninstall_Systemd_FakeSystemctl(t *testing.T) {
	tools := running()
	m := newManager(t, Linux, tools, sessionEnv)
	if _, err := m.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	tools.ran = nil
	c, err := m.Uninstall(context.Background())
	if err != nil || c.File != "remove" {
		t.Fatalf("%+v %v", c, err)
	}
	want := []string{"systemctl --user is-system-running", "systemctl --user disable --now gw.service", "systemctl --user daemon-reload"}
	if !slices.Equal(tools.ran, want) {
		t.Errorf("ran %q, want %q", tools.ran, want)
	}
	if _, err := os.Stat(m.Unit.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
	if c, err := m.Uninstall(context.Background()); err != nil || c.File != "none" {
		t.Errorf("again: %+v %v", c, err)
	}
}

// TestState_Systemd_FakeSystemctl reads what systemctl says.
func TestState_Systemd_FakeSystemctl(t *testing.T) {
	tools := running()
	m := newManager(t, Linux, tools, sessionEnv)
	if st, err := m.State(context.Background()); err != nil || st.Owner != Absent {
		t.Fatalf("%+v %v", st, err)
	}
	if _, err := m.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	tools.answers["systemctl --user is-active gw.service"] = fakeAnswer{out: "failed\n", err: true}
	st, _ := m.State(context.Background())
	if st.Owner != Ours || !st.Current || st.Running || st.Detail != "failed" {
		t.Errorf("%+v", st)
	}
	tools.answers["systemctl --user is-active gw.service"] = fakeAnswer{out: "active\n"}
	if st, _ = m.State(context.Background()); !st.Running {
		t.Errorf("%+v", st)
	}
}

// TestInstall_Launchd_FakeLaunchctl_LaunchdCannotRunHere: bootstrap into the GUI domain the first time;
// kickstart when it is loaded and unchanged; bootout first when it is loaded and changed. No GUI session
// is refused.
func TestInstall_Launchd_FakeLaunchctl_LaunchdCannotRunHere(t *testing.T) {
	tools := &fakeTools{answers: map[string]fakeAnswer{"launchctl print gui/501/" + LaunchLabel: {err: true}}}
	m := newManager(t, Darwin, tools, nil)
	if _, err := m.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	target := "gui/501/" + LaunchLabel
	want := []string{"launchctl print gui/501", "launchctl print " + target, "launchctl enable " + target, "launchctl bootstrap gui/501 " + m.Unit.Path}
	if !slices.Equal(tools.ran, want) {
		t.Errorf("ran %q\nwant %q", tools.ran, want)
	}
	tools.answers["launchctl print "+target] = fakeAnswer{out: "state = running\n"}
	tools.ran = nil
	if _, err := m.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := tools.ran[len(tools.ran)-1]; got != "launchctl kickstart "+target {
		t.Errorf("again ran %q", tools.ran)
	}
	if st, _ := m.State(context.Background()); !st.Running {
		t.Errorf("%+v", st)
	}
	tools.ran = nil
	if _, err := m.Uninstall(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tools.ran, "launchctl bootout "+target) {
		t.Errorf("uninstall ran %q", tools.ran)
	}

	tools = &fakeTools{answers: map[string]fakeAnswer{"launchctl print gui/501": {out: "Could not find domain for port identifier\n", err: true}}}
	m = newManager(t, Darwin, tools, nil)
	if _, err := m.Install(context.Background()); !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "no GUI login session") {
		t.Errorf("err = %v", err)
	}
}

// TestInstall_Schtasks_FakeSchtasks_WindowsCannotRunHere: /Create from the XML and /Run; a task of the name
// gw did not create is refused, on install and uninstall.
func TestInstall_Schtasks_FakeSchtasks_WindowsCannotRunHere(t *testing.T) {
	query := `schtasks /Query /TN 'gw serve' /XML`
	tools := &fakeTools{answers: map[string]fakeAnswer{query: {err: true}}}
	m := newManager(t, Windows, tools, nil)
	if _, err := m.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{query, "schtasks /Create /TN 'gw serve' /XML " + m.Unit.Path + " /F", "schtasks /Run /TN 'gw serve'"}
	if !slices.Equal(tools.ran, want) {
		t.Errorf("ran %q\nwant %q", tools.ran, want)
	}
	b, _ := os.ReadFile(m.Unit.Path)
	if OwnerOf(b) != Ours || b[0] != 0xff {
		t.Error("the task file is not gw's UTF-16 file")
	}

	tools.answers[query] = fakeAnswer{out: "<Task><RegistrationInfo><Description>backup</Description></RegistrationInfo></Task>"}
	for _, op := range []func(context.Context) (Change, error){m.Install, m.Uninstall} {
		if _, err := op(context.Background()); !errors.As(err, new(*NotOursError)) || !strings.Contains(err.Error(), `a task named "gw serve"`) {
			t.Errorf("err = %v", err)
		}
	}
	tools.answers[query] = fakeAnswer{out: string(m.Unit.Data)}
	tools.ran = nil
	if _, err := m.Uninstall(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tools.ran, "schtasks /Delete /TN 'gw serve' /F") {
		t.Errorf("uninstall ran %q", tools.ran)
	}
}

// TestInstall_SomethingElseAtThePath: a directory (or a pipe) where the unit goes is refused with its name,
// unread and left as it is.
func TestInstall_SomethingElseAtThePath(t *testing.T) {
	tools := running()
	m := newManager(t, Linux, tools, sessionEnv)
	if err := os.MkdirAll(m.Unit.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, op := range []func(context.Context) (Change, error){m.Install, m.Uninstall} {
		if _, err := op(context.Background()); err == nil || !strings.Contains(err.Error(), m.Unit.Path) || !strings.Contains(err.Error(), "directory") {
			t.Errorf("err = %v", err)
		}
	}
	if fi, err := os.Stat(m.Unit.Path); err != nil || !fi.IsDir() {
		t.Errorf("the directory is gone: %v", err)
	}
	if len(tools.ran) > 0 {
		t.Errorf("ran %q", tools.ran)
	}
}
