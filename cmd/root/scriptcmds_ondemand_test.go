package root

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// onDemandStarted is the line serve.log has for each gw serve gw auth token --serve started.
var onDemandStarted = regexp.MustCompile(`gw serve --on-demand: .*started for an agent's credential command \(pid (\d+)\)`)

// cmdOnDemand counts the gw serves that gw auth token --serve started (serve.log says), into $ONDEMAND; with
// stop, it also stops them (SIGTERM) and waits up to 10 s for each to end. The scripts' gw serve started so
// is detached from the script, which would otherwise leave it running.
//
//	ondemand [stop]
func cmdOnDemand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 || len(args) == 1 && args[0] != "stop" {
		ts.Fatalf("usage: ondemand [stop]")
	}
	b, _ := os.ReadFile(filepath.Join(ts.Getenv("XDG_STATE_HOME"), "gw", "serve.log"))
	found := onDemandStarted.FindAllStringSubmatch(string(b), -1)
	ts.Setenv("ONDEMAND", strconv.Itoa(len(found)))
	if len(args) == 0 {
		return
	}
	for _, m := range found {
		pid, _ := strconv.Atoi(m[1])
		p, err := os.FindProcess(pid)
		if err != nil || p.Signal(syscall.SIGTERM) != nil {
			continue
		}
		for deadline := time.Now().Add(10 * time.Second); p.Signal(syscall.Signal(0)) == nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				ts.Fatalf("gw serve (pid %d) did not stop within 10 s of SIGTERM", pid)
			}
		}
	}
}
