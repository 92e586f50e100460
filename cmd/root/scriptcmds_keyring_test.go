package root

import (
	"os"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdBusEnv points the rest of the script at the session bus whose address BUSFILE holds (written by a
// command running in the background inside scripts/with-keyring.sh), so that the script's own gw commands
// use that throwaway keychain. It waits up to 10 s for BUSFILE.
//
//	busenv BUSFILE
func cmdBusEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: busenv BUSFILE")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			ts.Setenv("DBUS_SESSION_BUS_ADDRESS", strings.TrimSpace(string(b)))
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s was not written within 10s", args[0])
		}
	}
}
