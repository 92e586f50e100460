// Command gw-bench measures gw serve against the stand-in of the service, in
// one run: direct to the stand-in, through gw serve (the real binary, as a
// separate process) and through a minimal httputil.ReverseProxy baseline
// (a copy of this binary re-run with -baseline, also a separate process),
// with a byte relay as the floor any proxy hop costs. It prints a Markdown
// report; docs/benchmarks.md explains it. It is not a test: it passes or
// fails nothing, it measures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gw-bench:", err)
		os.Exit(1)
	}
}

type config struct {
	gw          string
	gwBefore    string // another gw binary measured in the same run, e.g. before a change
	baseline    string // run as the baseline proxy in front of this upstream
	handler     string // with -baseline: "bare" (the baseline) or "gw" (gw serve's handler)
	rounds      int
	gwHandler   bool // also measure gw serve's handler in a process like the baseline's
	duration    time.Duration
	concurrency []int
	events      int
	streams     int
	starts      int
}

func run(ctx context.Context, args []string, out io.Writer) error {
	// Internal modes: the benchmark re-runs (a copy of) itself as the
	// small-request client and as the relay.
	if len(args) > 0 && modes[args[0]] != nil {
		return modes[args[0]](ctx, args[1:], out)
	}
	if len(args) > 0 && args[0] == "-load" {
		return loadMain(ctx, args[1:], out)
	}
	if len(args) == 2 && args[0] == "-relay" {
		return serveRelay(ctx, args[1], out)
	}
	if len(args) == 2 && args[0] == "-blocking-relay" {
		return serveBlockingRelay(ctx, args[1], out)
	}
	var c config
	var conc string
	fs := flag.NewFlagSet("gw-bench", flag.ContinueOnError)
	fs.StringVar(&c.gw, "gw", "", "path of the gw binary to measure (required)")
	fs.StringVar(&c.gwBefore, "gw-before", "", "path of another gw binary to measure in the same run (e.g. built before a change)")
	fs.BoolVar(&c.gwHandler, "gw-handler", false, "also measure gw serve's handler served by a process like the baseline's")
	fs.IntVar(&c.rounds, "rounds", 5, "rounds per measurement, interleaved across the paths; medians are reported")
	fs.StringVar(&c.handler, "handler", "bare", "internal: with -baseline, the handler to serve: bare or gw")
	fs.StringVar(&c.baseline, "baseline", "", "internal: serve the baseline proxy in front of this upstream URL")
	fs.DurationVar(&c.duration, "duration", 3*time.Second, "how long each throughput measurement runs")
	fs.StringVar(&conc, "concurrency", "1,8,64", "concurrencies for the small-request measurement")
	fs.IntVar(&c.events, "events", 500, "SSE events per stream in the per-event delay measurement")
	fs.IntVar(&c.streams, "streams", 100, "concurrent streams held open for the RSS measurement")
	fs.IntVar(&c.starts, "starts", 10, "start-ups timed per proxy")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.baseline != "" {
		return serveBaseline(ctx, c.baseline, c.handler, out)
	}
	if c.gw == "" {
		return errors.New("-gw PATH is required (build it with: go build -o gw ./cmd/gw)")
	}
	if c.rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", c.rounds)
	}
	for _, s := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-concurrency %q: want positive numbers separated by commas", conc)
		}
		c.concurrency = append(c.concurrency, n)
	}
	return bench(ctx, c, out)
}
