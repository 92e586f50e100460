package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelgateway/gw/standin"
)

// schedSection measures gw serve with each GOMAXPROCS setting of c.procs
// against a plain httputil.ReverseProxy with Go's defaults, for the three
// protocols at each concurrency of c.schedConc: short unpaced streams (time
// to the first content delta, as an agent's user waits for it) and small
// non-streamed requests (throughput). The client runs in a process of its
// own.
func schedSection(ctx context.Context, c tconfig, out io.Writer, upstream, proxyExe, clientExe string, env []string,
	startGw func(string, ...string) (*target, error), token string) error {
	host := strings.TrimSuffix(upstream, "/v1")

	// The plain ReverseProxy (the baseline of baseline.go), with Go's defaults.
	rp, _, err := start(ctx, "ReverseProxy", env, proxyExe, "-baseline", host)
	if err != nil {
		return err
	}
	defer rp.stop()
	rp.token = standin.DemoKeyFull
	direct := &target{name: "direct", base: upstream, token: standin.DemoKeyFull}
	routes := []route{{"direct", direct, protoChat}, {"ReverseProxy, Go defaults", rp, protoChat}}
	for _, procs := range c.procs {
		env := []string{"GOMAXPROCS=" + procs}
		name := "gw serve, GOMAXPROCS=" + procs
		if procs == "default" {
			env, name = nil, "gw serve, its default"
		}
		gw, err := startGw(upstream, env...)
		if err != nil {
			return err
		}
		defer gw.stop()
		gw.token = token
		for _, p := range []proto{protoChat, protoMessages, protoResponses} {
			routes = append(routes, route{name + ", " + string(p), gw, p})
		}
	}

	fmt.Fprintf(out, "\n## Scheduler setting (%s per cell over %d interleaved rounds; client in a process of its own)\n\n", c.schedDuration, c.rounds)
	fmt.Fprintf(out, "Streams: %d content deltas each, unpaced; \"first delta\" is the time from sending the request to reading the first content delta. Small: the same one-line question, not streamed. "+
		"Medians of the rounds; the ratios are the median of the per-round ratios to the ReverseProxy passing chat through [lowest – highest round]; "+
		"the ReverseProxy cannot translate, so the Messages and Responses rows are compared with it passing the same question through as chat.\n", c.schedEvents)
	for _, kind := range []string{"stream", "small"} {
		for _, n := range c.schedConc {
			per := map[string][]streamLoad{}
			for round := range c.rounds {
				for _, r := range rotateAny(routes, round) {
					l, err := streamLoadFrom(ctx, clientExe, r, kind, n, c.schedDuration/time.Duration(c.rounds))
					if err != nil {
						return fmt.Errorf("%s, %s at concurrency %d: %w", r.name, kind, n, err)
					}
					per[r.name] = append(per[r.name], l)
				}
			}
			if kind == "stream" {
				fmt.Fprintf(out, "\n### Streams at concurrency %d\n\n", n)
				fmt.Fprintln(out, "| path | streams/s | first delta p50 | first delta p99 | whole stream p50 | added first delta p50 vs direct | first delta p50 ÷ ReverseProxy | streams/s ÷ ReverseProxy |")
				fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|")
			} else {
				fmt.Fprintf(out, "\n### Small requests at concurrency %d\n\n", n)
				fmt.Fprintln(out, "| path | req/s | p50 | p99 | – | added p50 vs direct | p50 ÷ ReverseProxy | req/s ÷ ReverseProxy |")
				fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|")
			}
			base := per[routes[1].name]
			dir := per[routes[0].name]
			for i, r := range routes {
				ls := per[r.name]
				var rps, lat, tot, added []float64
				var p50, p99, whole []time.Duration
				for k, l := range ls {
					rps = append(rps, l.rps/base[k].rps)
					lat = append(lat, float64(l.first50)/float64(base[k].first50))
					added = append(added, float64(l.first50-dir[k].first50))
					p50 = append(p50, l.first50)
					p99 = append(p99, l.first99)
					whole = append(whole, l.total50)
					tot = append(tot, l.rps)
				}
				addedText, latText, rpsText := "–", "–", "–"
				if i > 0 {
					addedText = fmtDur(time.Duration(median(added)))
				}
				if i > 1 {
					latText, rpsText = fmtSpread(lat), fmtSpread(rps)
				}
				wholeText := fmtDur(pct(whole, 50))
				if kind == "small" {
					wholeText = "–"
				}
				fmt.Fprintf(out, "| %s | %.0f | %s | %s | %s | %s | %s | %s |\n", r.name, median(tot), fmtDur(pct(p50, 50)), fmtDur(pct(p99, 50)),
					wholeText, addedText, latText, rpsText)
			}
		}
	}
	return nil
}

// streamLoad is one cell's result: throughput and latency percentiles.
type streamLoad struct {
	rps                                float64
	first50, first99, total50, total99 time.Duration
}

// streamLoadMain is the scheduler measurement's client in a process of its
// own: -stream-load URL PROTO stream|small CONCURRENCY DURATION, the token
// in GW_BENCH_TOKEN. It prints "req/s first-p50 first-p99 total-p50 total-p99" (ns).
func streamLoadMain(ctx context.Context, args []string, out io.Writer) error {
	if len(args) != 5 {
		return errors.New("-stream-load URL PROTO stream|small CONCURRENCY DURATION")
	}
	p := proto(args[1])
	stream := args[2] == "stream"
	n, err := strconv.Atoi(args[3])
	if err != nil {
		return err
	}
	d, err := time.ParseDuration(args[4])
	if err != nil {
		return err
	}
	xs, took, err := drive(ctx, args[0], os.Getenv("GW_BENCH_TOKEN"), p, smallBody(p, stream), stream, n, d, nil)
	if err != nil {
		return err
	}
	var first, total []time.Duration
	for _, x := range xs {
		first = append(first, x.first)
		total = append(total, x.total)
	}
	_, err = fmt.Fprintf(out, "%f %d %d %d %d\n", float64(len(xs))/took.Seconds(),
		int64(pct(first, 50)), int64(pct(first, 99)), int64(pct(total, 50)), int64(pct(total, 99)))
	return err
}

// streamLoadFrom runs one cell from a client process of its own.
func streamLoadFrom(ctx context.Context, exe string, r route, kind string, n int, d time.Duration) (streamLoad, error) {
	cmd := exec.CommandContext(ctx, exe, "-stream-load", r.tg.base, string(r.p), kind, strconv.Itoa(n), d.String())
	cmd.Env = append(slices.Clone(os.Environ()), "GW_BENCH_TOKEN="+r.tg.token)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	o, err := cmd.Output()
	if err != nil {
		return streamLoad{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var l streamLoad
	var f50, f99, t50, t99 int64
	if _, err := fmt.Sscan(string(o), &l.rps, &f50, &f99, &t50, &t99); err != nil {
		return streamLoad{}, fmt.Errorf("client printed %q: %w", o, err)
	}
	l.first50, l.first99, l.total50, l.total99 = time.Duration(f50), time.Duration(f99), time.Duration(t50), time.Duration(t99)
	return l, nil
}
