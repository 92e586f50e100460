package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"time"

	"github.com/modelgateway/gw/standin"
)

type target struct {
	name  string
	base  string // ends in /v1
	token string
	proc  *exec.Cmd
}

// proxyRun is one run of the proxy benchmark: the stand-in, the copies of
// this binary and the environments the proxies start with.
type proxyRun struct {
	c         config
	svc       *standin.Server
	clock     *eventClock
	addr      string // the stand-in's host:port
	upstream  string // the stand-in's /v1
	tmp       string
	self      string // the copy the baseline and the relays run from
	clientExe string
	gwEnv     []string
	procEnv   []string
}

// paths are the ways to the stand-in the report compares.
type paths struct {
	direct  *target
	targets []*target // direct and the proxies: SSE events
	proxies []*target // memory and start-up
	small   []*target // small requests: the targets, the floors and the baseline with Go's defaults
}

// startupTimes are the start-up medians of the proxies started more than once.
type startupTimes struct {
	gw, base, before time.Duration
}

func bench(ctx context.Context, c config, out io.Writer) error {
	clock := &eventClock{}
	svc := standin.New(standin.Options{ContentChunks: c.events, ChunkSize: 32, BeforeEvent: clock.before})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { svc.Close(); _ = srv.Close() }()
	run := &proxyRun{c: c, svc: svc, clock: clock, addr: ln.Addr().String()}
	run.upstream = "http://" + run.addr + "/v1"

	tmp, err := os.MkdirTemp("", "gw-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	run.tmp = tmp
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// The baseline and relay run from one copy of this binary, the client
	// from another: run from one file, two processes share code pages (and
	// their places in the CPU caches), an advantage gw serve's own binary
	// does not get.
	if run.clientExe, err = copyExecutable(self, filepath.Join(tmp, "gw-bench-client")); err != nil {
		return err
	}
	if run.self, err = copyExecutable(self, filepath.Join(tmp, "gw-bench-proxy")); err != nil {
		return err
	}

	run.gwEnv = append(os.Environ(), "HOME="+tmp, "GW_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "GW_STATE_DIR="+filepath.Join(tmp, "state"),
		"GW_BASE_URL="+run.upstream, "GW_API_KEY="+standin.DemoKeyFull)
	// The other proxies run with gw serve's scheduler setting for one
	// request at a time (one CPU unless GOMAXPROCS is set; see
	// proxy/procs.go), so that the ratio compares the proxies, not the
	// setting; "baseline, Go defaults" shows the setting.
	run.procEnv = slices.Clone(run.gwEnv)
	if os.Getenv("GOMAXPROCS") == "" {
		run.procEnv = append(run.procEnv, "GOMAXPROCS=1")
	}

	fmt.Fprintf(out, "# gw serve benchmark\n\n%s, %s/%s, %d CPUs, %s. Upstream: the stand-in on loopback.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())

	starts, err := run.startups(ctx)
	if err != nil {
		return err
	}
	var stops []func()
	defer func() {
		for _, stop := range slices.Backward(stops) {
			stop()
		}
	}()
	p, err := run.startPaths(ctx, &stops)
	if err != nil {
		return err
	}
	idle := map[string]int64{}
	for _, tg := range p.proxies {
		idle[tg.name] = rss(tg.proc.Process.Pid)
	}
	if err := run.smallRequests(ctx, out, p); err != nil {
		return err
	}
	if err := run.eventDelay(ctx, out, p); err != nil {
		return err
	}
	return run.memory(ctx, out, p, idle, starts)
}

func (run *proxyRun) startGw(ctx context.Context) (*target, time.Duration, error) {
	return start(ctx, "gw serve", run.gwEnv, run.c.gw, "serve", "--port", "0")
}

func (run *proxyRun) startBase(ctx context.Context) (*target, time.Duration, error) {
	return start(ctx, "baseline", run.procEnv, run.self, "-baseline", "http://"+run.addr)
}

func (run *proxyRun) startBefore(ctx context.Context) (*target, time.Duration, error) {
	return start(ctx, "gw serve (before)", run.gwEnv, run.c.gwBefore, "serve", "--port", "0")
}

// startups measures start-up: from exec to the address printed.
func (run *proxyRun) startups(ctx context.Context) (startupTimes, error) {
	var s startupTimes
	var err error
	if s.gw, err = startups(run.c.starts, func() (*target, time.Duration, error) { return run.startGw(ctx) }); err != nil {
		return s, err
	}
	if s.base, err = startups(run.c.starts, func() (*target, time.Duration, error) { return run.startBase(ctx) }); err != nil {
		return s, err
	}
	if run.c.gwBefore != "" {
		if s.before, err = startups(run.c.starts, func() (*target, time.Duration, error) { return run.startBefore(ctx) }); err != nil {
			return s, err
		}
	}
	return s, nil
}

// startPaths starts the proxies the report compares; each one's stop is
// added to stops.
func (run *proxyRun) startPaths(ctx context.Context, stops *[]func()) (*paths, error) {
	gw, _, err := run.startGw(ctx)
	if err != nil {
		return nil, err
	}
	*stops = append(*stops, gw.stop)
	gw.token, err = readToken(filepath.Join(run.tmp, "config", "config.json"))
	if err != nil {
		return nil, err
	}
	base, _, err := run.startBase(ctx)
	if err != nil {
		return nil, err
	}
	*stops = append(*stops, base.stop)
	baseDefaults, _, err := start(ctx, "baseline, Go defaults", run.gwEnv, run.self, "-baseline", "http://"+run.addr)
	if err != nil {
		return nil, err
	}
	*stops = append(*stops, baseDefaults.stop)
	// Two byte relays: the floor of a proxy hop on this machine.
	var floors []*target
	for _, r := range [][2]string{{"byte relay, Go net (floor)", "-relay"}, {blockingRelay, "-blocking-relay"}} {
		relay, _, err := start(ctx, r[0], run.procEnv, run.self, r[1], run.addr)
		if err != nil {
			if r[1] == "-blocking-relay" && runtime.GOOS == "windows" {
				continue
			}
			return nil, err
		}
		*stops = append(*stops, relay.stop)
		relay.token = standin.DemoKeyFull
		floors = append(floors, relay)
	}
	direct := &target{name: "direct", base: run.upstream, token: standin.DemoKeyFull}
	targets := []*target{direct, gw, base}
	proxies := []*target{gw, base}
	if run.c.gwBefore != "" {
		before, _, err := run.startBefore(ctx)
		if err != nil {
			return nil, err
		}
		*stops = append(*stops, before.stop)
		before.token = gw.token // same config directory, same local token
		targets = []*target{direct, gw, before, base}
		proxies = []*target{gw, before, base}
	}
	if run.c.gwHandler {
		env := append(slices.Clone(run.procEnv), "GW_BENCH_TOKEN="+gw.token)
		h, _, err := start(ctx, "gw handler, small process", env, run.self, "-baseline", "http://"+run.addr, "-handler", "gw")
		if err != nil {
			return nil, err
		}
		*stops = append(*stops, h.stop)
		h.token = gw.token
		targets = append(targets[:len(targets)-1], h, base)
		proxies = append(proxies[:len(proxies)-1], h, base)
	}

	// Small requests only: the floor and what the scheduler setting buys.
	small := append(slices.Clone(targets[:len(targets)-1]), floors...)
	small = append(small, baseDefaults, base)
	return &paths{direct: direct, targets: targets, proxies: proxies, small: small}, nil
}

// smallRequests writes the section on small non-streamed requests. Rounds
// are interleaved across the paths, so drift in the machine's load hits
// every path alike; each figure is the median of the rounds' figures, and
// each ratio the median of the rounds' ratios, with the lowest and highest
// round's beside it.
func (run *proxyRun) smallRequests(ctx context.Context, out io.Writer, p *paths) error {
	c := run.c
	fmt.Fprintf(out, "## Small non-streamed requests (GET /v1/models, %s per cell, %d interleaved rounds)\n\n", c.duration, c.rounds)
	fmt.Fprintln(out, "The client runs in a process of its own; medians of the rounds; ratios are the median of the per-round ratios [lowest – highest round].")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| concurrency | path | req/s | p50 | p99 | added p50 vs direct | p50 ÷ baseline p50 |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for _, n := range c.concurrency {
		paths := p.small
		if n > 1 {
			// A thread per blocked read leaves Go's scheduler to hand its
			// one CPU between many threads: some connections starve, so
			// this floor means something only one request at a time.
			paths = slices.DeleteFunc(slices.Clone(p.small), func(tg *target) bool { return tg.name == blockingRelay })
		}
		per := map[string][]loadResult{}
		for round := range c.rounds {
			for _, tg := range rotate(paths, round) {
				r, err := loadFrom(ctx, run.clientExe, tg, n, c.duration/time.Duration(c.rounds))
				if err != nil {
					return fmt.Errorf("%s at concurrency %d: %w", tg.name, n, err)
				}
				per[tg.name] = append(per[tg.name], r)
			}
		}
		for _, tg := range paths {
			rs := per[tg.name]
			var rps []float64
			var p50, p99, added []time.Duration
			var ratio []float64
			for i, r := range rs {
				rps = append(rps, r.rps)
				p50 = append(p50, r.p50)
				p99 = append(p99, r.p99)
				added = append(added, r.p50-per["direct"][i].p50)
				ratio = append(ratio, float64(r.p50)/float64(per["baseline"][i].p50))
			}
			addedText, ratioText := "–", "–"
			if tg != p.direct {
				addedText = fmtDur(pct(added, 50))
				ratioText = fmtSpread(ratio)
			}
			fmt.Fprintf(out, "| %d | %s | %.0f | %s | %s | %s | %s |\n", n, tg.name, median(rps),
				fmtDur(pct(p50, 50)), fmtDur(pct(p99, 50)), addedText, ratioText)
		}
	}
	return nil
}

// eventDelay writes the section on the delay per SSE event: the stand-in's
// write of each event to the client's read of it.
func (run *proxyRun) eventDelay(ctx context.Context, out io.Writer, p *paths) error {
	c := run.c
	fmt.Fprintf(out, "\n## Delay per SSE event (%d rounds × %d events 1 ms apart, stand-in write → client read)\n\n", c.rounds, c.events)
	fmt.Fprintln(out, "Medians of the rounds' percentiles; the added p99 is the median of the per-round differences [lowest – highest round].")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| path | p50 | p99 | added p99 vs direct |")
	fmt.Fprintln(out, "|---|---|---|---|")
	perEvent := map[string][][2]time.Duration{}
	// Paced events, so each one's delay is its own and not a queue behind
	// the ones before (a burst measures throughput instead).
	run.svc.SetFault(standin.Fault{Kind: standin.FaultSlowStream, Delay: time.Millisecond})
	defer run.svc.SetFault(standin.Fault{})
	perRound := make([]map[string][2]time.Duration, c.rounds)
	for round := range c.rounds { // interleaved, so drift in the machine's load hits every path alike
		perRound[round] = map[string][2]time.Duration{}
		for _, tg := range rotate(p.targets, round) {
			d, err := eventDelays(ctx, tg, run.clock)
			if err != nil {
				return fmt.Errorf("%s: %w", tg.name, err)
			}
			perRound[round][tg.name] = [2]time.Duration{pct(d, 50), pct(d, 99)}
		}
	}
	for _, r := range perRound {
		for name, d := range r {
			perEvent[name] = append(perEvent[name], d)
		}
	}
	for _, tg := range p.targets {
		var p50, p99, added []time.Duration
		for i, d := range perEvent[tg.name] {
			p50 = append(p50, d[0])
			p99 = append(p99, d[1])
			added = append(added, d[1]-perEvent["direct"][i][1])
		}
		addedText := "–"
		if tg != p.direct {
			addedText = fmt.Sprintf("%s [%s – %s]", fmtDur(pct(added, 50)), fmtDur(slices.Min(added)), fmtDur(slices.Max(added)))
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", tg.name, fmtDur(pct(p50, 50)), fmtDur(pct(p99, 50)), addedText)
	}
	return nil
}

// memory writes the section on memory, idle (measured before the load) and
// with many streams held open, and start-up.
func (run *proxyRun) memory(ctx context.Context, out io.Writer, p *paths, idle map[string]int64, s startupTimes) error {
	c := run.c
	busy := map[string]int64{}
	for _, tg := range p.proxies {
		r, err := rssWithStreams(ctx, tg, run.clock, c.streams)
		if err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
		busy[tg.name] = r
	}
	starts := map[string]time.Duration{"gw serve": s.gw, "gw serve (before)": s.before, "baseline": s.base,
		"gw handler, small process": s.base}
	fmt.Fprintf(out, "\n## Memory and start-up\n\n")
	fmt.Fprintf(out, "| proxy | RSS idle | RSS with %d streams | start-up p50 (exec → address printed) |\n|---|---|---|---|\n", c.streams)
	for _, tg := range p.proxies {
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", tg.name, fmtMB(idle[tg.name]), fmtMB(busy[tg.name]), fmtDur(starts[tg.name]))
	}
	fmt.Fprintf(out, "| gw serve ÷ baseline | %.2f× | %.2f× | %.2f× |\n",
		float64(idle["gw serve"])/float64(idle["baseline"]), float64(busy["gw serve"])/float64(busy["baseline"]),
		float64(s.gw)/float64(s.base))
	return nil
}

var listening = regexp.MustCompile(`listening on (http://\S+/v1)`)

func start(ctx context.Context, name string, env []string, exe string, args ...string) (*target, time.Duration, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = env
	// A file, not a pipe: no copying goroutine here competing for the CPUs.
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer devnull.Close()
	cmd.Stderr = devnull
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("starting %s: %w", name, err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	took := time.Since(t0)
	m := listening.FindStringSubmatch(line)
	if m == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, 0, fmt.Errorf("%s printed %q (%v), not its address", name, line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return &target{name: name, base: m[1], proc: cmd}, took, nil
}

func (t *target) stop() {
	if t.proc != nil {
		_ = t.proc.Process.Signal(os.Interrupt)
		_ = t.proc.Wait()
	}
}

func startups(n int, f func() (*target, time.Duration, error)) (time.Duration, error) {
	var ds []time.Duration
	for range n {
		t, d, err := f()
		if err != nil {
			return 0, err
		}
		t.stop()
		ds = append(ds, d)
	}
	return pct(ds, 50), nil
}

func readToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`"local_token":\s*"([^"]+)"`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("no local token in %s", path)
	}
	return string(m[1]), nil
}

// copyExecutable copies the file at src to dst, executable.
func copyExecutable(src, dst string) (string, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	return dst, os.WriteFile(dst, b, 0o755)
}
