//go:build linux

package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/standin"
)

// userManager is a systemd user manager (systemd --user) started by the test for a throwaway user, in a
// mount namespace of its own, where /run/systemd/system exists: systemd refuses to run a user manager on
// a system not booted with systemd (as in a container), and looks for no more than that directory. The
// user is a free uid with an account in that namespace only, and the manager a cgroup of its own that the
// user may write: run as root, a user manager takes the root cgroup and moves every process of the
// machine into its init.scope; run as a user without a cgroup of its own, it stops at once.
type userManager struct {
	t       *testing.T
	uid     string
	home    string
	runtime string
	bus     string // the session bus's address (the manager's own), "" without a keyring
	cmd     *exec.Cmd
	exited  chan struct{}
	cgroups []string
}

func findSystemd() string {
	for _, p := range []string{"/usr/lib/systemd/systemd", "/lib/systemd/systemd"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// freeUID is a uid no account and no process has.
func freeUID(t *testing.T) int {
	for uid := 61000 + os.Getpid()%3000; uid < 65000; uid++ {
		if _, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			continue
		}
		if out, _ := exec.Command("ps", "-o", "pid=", "-u", strconv.Itoa(uid)).Output(); len(strings.TrimSpace(string(out))) > 0 {
			continue
		}
		return uid
	}
	t.Skip("no free uid between 61000 and 65000")
	return 0
}

// cgroupDirs makes a cgroup named name in each hierarchy systemd uses (the unified one; on a hybrid system
// also the named systemd one), owned by uid.
func cgroupDirs(t *testing.T, name string, uid int) []string {
	var roots []string
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		roots = []string{"/sys/fs/cgroup"}
	} else {
		for _, r := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup/systemd"} {
			if _, err := os.Stat(filepath.Join(r, "cgroup.procs")); err == nil {
				roots = append(roots, r)
			}
		}
	}
	if len(roots) == 0 {
		t.Skip("no cgroup hierarchy of systemd's under /sys/fs/cgroup")
	}
	var dirs []string
	for _, r := range roots {
		d := filepath.Join(r, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			removeCgroups(dirs)
			t.Skipf("cannot make a cgroup for the user manager (%v)", err)
		}
		dirs = append(dirs, d)
		_ = filepath.WalkDir(d, func(p string, _ os.DirEntry, _ error) error { return os.Lchown(p, uid, uid) })
	}
	return dirs
}

