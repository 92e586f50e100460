package serve

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
)

// onDemandFlag is the hidden flag of the gw serve that gw auth token --serve starts, detached, when an
// agent's credential command finds none answering (cmd/auth/token).
const onDemandFlag = "on-demand"

// onDemandRun is gw serve --on-demand. Its standard output and error are not a terminal's: everything it
// says while it serves goes to serve.log (gw logs shows it), as with --background. Unlike --background it
// serves once: when it cannot serve (the port taken meanwhile) it says why in serve.log and on standard
// error, which the gw that started it reads until it answers, and stops, so the agent gets that one line
// instead of waiting on a gw serve that retries.
func onDemandRun(ctx context.Context, opts *ServeOptions) error {
	log, stateDir, err := openServeLog(opts)
	if err != nil {
		return err
	}
	defer log.Close()
	keepCrashes(stateDir, log)
	fmt.Fprintf(log, "gw serve --on-demand: %s: started for an agent's credential command (pid %d)\n", time.Now().Format(time.DateTime), os.Getpid())
	err = serveRun(ctx, opts)
	if err != nil {
		msg := strings.ReplaceAll(strings.TrimSpace(cmdutil.ErrorWithFix(err)), "\n", "; ")
		fmt.Fprintf(log, "gw serve --on-demand: %s: %s\n", time.Now().Format(time.DateTime), msg)
	}
	return err
}

// onDemandConns are the connections to the service a gw serve started on demand opens at start: the agent
// that started it is about to send its first requests, its main one beside small-model ones, each on a
// connection of its own over HTTP/1.1 (docs/benchmarks.md).
const onDemandConns = 4

// startConns is proxy.WarmOptions.StartConns for opts: onDemandConns on demand, else gw serve's one.
func (o *ServeOptions) startConns() int {
	if o.OnDemand {
		return onDemandConns
	}
	return 0
}
