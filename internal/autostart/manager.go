package autostart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
)

// maxFile bounds what gw reads of a file at the unit's path (its own are about 2 kB).
const maxFile = 1 << 20

// Manager installs, removes and inspects one Unit with the platform's tool.
type Manager struct {
	Unit     Unit
	Run      Runner
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// ErrNotReady: the platform's mechanism is missing here (no systemd user instance, no GUI session, no
// Task Scheduler); the error says which, and carries what to do about it.
var ErrNotReady = errors.New("cannot start gw serve at login here")

// NotOursError: a file (or a Windows task) of that name is there that gw did not write, or one gw wrote
// that was changed since; gw neither overwrites nor removes it.
type NotOursError struct {
	Path string
	msg  string
}

func (e *NotOursError) Error() string { return e.msg }

func notReady(what, fix string) error {
	return remedy.With(fmt.Errorf("%w: %s", ErrNotReady, what), remedy.Remedy{Do: remedy.Say, Value: fix})
}

// Ready checks that the platform's mechanism works for this user, here and now.
func (m Manager) Ready(ctx context.Context) error {
	u := m.Unit
	switch u.Platform {
	case Linux:
		if _, err := m.LookPath("systemctl"); err != nil {
			return notReady("systemd is not this system's service manager (there is no systemctl)",
				"start gw serve another way, e.g. from your shell's profile or your desktop's autostart")
		}
		if m.Getenv("XDG_RUNTIME_DIR") == "" {
			return notReady("there is no systemd user instance in this session (XDG_RUNTIME_DIR is not set, as in a su or sudo shell or a container)",
				"log in as this user directly (a desktop or ssh session), or enable one with: loginctl enable-linger "+cmpUser(m.Getenv)+"; then try again")
		}
		out, _ := m.Run(ctx, "systemctl", "--user", "is-system-running")
		switch state := firstLine(out); state {
		case "running", "degraded", "starting", "initializing":
			return nil
		default:
			return notReady("no systemd user instance answers (systemctl --user is-system-running: "+orNothing(state)+")",
				"log in as this user through systemd-logind (a desktop or ssh session), or run: loginctl enable-linger "+cmpUser(m.Getenv)+"; then try again")
		}
	case Darwin:
		if _, err := m.LookPath("launchctl"); err != nil {
			return notReady("there is no launchctl", "start gw serve another way")
		}
		if out, err := m.Run(ctx, "launchctl", "print", m.domain()); err != nil {
			return notReady("there is no GUI login session for this user (launchctl print "+m.domain()+": "+orNothing(firstLine(out))+")",
				"log in at the Mac's screen and run this from a Terminal there")
		}
		return nil
	case Windows:
		if _, err := m.LookPath("schtasks"); err != nil {
			return notReady("there is no schtasks (the Task Scheduler's command)", "start gw serve another way, e.g. from the Startup folder")
		}
		return nil
	}
	return &UnsupportedError{Platform: u.Platform}
}

func cmpUser(getenv func(string) string) string {
	if u := getenv("USER"); u != "" {
		return u
	}
	return "$USER"
}

func orNothing(s string) string {
	if s == "" {
		return "no answer"
	}
	return s
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(s)
}

func (m Manager) domain() string { return "gui/" + strconv.Itoa(m.Unit.spec.UID) }
func (m Manager) target() string { return m.domain() + "/" + m.Unit.Name }

// File says whose the file at the unit's path is, and whether it is exactly what Generate made.
func (m Manager) File() (Owner, bool, error) {
	data, err := fsutil.ReadRegular(m.Unit.Path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Absent, false, nil
	}
	if err != nil {
		return Absent, false, err
	}
	return OwnerOf(data), bytes.Equal(data, m.Unit.Data), nil
}

// taskOwner says whose a registered Windows task of gw's name is (Absent when there is none).
func (m Manager) taskOwner(ctx context.Context) Owner {
	out, err := m.Run(ctx, "schtasks", "/Query", "/TN", TaskName, "/XML")
	if err != nil {
		return Absent
	}
	if strings.Contains(decodeText(out), taskOwnedText) {
		return Ours
	}
	return Foreign
}

// refuse is the error for a file gw will not touch.
func (m Manager) refuse(o Owner, doing string) error {
	p := m.Unit.Path
	if o == Foreign && m.Unit.Platform == Windows {
		return remedy.With(&NotOursError{Path: p, msg: fmt.Sprintf("a task named %q is registered and gw did not create it; gw leaves it alone", TaskName)},
			remedy.Remedy{Do: remedy.Say, Value: "delete or rename that task in the Task Scheduler, then try again"})
	}
	if o == Foreign {
		return remedy.With(&NotOursError{Path: p, msg: p + " exists and gw did not write it; gw leaves it alone"},
			remedy.Remedy{Do: remedy.Say, Value: "remove or rename that file yourself, then try again"})
	}
	fix := "remove the file yourself, then try again"
	if m.Unit.Platform == Linux {
		fix = "move your changes to a drop-in (systemctl --user edit " + SystemdUnit + ") and remove the file yourself, then try again"
	}
	return remedy.With(&NotOursError{Path: p, msg: fmt.Sprintf("%s was changed since gw wrote it, so gw does not %s it", p, doing)},
		remedy.Remedy{Do: remedy.Say, Value: fix})
}

// Change is what install or uninstall did, or would do.
type Change struct {
	// File: "write" (a new file), "replace" (gw's older file), "keep" (already this one), "remove", "none"
	// (nothing to remove).
	File string
	// Commands run before the file is removed (uninstall), or after it is written (install); After run
	// once it is removed.
	Commands []Command
	After    []Command
}

// PlanInstall is what Install does, without querying the platform's tool: the commands of a first install
// when the file is new or changed, and of a re-run otherwise. It refuses a file gw did not write or that was
// edited.
func (m Manager) PlanInstall() (Change, error) {
	o, same, err := m.File()
	if err != nil {
		return Change{}, err
	}
	if o == Foreign || o == Edited {
		return Change{}, m.refuse(o, "replace")
	}
	c := Change{File: "write"}
	switch {
	case same:
		c.File = "keep"
	case o == Ours:
		c.File = "replace"
	}
	c.Commands = m.installCommands(c.File, false, false)
	return c, nil
}

// installCommands are the commands after the file is written (or kept). loaded: launchd has the agent
// loaded already; registered: the Windows task exists.
func (m Manager) installCommands(file string, loaded, registered bool) []Command {
	switch m.Unit.Platform {
	case Linux:
		sc := func(a ...string) Command { return append(Command{"systemctl", "--user"}, a...) }
		switch file {
		case "keep":
			return []Command{sc("enable", "--now", SystemdUnit)}
		case "replace":
			return []Command{sc("daemon-reload"), sc("enable", "--now", SystemdUnit), sc("restart", SystemdUnit)}
		}
		return []Command{sc("daemon-reload"), sc("enable", "--now", SystemdUnit)}
	case Darwin:
		if file == "keep" && loaded {
			return []Command{{"launchctl", "kickstart", m.target()}}
		}
		var cs []Command
		if loaded {
			cs = append(cs, Command{"launchctl", "bootout", m.target()})
		}
		return append(cs, Command{"launchctl", "enable", m.target()}, Command{"launchctl", "bootstrap", m.domain(), m.Unit.Path})
	case Windows:
		run := Command{"schtasks", "/Run", "/TN", TaskName}
		if file == "keep" && registered {
			return []Command{run}
		}
		var cs []Command
		if registered {
			cs = append(cs, Command{"schtasks", "/End", "/TN", TaskName})
		}
		return append(cs, Command{"schtasks", "/Create", "/TN", TaskName, "/XML", m.Unit.Path, "/F"}, run)
	}
	return nil
}

// Install writes the file (atomically, mode 0644: it holds no secret) unless it is there already, then
// enables and starts it. Run again, it changes nothing but starts gw serve if it stopped.
func (m Manager) Install(ctx context.Context) (Change, error) {
	c, err := m.PlanInstall()
	if err != nil {
		return Change{}, err
	}
	if err := m.Ready(ctx); err != nil {
		return Change{}, err
	}
	var loaded, registered bool
	switch m.Unit.Platform {
	case Darwin:
		_, err := m.Run(ctx, "launchctl", "print", m.target())
		loaded = err == nil
	case Windows:
		switch m.taskOwner(ctx) {
		case Foreign:
			return Change{}, m.refuse(Foreign, "replace")
		case Ours:
			registered = true
		}
	}
	c.Commands = m.installCommands(c.File, loaded, registered)
	if c.File != "keep" {
		if err := fsutil.WriteAtomic(m.Unit.Path, m.Unit.Data, 0o644); err != nil {
			return Change{}, err
		}
	}
	return c, m.runAll(ctx, c.Commands, nil)
}

// runAll runs the commands in order and stops at the first that fails, except those in mayFail (stopping
// what is not running fails, and is fine).
func (m Manager) runAll(ctx context.Context, cs []Command, mayFail map[string]bool) error {
	for _, c := range cs {
		out, err := m.Run(ctx, c[0], c[1:]...)
		if err != nil && !mayFail[c.String()] {
			msg := firstLine(out)
			if msg == "" {
				msg = err.Error()
			}
			return fmt.Errorf("%s failed: %s", c, msg)
		}
	}
	return nil
}

// Uninstall stops and disables gw serve and removes gw's own file; a file gw did not write, or one that was
// edited, is refused and left as it is. Nothing installed is not an error (File "none").
func (m Manager) Uninstall(ctx context.Context) (Change, error) {
	o, _, err := m.File()
	if err != nil {
		return Change{}, err
	}
	if o == Foreign || o == Edited {
		return Change{}, m.refuse(o, "remove")
	}
	registered := false
	if m.Unit.Platform == Windows {
		switch m.taskOwner(ctx) {
		case Foreign:
			return Change{}, m.refuse(Foreign, "remove")
		case Ours:
			registered = true
		}
	}
	if o == Absent && !registered {
		return Change{File: "none"}, nil
	}
	if err := m.Ready(ctx); err != nil {
		return Change{}, err
	}
	c := Change{File: "remove"}
	var after []Command
	mayFail := map[string]bool{}
	switch m.Unit.Platform {
	case Linux:
		c.Commands = []Command{{"systemctl", "--user", "disable", "--now", SystemdUnit}}
		after = []Command{{"systemctl", "--user", "daemon-reload"}}
	case Darwin:
		if _, err := m.Run(ctx, "launchctl", "print", m.target()); err == nil {
			c.Commands = []Command{{"launchctl", "bootout", m.target()}}
		}
	case Windows:
		if registered {
			end := Command{"schtasks", "/End", "/TN", TaskName}
			mayFail[end.String()] = true
			c.Commands = []Command{end, {"schtasks", "/Delete", "/TN", TaskName, "/F"}}
		}
	}
	if err := m.runAll(ctx, c.Commands, mayFail); err != nil {
		return Change{}, err
	}
	if o != Absent {
		if err := fsutil.Remove(m.Unit.Path); err != nil {
			return Change{}, fmt.Errorf("cannot remove %s: %w", m.Unit.Path, fsutil.OSReason(err))
		}
	}
	c.After = after
	return c, m.runAll(ctx, after, nil)
}

// State is what the platform says of gw's file.
type State struct {
	Owner Owner
	// Current: the file is exactly what gw service install writes now (same gw, same port).
	Current bool
	// Running is whether the platform runs it; Detail is the platform's word for it ("active", "running",
	// …), or why it could not be asked.
	Running bool
	Detail  string
}

// State inspects the file and asks the platform whether it runs.
func (m Manager) State(ctx context.Context) (State, error) {
	o, same, err := m.File()
	if err != nil {
		return State{}, err
	}
	st := State{Owner: o, Current: same}
	if m.Unit.Platform == Windows {
		if to := m.taskOwner(ctx); to != Absent && (o == Absent || o == Ours) {
			st.Owner = to
		}
	}
	if st.Owner == Absent {
		return st, nil
	}
	if err := m.Ready(ctx); err != nil {
		st.Detail = err.Error()
		return st, nil
	}
	switch m.Unit.Platform {
	case Linux:
		out, _ := m.Run(ctx, "systemctl", "--user", "is-active", SystemdUnit)
		st.Detail = orNothing(firstLine(out))
		st.Running = st.Detail == "active"
	case Darwin:
		out, err := m.Run(ctx, "launchctl", "print", m.target())
		switch {
		case err != nil:
			st.Detail = "not loaded"
		case bytes.Contains(out, []byte("state = running")):
			st.Running, st.Detail = true, "running"
		default:
			st.Detail = "loaded, not running"
		}
	case Windows:
		out, err := m.Run(ctx, "schtasks", "/Query", "/TN", TaskName, "/FO", "CSV", "/NH")
		switch {
		case err != nil:
			st.Detail = "not registered"
		case bytes.Contains(out, []byte(`"Running"`)):
			st.Running, st.Detail = true, "running"
		default:
			st.Detail = "not running"
		}
	}
	return st, nil
}
