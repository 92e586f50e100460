package root

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/internal/fsutil"
)

// cmdGWPath exports where the scripts' gw binary is, as gw service install writes it into a unit: $GW (the
// binary) and $GWDIR (its directory), for scrub -var GW and a PATH that holds gw alone.
//
//	gwpath
func cmdGWPath(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: gwpath")
	}
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, "gw")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			ts.Setenv("GW", p)
			ts.Setenv("GWDIR", dir)
			return
		}
	}
	ts.Fatalf("gw is not on PATH")
}

// cmdFreePort exports a port nothing listens on: for a config's "port", which gw service install then
// writes into the unit as --port.
//
//	freeport VAR
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	ts.Check(l.Close())
	ts.Setenv(args[0], strconv.Itoa(port))
}

// cmdUnitCmd writes a shell script that runs exactly what a systemd unit gw wrote starts: its ExecStart=
// command line with its Environment= entries, in an environment as bare as the user manager's (HOME and
// PATH), plus the session bus whose address BUSFILE holds (the user manager passes on
// DBUS_SESSION_BUS_ADDRESS) and GW_TEST_KEYRING=os, which makes the scripts' gw binary use the real OS
// keychain as gw does. It waits up to 10 s for BUSFILE.
//
//	unitcmd UNIT OUT BUSFILE
func cmdUnitCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: unitcmd UNIT OUT BUSFILE")
	}
	argv, env, err := autostart.ExecStart(ts.ReadFile(args[0]))
	ts.Check(err)
	busFile := ts.MkAbs(args[2])
	var bus string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(busFile); err == nil && strings.HasSuffix(string(b), "\n") {
			bus = strings.TrimSpace(string(b))
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s was not written within 10s", args[2])
		}
	}
	words := []string{"exec", "env", "-i", "HOME=" + ts.Getenv("HOME"), "PATH=/usr/bin:/bin",
		"DBUS_SESSION_BUS_ADDRESS=" + bus, "GW_TEST_KEYRING=os"}
	words = append(append(words, env...), argv...)
	for i, w := range words {
		words[i] = fsutil.ShellQuote(w)
	}
	if _, err := exec.LookPath("env"); err != nil {
		ts.Fatalf("env: %v", err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(words, " ")+"\n"), 0o700))
}
