package root

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdNested writes a config nested a million levels deep: PREFIX, then OPEN and a newline a million
// times (2 MB for "[", under gw's 4 MiB read cap).
//
//	nested [-prefix P] FILE OPEN
func cmdNested(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("nested", flag.ContinueOnError)
	prefix := fl.String("prefix", "", `written before the brackets (\n: a newline)`)
	if err := fl.Parse(args); err != nil || neg || fl.NArg() != 2 {
		ts.Fatalf("usage: nested [-prefix P] FILE OPEN")
	}
	path := ts.MkAbs(fl.Arg(0))
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	data := append([]byte(strings.ReplaceAll(*prefix, `\n`, "\n")), bytes.Repeat([]byte(fl.Arg(1)+"\n"), 1_000_000)...)
	ts.Check(os.WriteFile(path, data, 0o644))
}

// cmdAgentPID follows a process whose pid a script's fake agent wrote to FILE: -started waits (10 s at
// most) until the file names a running process; -gone waits until that process has ended (a zombie
// counts as ended: nobody may be left to reap it). A process still running when the script ends is
// killed.
//
//	agentpid -started|-gone FILE
func cmdAgentPID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[0] != "-started" && args[0] != "-gone") {
		ts.Fatalf("usage: agentpid -started|-gone FILE")
	}
	path := ts.MkAbs(args[1])
	pid := func() int {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		p := pid()
		if p <= 0 {
			continue
		}
		switch running := processRunning(p); {
		case args[0] == "-started" && running:
			ts.Defer(func() {
				if processRunning(p) {
					killProcess(p)
				}
			})
			return
		case args[0] == "-gone" && !running:
			return
		}
	}
	ts.Fatalf("agentpid %s: process %d (from %s) is not %s after 10s", args[0], pid(), args[1], strings.TrimPrefix(args[0], "-"))
}
