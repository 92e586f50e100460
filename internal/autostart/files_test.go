package autostart

import (
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hostileDir is a directory name with every character the files must quote or escape: systemd's parser
// reads the space, % and $ in a path, and refuses quotes and backslashes in it (see
// TestGenerate_RefusesWhatNoFileCanCarry); the plist and the task XML take those too.
const hostileDir = `gw dir %n $HOME & <x> ;`

func linuxSpec(exe string) Spec {
	return Spec{Exe: exe, Port: 8799, Home: "/home/u", Env: []string{"GW_CONFIG_DIR=/home/u/conf %h $HOME", "GW_STATE_DIR=/home/u/state"}}
}

// TestSystemdUnit_VerifiedBySystemdAnalyze has systemd itself read the unit: systemd-analyze verify checks its
// syntax and that the ExecStart= program exists, so the quoted path of a gw in a directory named with
// spaces, %, $, quotes and backslashes must come out of systemd's parser as exactly that path. A path
// that does not exist must fail, which shows verify really looks at it. ExecStart (the reader gw service
// status and the tests use) must give the same command line and environment back.
func TestSystemdUnit_VerifiedBySystemdAnalyze(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("GW_REQUIRE_SYSTEMD_ANALYZE") == "1" {
			t.Fatal("systemd-analyze not found, and GW_REQUIRE_SYSTEMD_ANALYZE=1 (install: apt-get install -y systemd)")
		}
		t.Skip("systemd-analyze not found (apt-get install -y systemd): the unit is only parsed here")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, hostileDir, "gw")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	verify := func(exe string) (string, error) {
		u, err := Generate(Linux, linuxSpec(exe))
		if err != nil {
			t.Fatal(err)
		}
		unitDir := t.TempDir()
		path := filepath.Join(unitDir, SystemdUnit)
		if err := os.WriteFile(path, u.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		runtime := t.TempDir() // --user needs a runtime directory; no user manager is started
		cmd := exec.Command(tool, "--user", "verify", path)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtime, "SYSTEMD_LOG_COLOR=0")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := verify(exe); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	missing := filepath.Join(dir, hostileDir, "not-gw")
	if out, err := verify(missing); err == nil || !strings.Contains(out, "not-gw") {
		t.Fatalf("systemd-analyze verify accepted a missing program: %v\n%s", err, out)
	}

	u, _ := Generate(Linux, linuxSpec(exe))
	args, env, err := ExecStart(u.Text)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{exe, "serve", "--port", "8799"}; !slices.Equal(args, want) {
		t.Errorf("ExecStart = %q, want %q", args, want)
	}
	if want := linuxSpec(exe).Env; !slices.Equal(env, want) {
		t.Errorf("Environment = %q, want %q", env, want)
	}
}

// TestSystemdUnit_StartsAtLoginAndRestarts pins what the unit asks of systemd.
func TestSystemdUnit_StartsAtLoginAndRestarts(t *testing.T) {
	u, err := Generate(Linux, Spec{Exe: "/usr/local/bin/gw", Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/home/u/.config/systemd/user/gw.service" {
		t.Errorf("path %s", u.Path)
	}
	for _, line := range []string{"ExecStart=/usr/local/bin/gw serve\n", "Restart=on-failure\n", "WantedBy=default.target\n", "StartLimitIntervalSec=120\n", "StartLimitBurst=5\n"} {
		if !strings.Contains(u.Text, line) {
			t.Errorf("the unit lacks %q:\n%s", line, u.Text)
		}
	}
	if strings.Contains(u.Text, "Environment=") {
		t.Errorf("no directory to pin, yet the unit sets one:\n%s", u.Text)
	}
}

// plistValue is a property list value, read generically: enough to check what launchd would read.
type plistValue struct {
	kind  string // dict, array, string, integer, true, false
	text  string
	items []plistValue
	keys  []string
}

func (v plistValue) get(key string) (plistValue, bool) {
	for i, k := range v.keys {
		if k == key {
			return v.items[i], true
		}
	}
	return plistValue{}, false
}

func parsePlist(t *testing.T, data []byte) plistValue {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(data)))
	d.Strict = true
	var read func(start xml.StartElement) plistValue
	read = func(start xml.StartElement) plistValue {
		v := plistValue{kind: start.Name.Local}
		for {
			tok, err := d.Token()
			if err != nil {
				t.Fatalf("plist: %v", err)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if v.kind == "dict" && tok.Name.Local == "key" {
					var k string
					if err := d.DecodeElement(&k, &tok); err != nil {
						t.Fatal(err)
					}
					v.keys = append(v.keys, k)
					continue
				}
				v.items = append(v.items, read(tok))
			case xml.CharData:
				v.text += string(tok)
			case xml.EndElement:
				if v.kind == "dict" && len(v.keys) != len(v.items) {
					t.Fatalf("plist: a dict with %d keys and %d values", len(v.keys), len(v.items))
				}
				return v
			}
		}
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			t.Fatal("plist: no <plist> element")
		}
		if err != nil {
			t.Fatalf("plist: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "plist" {
				t.Fatalf("plist: the root is <%s>", se.Name.Local)
			}
			root := read(se)
			if len(root.items) != 1 || root.items[0].kind != "dict" {
				t.Fatalf("plist: the root holds %d values, want one dict", len(root.items))
			}
			return root.items[0]
		}
	}
}

