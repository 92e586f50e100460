package proxy

import (
	"context"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// portHolder asks lsof, which macOS ships, for the process listening on port.
func portHolder(port int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "lsof", "-nP", "-iTCP:"+strconv.Itoa(port), "-sTCP:LISTEN", "-Fpc").Output()
	if err != nil {
		return ""
	}
	var pid, cmd string
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "p") && pid == "":
			pid = l[1:]
		case strings.HasPrefix(l, "c") && cmd == "":
			cmd = l[1:]
		}
	}
	if pid == "" {
		return ""
	}
	if cmd == "" {
		return "pid " + pid
	}
	return cmd + " (pid " + pid + ")"
}

// foreignHolder: macOS shows a socket's owner only through lsof, which
// sees other users' sockets only as root; the proof of Probe stands alone
// there.
func foreignHolder(ip netip.Addr, port int) string { return "" }
