// Package autostart writes what starts gw serve at login, and installs it with the platform's own tool: a
// systemd user unit on Linux, a LaunchAgent on macOS, a logon task of the Task Scheduler on Windows. Each
// one runs `gw serve` (`gw serve --background` on Windows; with --port when gw's config names another port
// than the default), has it restarted when it fails (on Windows, where the Task Scheduler does not, gw serve
// --background tries again itself; a crash waits for the next logon), and holds no secret: gw serve reads
// the key from the OS keychain each time it starts, which is
// why each file starts it inside the user's login session, where that keychain is reachable.
//
// Generating a file is pure (Generate) and is tested on every platform; installing it goes through a
// Runner, so that the commands are tested without the platform's tool. Detach is for the other way gw serve
// starts without a terminal: on demand, by an agent's credential command (gw auth token --serve).
package autostart

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The platforms, as runtime.GOOS names them.
const (
	Linux   = "linux"
	Darwin  = "darwin"
	Windows = "windows"
)

// Names of what gw installs. They are fixed, so that a second install finds the first.
const (
	SystemdUnit = "gw.service"
	LaunchLabel = "com.modelgateway.gw.serve"
	TaskName    = "gw serve"
)

// Spec is what the file starts and where it goes.
type Spec struct {
	// Exe is the absolute path of the gw binary that runs.
	Exe string
	// Port is the port for gw serve's --port; 0 leaves it out (gw serve then listens on the config's port).
	Port int
	// Env are NAME=value pairs gw serve needs to find this install's config and state (GW_CONFIG_DIR,
	// GW_STATE_DIR): a login session does not have the shell's variables. Never a secret.
	Env []string
	// Home is the user's home directory (the unit and the LaunchAgent go below it).
	Home string
	// UID is the user's id, for launchd's gui/UID domain.
	UID int
	// User is the account whose logon starts the Windows task (DOMAIN\user).
	User string
	// TaskDir is the directory gw keeps the Windows task's XML in (gw's config directory).
	TaskDir string
}

// Args is the command line the file starts.
func (s Spec) Args() []string {
	a := []string{s.Exe, "serve"}
	if s.Port != 0 {
		a = append(a, "--port", strconv.Itoa(s.Port))
	}
	return a
}

// Unit is one platform's file for one Spec.
type Unit struct {
	Platform string
	// Name is what the platform's tool calls it: the unit's name, the LaunchAgent's label, the task's name.
	Name string
	// Path is where the file goes.
	Path string
	// Text is the file as a person reads it; Data is the file as written (the same bytes, except on
	// Windows, where the Task Scheduler reads UTF-16).
	Text string
	Data []byte
	// Needs says what the platform needs so that gw serve, started there, can read the key.
	Needs string
	spec  Spec
}

// Args is the command line the file starts: on Windows with BackgroundFlag, which the logon task needs (see
// BackgroundFlag); systemd and launchd start gw serve as it is, and keep its output themselves.
func (u Unit) Args() []string { return u.spec.argsFor(u.Platform) }

func (s Spec) argsFor(platform string) []string {
	a := s.Args()
	if platform == Windows {
		a = slices.Insert(a, 2, BackgroundFlag)
	}
	return a
}

// Inspect is where to see what became of gw serve started there: its output and exit status.
func (u Unit) Inspect() string {
	switch u.Platform {
	case Linux:
		return "journalctl --user -u " + SystemdUnit
	case Darwin:
		return "launchctl print gui/" + strconv.Itoa(u.spec.UID) + "/" + LaunchLabel
	}
	return "gw logs (gw serve started by the task writes what it says to its request log), and the task's History in the Task Scheduler (taskschd.msc)"
}