// TestLaunchAgent_ParsedAsPlist_LaunchdCannotRunHere parses the LaunchAgent as a property list (strict XML)
// and checks what launchd reads from it: the label, the exact arguments (a path with &, <, > and quotes
// escaped), the environment, RunAtLoad and KeepAlive only on failure. launchd itself (plutil -lint,
// launchctl bootstrap) runs only on macOS; plutil is used where it is found.
func TestLaunchAgent_ParsedAsPlist_LaunchdCannotRunHere(t *testing.T) {
	exe := "/Users/u/" + hostileDir + ` "q" 'a' \b/gw`
	s := Spec{Exe: exe, Port: 8799, Home: "/Users/u", UID: 501, Env: []string{"GW_CONFIG_DIR=/Users/u/c & <d>"}}
	u, err := Generate(Darwin, s)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/Users/u/Library/LaunchAgents/com.modelgateway.gw.serve.plist" {
		t.Errorf("path %s", u.Path)
	}
	d := parsePlist(t, u.Data)
	str := func(key string) string {
		v, ok := d.get(key)
		if !ok || v.kind != "string" {
			t.Errorf("%s: %+v", key, v)
		}
		return v.text
	}
	if got := str("Label"); got != LaunchLabel {
		t.Errorf("Label %q", got)
	}
	pa, _ := d.get("ProgramArguments")
	var args []string
	for _, it := range pa.items {
		args = append(args, it.text)
	}
	if want := []string{exe, "serve", "--port", "8799"}; !slices.Equal(args, want) {
		t.Errorf("ProgramArguments = %q, want %q", args, want)
	}
	if v, _ := d.get("RunAtLoad"); v.kind != "true" {
		t.Errorf("RunAtLoad is %q", v.kind)
	}
	ka, _ := d.get("KeepAlive")
	if v, ok := ka.get("SuccessfulExit"); !ok || v.kind != "false" {
		t.Errorf("KeepAlive does not restart only on failure: %+v", ka)
	}
	env, _ := d.get("EnvironmentVariables")
	if v, ok := env.get("GW_CONFIG_DIR"); !ok || v.text != "/Users/u/c & <d>" {
		t.Errorf("EnvironmentVariables: %+v", env)
	}
	if plutil, err := exec.LookPath("plutil"); err == nil {
		path := filepath.Join(t.TempDir(), "gw.plist")
		if err := os.WriteFile(path, u.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(plutil, "-lint", path).CombinedOutput(); err != nil {
			t.Errorf("plutil -lint: %v\n%s", err, out)
		}
	}
}