// removeCgroups removes the cgroups the user manager made below dirs, then dirs: deepest first, as the
// kernel removes only empty ones.
func removeCgroups(dirs []string) error {
	var errs []error
	for _, d := range dirs {
		var all []string
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				all = append(all, p)
			}
			return nil
		})
		for i := len(all) - 1; i >= 0; i-- {
			if err := os.Remove(all[i]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func startUserManager(t *testing.T, systemd string) *userManager {
	for _, tool := range []string{"unshare", "nsenter", "setpriv", "systemctl", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found (util-linux, systemd): no user manager can be started here", tool)
		}
	}
	// Root without CAP_SYS_ADMIN (a container's, say) cannot make a mount namespace.
	if out, err := exec.Command("unshare", "--mount", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot make a mount namespace here (%v: %s): no user manager can be started", err, strings.TrimSpace(string(out)))
	}
	uid := freeUID(t)
	base := t.TempDir()
	// The user must reach its files: every directory above base is the test's own, mode 0700.
	for d := base; d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := &userManager{t: t, uid: strconv.Itoa(uid), home: filepath.Join(base, "home"), runtime: filepath.Join(base, "run"), exited: make(chan struct{})}
	for _, d := range []string{m.home, m.runtime, filepath.Join(base, "tmp")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	m.cgroups = cgroupDirs(t, "gw-test-user-manager-"+m.uid, uid)
	keyring := hasKeyring()
	if keyring {
		m.writeKeyring(uid)
	}

	// The manager runs twice in a row, as at two logins: a unit enabled in the first must start in the
	// second by itself.
	inner := []string{"sh", "-c", fmt.Sprintf(`%s --user; exec %s --user`, systemd, systemd)}
	// The account exists in the namespace only (the D-Bus daemon wants one): /etc/passwd and /etc/group
	// are copies with a line more, mounted over the machine's there.
	for _, f := range []struct{ name, line string }{
		{"passwd", fmt.Sprintf("gw-test:x:%d:%d:gw test:%s:/bin/sh\n", uid, uid, m.home)},
		{"group", fmt.Sprintf("gw-test:x:%d:\n", uid)},
	} {
		b, err := os.ReadFile("/etc/" + f.name)
		if err != nil {
			t.Skipf("no /etc/%s: %v", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(base, f.name), append(b, f.line...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A test killed or interrupted (ctrl-c, go test -timeout) runs no cleanup, and the manager, in a
	// process group of its own, would go on running with its units, holding its cgroups: a watchdog,
	// left outside them, waits for the test process to end (the end of a pipe only the test holds to
	// read end-of-file) and then kills what is in them and removes them. Its namespace goes with them.
	cgroups := strings.Join(m.cgroups, " ")
	script := `set -e
if [ -d /run/systemd ]; then mount -t tmpfs tmpfs /run/systemd; else mount -t tmpfs tmpfs /run; fi
mkdir -p /run/systemd/system
mount --bind ` + filepath.Join(base, "passwd") + ` /etc/passwd
mount --bind ` + filepath.Join(base, "group") + ` /etc/group
(
	read -r x <&3 || true
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pids=$(find ` + cgroups + ` -name cgroup.procs -exec cat {} + 2>/dev/null || true)
		[ -n "$pids" ] || break
		kill -9 $pids 2>/dev/null || true
		sleep 0.2
	done
	find ` + cgroups + ` -depth -type d -exec rmdir {} + 2>/dev/null || true
) >/dev/null 2>&1 &
exec 3<&-
for d in ` + cgroups + `; do echo $$ >"$d/cgroup.procs"; done
exec "$@"`
	args := append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh"}, m.asUser(inner...)...)
	if keyring {
		// The bus dbus-user-session's dbus.socket listens on, which the manager gives its units: the
		// manager itself is not told (a shell in the session is, as pam_systemd does).
		m.bus = "unix:path=" + filepath.Join(m.runtime, "bus")
	}
	watch, alive, err := os.Pipe()
	if err != nil {
		removeCgroups(m.cgroups)
		t.Fatal(err)
	}
	m.cmd = exec.Command("unshare", args...)
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	m.cmd.ExtraFiles = []*os.File{watch} // fd 3: the watchdog's
	log := &strings.Builder{}
	m.cmd.Stdout, m.cmd.Stderr = log, log
	err = m.cmd.Start()
	watch.Close()
	if err != nil {
		alive.Close()
		removeCgroups(m.cgroups)
		t.Fatal(err)
	}
	go func() { _ = m.cmd.Wait(); close(m.exited) }()
	t.Cleanup(func() {
		m.stop()
		err := removeCgroups(m.cgroups)
		alive.Close() // the watchdog finds nothing left
		if err != nil {
			t.Errorf("cgroups left: %v", err)
		}
		if t.Failed() {
			t.Logf("user manager's output:\n%s", log.String())
		}
	})
	if !m.waitRunning(30 * time.Second) {
		t.Fatalf("no user manager answers: systemctl --user is-system-running: %s\n%s", m.run("systemctl", "--user", "is-system-running").out, log.String())
	}
	if m.bus != "" {
		m.waitKeyring()
	}
	return m
}

// hasKeyring: the session bus of a user manager (dbus-user-session's dbus.socket, at $XDG_RUNTIME_DIR/bus)
// and gnome-keyring can run here.
func hasKeyring() bool {
	for _, tool := range []string{"dbus-daemon", "dbus-send", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			return false
		}
	}
	for _, d := range []string{"/usr/lib/systemd/user", "/lib/systemd/user"} {
		if _, err := os.Stat(filepath.Join(d, "dbus.socket")); err == nil {
			return true
		}
	}
	return false
}

// keyringUnit starts gnome-keyring's Secret Service on the manager's session bus at each login, unlocked
// with a throwaway password, as a desktop login does (there PAM unlocks it). It is ready once it owns the
// Secret Service's name (Type=dbus), and orders itself before gw serve: otherwise gw serve's first
// question would have D-Bus start the packaged gnome-keyring-daemon, whose keyring nobody unlocks. Its
// keyrings are in the user's home, so the second login finds the key stored in the first; it gets a
// runtime directory of its own, as the packaged gnome-keyring-daemon.socket holds the usual one.
const keyringUnit = `[Unit]
Before=gw.service
[Service]
Type=dbus
BusName=org.freedesktop.secrets
Environment=XDG_RUNTIME_DIR=%h/.keyring-runtime
ExecStartPre=/bin/mkdir -p -m 700 %h/.keyring-runtime
ExecStart=/bin/sh -c 'exec gnome-keyring-daemon --foreground --unlock --components=secrets <"$HOME/.keyring-password"'
[Install]
WantedBy=default.target
`

// writeKeyring puts the keyring's unit and password into the user's home, enabled, before the first login.
func (m *userManager) writeKeyring(uid int) {
	unitDir := filepath.Join(m.home, ".config", "systemd", "user")
	wants := filepath.Join(unitDir, "default.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		m.t.Fatal(err)
	}
	for name, data := range map[string]string{
		filepath.Join(unitDir, "gw-test-keyring.service"): keyringUnit,
		filepath.Join(m.home, ".keyring-password"):        "throwaway-test-password",
	} {
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			m.t.Fatal(err)
		}
	}
	if err := os.Symlink("../gw-test-keyring.service", filepath.Join(wants, "gw-test-keyring.service")); err != nil {
		m.t.Fatal(err)
	}
	_ = filepath.WalkDir(m.home, func(p string, _ os.DirEntry, _ error) error { return os.Lchown(p, uid, uid) })
}

// waitKeyring waits until the Secret Service answers on the session bus.
func (m *userManager) waitKeyring() {
	m.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(m.run("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
		"org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets").out, "boolean true") {
		if time.Now().After(deadline) {
			m.t.Fatalf("gnome-keyring-daemon did not claim the Secret Service: %s", m.run("systemctl", "--user", "status", "--no-pager", "gw-test-keyring").out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// asUser is a command line run as the throwaway user, with only the environment a login session gives.
func (m *userManager) asUser(args ...string) []string {
	env := []string{"setpriv", "--reuid=" + m.uid, "--regid=" + m.uid, "--clear-groups", "env", "-i",
		"HOME=" + m.home, "XDG_RUNTIME_DIR=" + m.runtime, "TMPDIR=" + filepath.Join(filepath.Dir(m.home), "tmp"),
		"PATH=/usr/local/bin:/usr/bin:/bin", "USER=gw-test", "LANG=C.UTF-8"}
	if m.bus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+m.bus)
	}
	return append(env, args...)
}

type result struct {
	out  string
	code int
}

// run runs a command as the user, in the manager's mount namespace (where systemctl sees it booted).
func (m *userManager) run(args ...string) result {
	return m.runIn("", args...)
}

func (m *userManager) runIn(stdin string, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "nsenter", append([]string{"-t", strconv.Itoa(m.cmd.Process.Pid), "-m", "--"}, m.asUser(args...)...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		m.t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return result{out: string(out), code: code}
}

func (m *userManager) waitRunning(within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case <-m.exited:
			return false
		default:
		}
		if strings.TrimSpace(m.run("systemctl", "--user", "is-system-running").out) == "running" {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// exit ends the running manager (systemctl --user exit), as at logout: it stops its units first.
func (m *userManager) exit() {
	m.run("systemctl", "--user", "exit")
}

// stop ends both managers (and the keyring): each exits as at logout, else the group is killed.
func (m *userManager) stop() {
	for range 2 {
		select {
		case <-m.exited:
			return
		default:
		}
		m.exit()
		select {
		case <-m.exited:
			return
		case <-time.After(10 * time.Second):
		}
	}
	// A manager that does not exit leaves its units' processes behind, each in a session of its own: all
	// are in the manager's cgroups.
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
	for _, d := range m.cgroups {
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.Name() != "cgroup.procs" {
				return nil
			}
			b, _ := os.ReadFile(p)
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return nil
		})
	}
	<-m.exited
}

// status is what gw service status --json printed.
func (m *userManager) status(gw string) (Status, int) {
	r := m.run(gw, "service", "status", "--json")
	var st Status
	if err := json.Unmarshal([]byte(r.out), &st); err != nil {
		m.t.Fatalf("gw service status --json: %v\n%s", err, r.out)
	}
	return st, r.code
}

// waitStatus waits until gw service status says ok, and returns its last answer.
func (m *userManager) waitStatus(gw string, ok func(Status) bool) Status {
	m.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, _ := m.status(gw)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("gw service status never got there: %+v\n%s", st, m.run("systemctl", "--user", "status", "--no-pager", "gw.service").out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestService_RealSystemdUserManager runs gw service install, status and uninstall against a real systemd
// user manager (not the fake systemctl of the other tests): systemctl --user daemon-reload and enable
// --now start gw serve, which answers on the config's port (and, where a keyring is at hand, forwards a
// request with the key it read from the Secret Service on the session bus); systemd starts it again
// after it is killed, and at the next login (a second user manager) without being asked; uninstall stops
// it, and nothing answers on the port then. It needs root (a throwaway uid, a mount namespace, a cgroup:
// see userManager) and systemd installed.
func TestService_RealSystemdUserManager(t *testing.T) {
	systemd := findSystemd()
	if systemd == "" {
		t.Skip("systemd is not installed (apt-get install -y systemd): gw service runs against the fake systemctl only")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to start a systemd user manager for a throwaway uid in a mount namespace and cgroup of its own")
	}
	if testing.Short() {
		t.Skip("starts a systemd user manager twice (-short)")
	}
	m := startUserManager(t, systemd)

	gw := filepath.Join(filepath.Dir(m.home), "gw")
	if out, err := exec.Command("go", "build", "-o", gw, "github.com/modelgateway/gw/cmd/gw").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	up := standin.New(standin.Options{})
	srv := httptest.NewServer(up)
	t.Cleanup(func() { up.Close(); srv.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cfgDir := filepath.Join(m.home, ".config", "gw")
	if r := m.run("mkdir", "-p", cfgDir); r.code != 0 {
		t.Fatal(r.out)
	}
	cfg := fmt.Sprintf(`{"base_url": %q, "port": %d}`, srv.URL+"/v1", port)
	if r := m.runIn(cfg, "sh", "-c", `cat >"$HOME/.config/gw/config.json"`); r.code != 0 {
		t.Fatal(r.out)
	}

	if st, code := m.status(gw); code != 1 || st.Installed || st.Answering {
		t.Fatalf("before install: exit %d, %+v", code, st)
	}
	if m.bus != "" {
		if r := m.runIn(standin.DemoKeyFull+"\n", gw, "auth", "login", "--with-key"); r.code != 0 {
			t.Fatalf("gw auth login: %s", r.out)
		}
	} else {
		t.Log("no keyring here (dbus-daemon, gnome-keyring-daemon): gw serve runs without a key, and no request is forwarded")
	}

	r := m.run(gw, "service", "install")
	if r.code != 0 || !strings.Contains(r.out, "Ran: systemctl --user enable --now gw.service") {
		t.Fatalf("gw service install: exit %d\n%s", r.code, r.out)
	}
	answering := func(st Status) bool { return st.Installed && st.Running && st.Answering && st.State == "active" }
	st := m.waitStatus(gw, answering)
	if st.Address != addr || !st.Current {
		t.Errorf("status %+v, want gw serve on %s started by the current unit", st, addr)
	}
	if r := m.run("systemctl", "--user", "is-enabled", "gw.service"); strings.TrimSpace(r.out) != "enabled" {
		t.Errorf("systemctl --user is-enabled gw.service: %s", r.out)
	}
	// A request through it reaches the service with the key gw serve read from the Secret Service, over
	// the bus the user manager gave it (a key read late, as after the second login below, is picked up
	// within seconds).
	forwardsWithKey := func() {
		t.Helper()
		if m.bus == "" {
			return
		}
		token := localToken(t, m)
		deadline := time.Now().Add(20 * time.Second)
		for {
			req, _ := http.NewRequest("GET", "http://"+addr+"/v1/models", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			seen := up.Seen()
			if res.StatusCode == 200 && len(seen) > 0 && seen[len(seen)-1].Key == standin.DemoKeyFull {
				return
			}
			if time.Now().After(deadline) {
				log, _ := os.ReadFile(filepath.Join(m.home, ".local", "state", "gw", "serve.log"))
				t.Fatalf("a request through gw serve: status %d; the service saw %+v\nserve.log:\n%s", res.StatusCode, seen, log)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	forwardsWithKey()

	// Killed, it is started again (Restart=on-failure).
	mainPID := func() string {
		return strings.TrimSpace(m.run("systemctl", "--user", "show", "-p", "MainPID", "--value", "gw.service").out)
	}
	before := mainPID()
	pid, err := strconv.Atoi(before)
	if err != nil || pid <= 0 {
		t.Fatalf("MainPID %q", before)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	m.waitStatus(gw, func(st Status) bool { return answering(st) && mainPID() != before })

	// At the next login (another user manager) it starts by itself.
	m.exit()
	if !m.waitRunning(30 * time.Second) {
		t.Fatal("the second user manager did not start")
	}
	m.waitStatus(gw, answering)
	forwardsWithKey()

	r = m.run(gw, "service", "uninstall")
	if r.code != 0 || !strings.Contains(r.out, "Ran: systemctl --user disable --now gw.service") {
		t.Fatalf("gw service uninstall: exit %d\n%s", r.code, r.out)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("something still answers on %s after gw service uninstall", addr)
	}
	if st, code := m.status(gw); code != 1 || st.Installed || st.Running || st.Answering {
		t.Errorf("after uninstall: exit %d, %+v", code, st)
	}
	if _, err := os.Stat(filepath.Join(m.home, ".config", "systemd", "user", "gw.service")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
}

// localToken is the local token gw serve created in the user's config.
func localToken(t *testing.T, m *userManager) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(m.home, ".config", "gw", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		LocalToken string `json:"local_token"`
	}
	if err := json.Unmarshal(b, &c); err != nil || !strings.HasPrefix(c.LocalToken, "gw-local-") {
		t.Fatalf("no local token in the config: %v\n%s", err, b)
	}
	return c.LocalToken
}

// TestService_RealSystemdUserManagerGoneWhenTestKilled: a test killed while its user manager runs (ctrl-c,
// go test -timeout: no cleanup runs) leaves no process of the throwaway user and no cgroup behind. The test
// binary runs itself, starts the manager, says its uid and cgroups, and kills itself.
func TestService_RealSystemdUserManagerGoneWhenTestKilled(t *testing.T) {
	systemd := findSystemd()
	if systemd == "" {
		t.Skip("systemd is not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (see TestService_RealSystemdUserManager)")
	}
	if testing.Short() {
		t.Skip("starts a systemd user manager (-short)")
	}
	if os.Getenv("GW_TEST_KILL_WITH_MANAGER") == "1" {
		m := startUserManager(t, systemd)
		fmt.Printf("uid=%s cgroups=%s\n", m.uid, strings.Join(m.cgroups, ","))
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestService_RealSystemdUserManagerGoneWhenTestKilled$")
	cmd.Env = append(os.Environ(), "GW_TEST_KILL_WITH_MANAGER=1")
	out, _ := cmd.Output()
	var uid, cgroups string
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "uid="); ok {
			uid = v
		}
		if v, ok := strings.CutPrefix(f, "cgroups="); ok {
			cgroups = v
		}
	}
	if uid == "" || cgroups == "" {
		t.Skipf("the test run in a child started no user manager: %s", out)
	}
	dirs := strings.Split(cgroups, ",")
	left := func() string {
		var s []string
		if out, _ := exec.Command("ps", "-o", "pid=,args=", "-u", uid).Output(); len(strings.TrimSpace(string(out))) > 0 {
			s = append(s, "processes:\n"+string(out))
		}
		for _, d := range dirs {
			if _, err := os.Lstat(d); err == nil {
				s = append(s, "cgroup "+d)
			}
		}
		return strings.Join(s, "\n")
	}
	deadline := time.Now().Add(20 * time.Second)
	for left() != "" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if l := left(); l != "" {
		// Cleaned up here, so that the failure leaves nothing either.
		for range 10 {
			for _, d := range dirs {
				_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
					if err == nil && e.Name() == "cgroup.procs" {
						b, _ := os.ReadFile(p)
						for _, f := range strings.Fields(string(b)) {
							if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
								_ = syscall.Kill(pid, syscall.SIGKILL)
							}
						}
					}
					return nil
				})
			}
			time.Sleep(200 * time.Millisecond)
		}
		_ = removeCgroups(dirs)
		t.Fatalf("a killed test left behind, 20 s on:\n%s", l)
	}
}
