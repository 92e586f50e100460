// Package service implements `gw service install | uninstall | status`: gw serve started at login by the
// platform's own mechanism (a systemd user unit, a LaunchAgent, a logon task), restarted when it fails, with
// the key still read from the OS keychain.
package service

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/tui"
)

// Options are what the three commands share: the platform and how its tools are reached, which tests
// replace.
type Options struct {
	IO     *tui.IOStreams
	Getenv func(string) string
	Config func() (config.File, config.Paths, error)
	// Platform is runtime.GOOS's name of the platform whose file is written.
	Platform string
	// Run runs the platform's tool (autostart.Exec).
	Run autostart.Runner
	// LookPath finds the platform's tool (exec.LookPath).
	LookPath func(string) (string, error)
	// Executable is the absolute path of the running gw.
	Executable func() (string, error)
}

func defaults(f *cmdutil.Factory) *Options {
	return &Options{IO: f.IOStreams, Getenv: f.Getenv, Config: f.Config, Platform: runtime.GOOS, Run: autostart.Exec, LookPath: exec.LookPath, Executable: gwPath}
}

// NewCmdService attaches the service subcommands.
func NewCmdService(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service <command>",
		Short: "Start gw serve at login, restarted when it fails",
		Long: `Have the platform start gw serve at login and restart it when it fails: a systemd user unit on
Linux, a LaunchAgent on macOS, a logon task of the Task Scheduler on Windows. It runs this gw binary's
gw serve (with --port when gw's config names another port), which writes each request to gw's
request log. On Windows the task runs gw serve --background: gw lets go of the console window
Windows opens for it, so no window stays open that could stop it when closed; it writes what it
has to say to the request log (gw logs) and serves again when serving fails. No file holds the
key: gw serve reads it from the OS keychain in your login session (Linux: the Secret Service,
gnome-keyring or KWallet, on the session D-Bus; macOS: the login keychain; Windows: Credential
Manager).`,
	}
	cmd.AddCommand(NewCmdInstall(f, nil))
	cmd.AddCommand(NewCmdUninstall(f, nil))
	cmd.AddCommand(NewCmdStatus(f, nil))
	return cmd
}

// gwPath is the path of the running gw as it was started: os.Executable resolves symlinks on Linux, and a
// package manager's link (…/bin/gw → …/Cellar/gw/1.2/bin/gw) must stay a link, or the unit would start the
// old version after an upgrade.
func gwPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the path of the gw binary: %w", err)
	}
	return gwPathFrom(os.Args[0], exe, exec.LookPath), nil
}

// gwPathFrom is the path gw was started by (arg0, found on PATH when it names no directory) when that is
// the running binary exe, else exe.
func gwPathFrom(arg0, exe string, lookPath func(string) (string, error)) string {
	if !strings.ContainsRune(arg0, filepath.Separator) && !strings.ContainsRune(arg0, '/') {
		if p, err := lookPath(arg0); err == nil {
			arg0 = p
		}
	}
	if abs, err := filepath.Abs(arg0); err == nil && sameFile(abs, exe) {
		return abs
	}
	return exe
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// setup is the unit for this install: this gw, the config's port, and where the config and state are when
// the environment says so (a login session does not have the shell's variables).
type setup struct {
	mgr   autostart.Manager
	cfg   config.File
	paths config.Paths
	// notes are things the user should know (a variable the login session will not see).
	notes []string
}

func (o *Options) setup() (*setup, error) {
	cfg, paths, err := o.Config()
	if err != nil {
		return nil, err
	}
	exe, err := o.Executable()
	if err != nil {
		return nil, err
	}
	s := autostart.Spec{Exe: exe, Home: o.Getenv("HOME"), UID: os.Getuid(), TaskDir: paths.ConfigDir}
	if s.Home == "" {
		if s.Home, err = os.UserHomeDir(); err != nil {
			return nil, fmt.Errorf("cannot find your home directory: %w", err)
		}
	}
	if port := cfg.ServePort(); port != config.DefaultPort {
		s.Port = port
	}
	var notes []string
	var set []string
	for _, name := range []string{config.EnvConfigDir, config.EnvStateDir, "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		if o.Getenv(name) != "" {
			set = append(set, name)
		}
	}
	if len(set) > 0 {
		if o.Platform == autostart.Windows {
			notes = append(notes, strings.Join(set, " and ")+" set here reach the logon task only as user environment variables (setx)")
		} else {
			s.Env = []string{config.EnvConfigDir + "=" + paths.ConfigDir, config.EnvStateDir + "=" + paths.StateDir}
		}
	}
	if o.Platform == autostart.Windows {
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("cannot find your account name: %w", err)
		}
		s.User = u.Username
	}
	if v := o.Getenv(config.EnvBaseURL); v != "" && v != cfg.BaseURL {
		notes = append(notes, config.EnvBaseURL+" is set here, but gw serve started at login does not see it: it uses the base URL in gw's config file (save it with: gw auth login --base-url URL)")
	}
	if o.Getenv("GW_API_KEY") != "" {
		notes = append(notes, "GW_API_KEY is set here, but gw serve started at login does not see it: it reads the key from the OS keychain (store it there with: gw auth login)")
	}
	u, err := autostart.Generate(o.Platform, s)
	if err != nil {
		var ue *autostart.UnsupportedError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot write the login service: %w", err)
	}
	return &setup{
		mgr:   autostart.Manager{Unit: u, Run: o.Run, Getenv: o.Getenv, LookPath: o.LookPath},
		cfg:   cfg,
		paths: paths,
		notes: notes,
	}, nil
}

func (s *setup) printNotes(o *Options) {
	for _, n := range s.notes {
		fmt.Fprintf(o.IO.ErrOut, "! %s\n", safetext.Text(n))
	}
}

// commandLine is the command the file starts, as a shell would take it.
func commandLine(u autostart.Unit) string { return autostart.Command(u.Args()).String() }

func splitLines(text string) []string {
	return strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
}
