package cmdutil

import (
	"context"
	"os"
	"os/exec"

	"github.com/modelgateway/gw/internal/autostart"
)

// LoginService is what keeps gw serve running on this machine: gw's login service (gw service install)
// where the platform has a service manager for this user, else a gw serve the user starts.
type LoginService struct {
	Installed bool // gw service install wrote its file (or one edited since)
	Running   bool // the platform runs it
	// NotReady is why the platform cannot start gw serve at login here (no systemd user instance, no GUI
	// session…); nil when it can.
	NotReady error
	// Windows: the line that starts gw serve differs.
	Windows bool
}

// LoginServiceOn asks the service manager of platform goos (autostart.Linux…; NewFactory's LoginService
// passes runtime.GOOS) about gw's login service (internal/autostart), as gw service status does. It runs
// the platform's tool (systemctl, launchctl, schtasks) once or twice.
func (f *Factory) LoginServiceOn(ctx context.Context, goos string) LoginService {
	ls := LoginService{Windows: goos == autostart.Windows}
	exe, err := os.Executable()
	if err != nil {
		ls.NotReady = err
		return ls
	}
	home := f.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	s := autostart.Spec{Exe: exe, Home: home, UID: os.Getuid()}
	if _, paths, err := f.Config(); err == nil {
		s.TaskDir = paths.ConfigDir
	}
	u, err := autostart.Generate(goos, s)
	if err != nil {
		ls.NotReady = err
		return ls
	}
	m := autostart.Manager{Unit: u, Run: autostart.Exec, Getenv: f.Getenv, LookPath: exec.LookPath}
	if ls.NotReady = m.Ready(ctx); ls.NotReady != nil {
		return ls
	}
	st, err := m.State(ctx)
	if err == nil {
		ls.Installed = st.Owner == autostart.Ours || st.Owner == autostart.Edited
		ls.Running = st.Running
	}
	return ls
}

// StartServeLine is the command line that starts gw serve so that it outlives the shell it is typed in.
func (ls LoginService) StartServeLine() string {
	if ls.Windows {
		return "gw serve " + autostart.BackgroundFlag
	}
	return "nohup gw serve >/dev/null 2>&1 &"
}

// KeepServing says what keeps gw serve running for agent (its display name) where nothing starts it on
// demand: "" when gw's login service runs it already.
func (ls LoginService) KeepServing(agent string) string {
	switch {
	case ls.Installed && ls.Running:
		return ""
	case ls.Installed:
		return "gw serve's login service is installed but not running; see why: gw service status"
	case ls.NotReady == nil:
		return "run gw service install: it starts gw serve now and at every login, so " + agent +
			" finds it whenever you start it (or keep gw serve running in a terminal of its own)"
	}
	return "start gw serve and leave it running: " + ls.StartServeLine() + "\n(" + ls.NotReady.Error() + ")"
}