// task is the part of the Task Scheduler's schema the logon task sets.
type task struct {
	XMLName      xml.Name `xml:"http://schemas.microsoft.com/windows/2004/02/mit/task Task"`
	Version      string   `xml:"version,attr"`
	Description  string   `xml:"RegistrationInfo>Description"`
	LogonEnabled string   `xml:"Triggers>LogonTrigger>Enabled"`
	LogonUser    string   `xml:"Triggers>LogonTrigger>UserId"`
	Principal    struct {
		ID        string `xml:"id,attr"`
		UserID    string `xml:"UserId"`
		LogonType string `xml:"LogonType"`
		RunLevel  string `xml:"RunLevel"`
	} `xml:"Principals>Principal"`
	TimeLimit     string `xml:"Settings>ExecutionTimeLimit"`
	Multiple      string `xml:"Settings>MultipleInstancesPolicy"`
	RestartEvery  string `xml:"Settings>RestartOnFailure>Interval"`
	RestartCount  string `xml:"Settings>RestartOnFailure>Count"`
	BatteriesStop string `xml:"Settings>StopIfGoingOnBatteries"`
	Actions       struct {
		Context   string `xml:"Context,attr"`
		Command   string `xml:"Exec>Command"`
		Arguments string `xml:"Exec>Arguments"`
	} `xml:"Actions"`
}

// TestLogonTask_ParsedAsTaskXML_WindowsCannotRunHere reads the task's file as schtasks /Create /XML does:
// UTF-16 with a byte order mark, then the task schema's elements: a logon trigger and principal for the
// user, in the user's session (InteractiveToken, where Credential Manager works), retried when it fails
// to start (with a Count the schema allows: 1–255), without a time limit, running gw serve --background
// (no console window; it restarts serving itself). The Task Scheduler itself runs only on Windows.
func TestLogonTask_ParsedAsTaskXML_WindowsCannotRunHere(t *testing.T) {
	s := Spec{Exe: `C:\Users\u\My Tools & <more>\gw.exe`, Port: 8799, User: `DESKTOP-1\u`, TaskDir: `C:\Users\u\AppData\Roaming\gw`}
	u, err := Generate(Windows, s)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != `C:\Users\u\AppData\Roaming\gw\gw-serve-task.xml` {
		t.Errorf("path %s", u.Path)
	}
	if u.Data[0] != 0xff || u.Data[1] != 0xfe {
		t.Fatalf("the file does not start with UTF-16LE's byte order mark: % x", u.Data[:4])
	}
	text := decodeText(u.Data)
	if text != u.Text || !strings.Contains(text, "\r\n") {
		t.Fatal("the UTF-16 file does not decode to the text shown, with Windows line ends")
	}
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = true
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if !strings.EqualFold(label, "UTF-16") {
			t.Errorf("the declaration says %s, the file is UTF-16", label)
		}
		return r, nil // already decoded
	}
	var got task
	if err := d.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := task{XMLName: got.XMLName, Version: "1.2", Description: got.Description, LogonEnabled: "true", LogonUser: s.User,
		TimeLimit: "PT0S", Multiple: "IgnoreNew", RestartEvery: "PT1M", RestartCount: "255", BatteriesStop: "false"}
	want.Actions.Context, want.Actions.Command, want.Actions.Arguments = "Author", s.Exe, "serve --background --port 8799"
	want.Principal.ID, want.Principal.UserID, want.Principal.LogonType, want.Principal.RunLevel = "Author", s.User, "InteractiveToken", "LeastPrivilege"
	if got != want {
		t.Errorf("task\n got %+v\nwant %+v", got, want)
	}
	if !strings.Contains(got.Description, taskOwnedText) {
		t.Errorf("the description does not say gw wrote it: %q", got.Description)
	}
	// The schema's restartType: Count is an unsignedByte of at least 1, Interval one minute to 31 days.
	if n, err := strconv.Atoi(got.RestartCount); err != nil || n < 1 || n > 255 {
		t.Errorf("RestartOnFailure Count %q is outside the schema's 1–255: schtasks /Create refuses the file", got.RestartCount)
	}
	if want := []string{s.Exe, "serve", BackgroundFlag, "--port", "8799"}; !slices.Equal(u.Args(), want) {
		t.Errorf("Args() = %q, want %q (what gw service status shows must be what the task runs)", u.Args(), want)
	}
	for _, p := range []string{Linux, Darwin} {
		other, err := Generate(p, Spec{Exe: "/usr/bin/gw", Port: 8799, Home: "/home/u"})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(other.Args(), BackgroundFlag) {
			t.Errorf("%s starts %q: only the Windows task needs %s", p, other.Args(), BackgroundFlag)
		}
	}
}