// Generate makes the file for platform (runtime.GOOS's names). It runs nothing and touches nothing.
func Generate(platform string, s Spec) (Unit, error) {
	if s.Exe == "" || !isAbs(platform, s.Exe) {
		return Unit{}, fmt.Errorf("the path of gw %q is not absolute", s.Exe)
	}
	for _, kv := range s.Env {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" {
			return Unit{}, fmt.Errorf("the environment entry %q is not NAME=value", kv)
		}
	}
	if strings.ContainsAny(strings.Join(append(s.Args(), s.Env...), ""), "\x00\n\r") {
		return Unit{}, errors.New("the path of gw or a directory of its config holds a line break or NUL byte, which no service file can carry")
	}
	var u Unit
	switch platform {
	case Linux:
		if strings.ContainsAny(s.Exe, `"'\`) {
			return Unit{}, fmt.Errorf("systemd does not start a program whose path holds a quote or a backslash (%s): move gw to a directory without them", s.Exe)
		}
		u = systemdUnit(s)
	case Darwin:
		u = launchAgent(s)
	case Windows:
		if s.User == "" || s.TaskDir == "" {
			return Unit{}, errors.New("the Windows task needs the user's account name and gw's config directory")
		}
		u = logonTask(s)
	default:
		return Unit{}, &UnsupportedError{Platform: platform}
	}
	u.Platform, u.spec = platform, s
	u.Text = mark(u.Text)
	u.Data = []byte(u.Text)
	if platform == Windows {
		u.Data = encodeUTF16(u.Text)
	}
	return u, nil
}

// UnsupportedError: gw knows no login mechanism of the platform.
type UnsupportedError struct{ Platform string }

func (e *UnsupportedError) Error() string {
	return "gw service supports Linux (systemd), macOS (launchd) and Windows (Task Scheduler), not " + e.Platform
}

func isAbs(platform, p string) bool {
	if platform == Windows {
		return len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

// The marker line says that gw wrote the file, with a checksum of the rest of it: a file without the line is
// the user's, and one whose checksum no longer matches was edited by the user since; gw overwrites or
// removes neither.
const (
	markerText = "Written by gw service install; gw service uninstall removes it. checksum "
	sumPlace   = "CHECKSUM"
)

// mark puts the checksum into the marker line of text, which holds sumPlace there.
func mark(text string) string {
	sum := sha256.Sum256([]byte(text))
	return strings.Replace(text, markerText+sumPlace, markerText+hex.EncodeToString(sum[:8]), 1)
}

func isHex(b byte) bool { return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' }

// Owner is whose a file at a unit's path is.
type Owner int

const (
	Absent  Owner = iota // no file
	Ours                 // written by gw, unchanged since
	Edited               // written by gw, then changed by someone
	Foreign              // not written by gw
)

func (o Owner) String() string {
	return [...]string{"absent", "gw's", "edited", "not gw's"}[o]
}

// OwnerOf says whose data (a file's content) is.
func OwnerOf(data []byte) Owner {
	text := decodeText(data)
	i := strings.Index(text, markerText)
	if i < 0 {
		return Foreign
	}
	at := i + len(markerText)
	const n = 16
	if len(text) < at+n {
		return Edited
	}
	for j := at; j < at+n; j++ {
		if !isHex(text[j]) {
			return Edited
		}
	}
	if mark(text[:at]+sumPlace+text[at+n:]) == text {
		return Ours
	}
	return Edited
}

// decodeText is data as text: UTF-16 with a byte order mark (the Task Scheduler's XML), else as it is.
func decodeText(data []byte) string {
	le := bytes.HasPrefix(data, []byte{0xff, 0xfe})
	if !le && !bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return string(data)
	}
	data = data[2:]
	u := make([]uint16, len(data)/2)
	for i := range u {
		if le {
			u[i] = uint16(data[2*i]) | uint16(data[2*i+1])<<8
		} else {
			u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		}
	}
	return string(utf16.Decode(u))
}

// encodeUTF16 is text as UTF-16 little-endian with a byte order mark, as Windows writes task XML.
func encodeUTF16(text string) []byte {
	u := utf16.Encode([]rune(text))
	b := make([]byte, 2, 2+2*len(u))
	b[0], b[1] = 0xff, 0xfe
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	return b
}

// Runner runs a platform tool and returns what it printed (standard output and error together).
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Exec is the Runner of the real tools.
func Exec(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// Command is one command line of a platform tool, as install and uninstall run it.
type Command []string

func (c Command) String() string {
	q := make([]string, len(c))
	for i, a := range c {
		q[i] = shellWord(a)
	}
	return strings.Join(q, " ")
}

// shellWord quotes a for a POSIX shell where it needs it, so that a printed command can be pasted.
func shellWord(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