func TestWindowsArg_QuotesAsCommandLineToArgvReads(t *testing.T) {
	for in, want := range map[string]string{
		"serve":       "serve",
		`a b`:         `"a b"`,
		`C:\x y\`:     `"C:\x y\\"`,
		`say "hi"`:    `"say \"hi\""`,
		``:            `""`,
		`back\\"q`:    `"back\\\\\"q"`,
		`plain\slash`: `plain\slash`,
	} {
		if got := windowsArg(in); got != want {
			t.Errorf("windowsArg(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestOwnerOf_TellsGwsFileFromAnEditedOrForeignOne: a file gw wrote is gw's; one byte changed anywhere makes
// it edited; a file without gw's marker is foreign. The same for the UTF-16 task file.
func TestOwnerOf_TellsGwsFileFromAnEditedOrForeignOne(t *testing.T) {
	for _, p := range []string{Linux, Darwin, Windows} {
		u, err := Generate(p, Spec{Exe: map[string]string{Windows: `C:\gw\gw.exe`}[p] + map[bool]string{true: "/usr/bin/gw"}[p != Windows],
			Home: "/home/u", User: `PC\u`, TaskDir: `C:\gw`})
		if err != nil {
			t.Fatal(err)
		}
		if o := OwnerOf(u.Data); o != Ours {
			t.Errorf("%s: gw's own file is %s", p, o)
		}
		edited := strings.Replace(u.Text, "serve", "serve --listen 0.0.0.0", 1)
		if o := OwnerOf([]byte(edited)); o != Edited {
			t.Errorf("%s: an edited file is %s", p, o)
		}
		i := strings.Index(u.Text, "checksum ")
		cut := u.Text[:i+len("checksum ")+5]
		if o := OwnerOf([]byte(cut)); o != Edited {
			t.Errorf("%s: a file cut inside the checksum is %s", p, o)
		}
		foreign := strings.Replace(u.Text, markerText, "Written by me", 1)
		if o := OwnerOf([]byte(foreign)); o != Foreign {
			t.Errorf("%s: a file without gw's marker is %s", p, o)
		}
	}
}

// TestGenerate_RefusesWhatNoFileCanCarry: a line break or NUL in gw's path or a directory would end the
// line the platform reads and let the rest of the name become settings of its own.
func TestGenerate_RefusesWhatNoFileCanCarry(t *testing.T) {
	for _, s := range []Spec{
		{Exe: "/tmp/x\nExecStartPre=/bin/rm -rf ~/gw", Home: "/h"},
		{Exe: "/usr/bin/gw", Home: "/h", Env: []string{"GW_CONFIG_DIR=/a\x00b"}},
		{Exe: "relative/gw", Home: "/h"},
		{Exe: "/usr/bin/gw", Home: "/h", Env: []string{"=x"}},
	} {
		for _, p := range []string{Linux, Darwin} {
			if u, err := Generate(p, s); err == nil {
				t.Errorf("%s: %q made a file:\n%s", p, s.Exe, u.Text)
			}
		}
	}
	for _, exe := range []string{`/opt/"gw"/gw`, `/opt/it's/gw`, `/opt/back\slash/gw`} {
		_, err := Generate(Linux, Spec{Exe: exe, Home: "/h"})
		if err == nil || !strings.Contains(err.Error(), "systemd does not start a program whose path holds a quote or a backslash") {
			t.Errorf("%s: %v", exe, err)
		}
	}
	if _, err := Generate("plan9", Spec{Exe: "/bin/gw"}); err == nil || !strings.Contains(err.Error(), "not plan9") {
		t.Errorf("plan9: %v", err)
	}
}
