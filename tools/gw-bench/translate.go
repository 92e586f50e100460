package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelgateway/gw/standin"
)

// The -translate benchmark: what gw serve's translation of the Anthropic
// Messages API and the OpenAI Responses API onto chat completions costs,
// against chat completions passed through by the same gw serve and against
// claude-code-router doing the same Messages → chat translation (with a
// plain ReverseProxy's CPU per request as the floor, cpu.go); then the
// scheduler setting at several concurrencies for all three protocols
// (sched.go). docs/benchmarks.md explains it.

type tconfig struct {
	gw, ccr, node, repo string
	rounds              int
	events              int           // content deltas per streamed answer (per-event delay, CPU, RSS)
	cpuDuration         time.Duration // per CPU cell, over all rounds
	cpuConc             int
	streams             int
	sched               bool
	schedConc           []int
	schedDuration       time.Duration // per scheduler cell, over all rounds
	schedEvents         int
	procs               []string
}

func translateMain(ctx context.Context, args []string, out io.Writer) error {
	var c tconfig
	var conc, procs string
	fs := flag.NewFlagSet("gw-bench -translate", flag.ContinueOnError)
	fs.StringVar(&c.gw, "gw", "", "path of the gw binary to measure (required)")
	fs.StringVar(&c.ccr, "ccr", "", "path of claude-code-router's CLI (…/node_modules/@musistudio/claude-code-router/dist/cli.js); empty: not measured")
	fs.StringVar(&c.node, "node", "node", "the node binary that runs claude-code-router")
	fs.StringVar(&c.repo, "repo", ".", "the repository's root, where the recorded agent requests are read from")
	fs.IntVar(&c.rounds, "rounds", 5, "rounds per measurement, interleaved across the paths; medians are reported")
	fs.IntVar(&c.events, "events", 200, "content deltas per streamed answer for the per-event delay, CPU and memory")
	fs.DurationVar(&c.cpuDuration, "cpu-duration", 1500*time.Millisecond, "how long each CPU-per-request cell runs, over all rounds")
	fs.IntVar(&c.cpuConc, "cpu-concurrency", 4, "concurrent streams while CPU per request is measured")
	fs.IntVar(&c.streams, "streams", 100, "concurrent translated streams held open for the RSS measurement")
	fs.BoolVar(&c.sched, "sched", true, "also measure the scheduler setting (-procs) at -sched-concurrency")
	fs.StringVar(&conc, "sched-concurrency", "1,8,64", "concurrencies for the scheduler measurement")
	fs.DurationVar(&c.schedDuration, "sched-duration", 2*time.Second, "how long each scheduler cell runs, over all rounds")
	fs.IntVar(&c.schedEvents, "sched-events", 24, "content deltas per streamed answer in the scheduler measurement")
	fs.StringVar(&procs, "procs", "1,2", "GOMAXPROCS values gw serve is measured with (\"default\": unset, gw serve's own choice)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.gw == "" {
		return errors.New("-gw PATH is required (build it with: go build -o gw ./cmd/gw)")
	}
	if c.rounds < 1 || c.events < 1 || c.cpuConc < 1 || c.streams < 1 || c.schedEvents < 1 {
		return errors.New("-rounds, -events, -cpu-concurrency, -streams and -sched-events must be at least 1")
	}
	for _, s := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-sched-concurrency %q: want positive numbers separated by commas", conc)
		}
		c.schedConc = append(c.schedConc, n)
	}
	for _, s := range strings.Split(procs, ",") {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); s != "default" && (err != nil || n < 1) {
			return fmt.Errorf("-procs %q: want positive numbers or \"default\", separated by commas", procs)
		}
		c.procs = append(c.procs, s)
	}
	return translateBench(ctx, c, out)
}

// route is one way to the stand-in: a proxy (or none) and the protocol the
// client speaks to it.
type route struct {
	name string
	tg   *target
	p    proto
}

// deltaClock records when the stand-in is about to write each SSE event of
// the one stream being timed, and can hold every stream before its first
// content delta.
type deltaClock struct {
	mu   sync.Mutex
	sent []time.Time // recording while non-nil
	hold chan struct{}
	held int
}

func (c *deltaClock) before(ctx context.Context, n int) {
	c.mu.Lock()
	if c.sent != nil {
		c.sent = append(c.sent, time.Now())
	}
	hold := c.hold
	if hold != nil && n == 1 {
		c.held++
	}
	c.mu.Unlock()
	if hold != nil && n == 1 {
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
}

// serveStandin serves svc on a loopback port and returns its …/v1 URL and
// the function that stops it.
func serveStandin(svc *standin.Server) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/v1", func() { svc.Close(); _ = srv.Close() }, nil
}

func translateBench(ctx context.Context, c tconfig, out io.Writer) error {
	claude, claudeChat, codex, codexChat, err := agentBodies(c.repo)
	if err != nil {
		return err
	}
	clock := &deltaClock{}
	svc := standin.New(standin.Options{ContentChunks: c.events, ChunkSize: 32, BeforeEvent: clock.before})
	upstream, stopStandin, err := serveStandin(svc)
	if err != nil {
		return err
	}
	defer stopStandin()

	tmp, err := os.MkdirTemp("", "gw-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// As in main.go: the client and the baseline each run from a copy of
	// this binary, not sharing code pages with another process.
	clientExe, err := copyExecutable(self, filepath.Join(tmp, "gw-bench-client"))
	if err != nil {
		return err
	}
	proxyExe, err := copyExecutable(self, filepath.Join(tmp, "gw-bench-proxy"))
	if err != nil {
		return err
	}
	// gw serve as shipped: its own scheduler setting (the scheduler section
	// sets GOMAXPROCS itself).
	gwEnv := append(withoutEnv(os.Environ(), "GW_BASE_URL", "GW_API_KEY", "GOMAXPROCS"), "HOME="+tmp, "GW_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "GW_STATE_DIR="+filepath.Join(tmp, "state"),
		"GW_API_KEY="+standin.DemoKeyFull)
	startGw := func(base string, env ...string) (*target, error) {
		e := append(slices.Clone(gwEnv), "GW_BASE_URL="+base)
		tg, _, err := start(ctx, "gw serve", append(e, env...), c.gw, "serve", "--port", "0")
		return tg, err
	}

	fmt.Fprintf(out, "# gw serve: translated protocols\n\n%s, %s/%s, %d CPUs, %s. Upstream: the stand-in on loopback. Load average (1 min) at the start: %s.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), loadAvg())

	// Two stand-ins: answers of c.events deltas (paced for the per-event
	// delay, and held for the memory) and of c.schedEvents deltas.
	short, stopShort, err := serveStandin(standin.New(standin.Options{ContentChunks: c.schedEvents, ChunkSize: 32}))
	if err != nil {
		return err
	}
	defer stopShort()
	var stops []func()
	defer func() {
		for _, stop := range slices.Backward(stops) {
			stop()
		}
	}()
	token := ""
	// routesTo starts, in front of upstream, one gw serve process per
	// protocol (so that each one's CPU time and memory are its own) and
	// claude-code-router; and the plain ReverseProxy of baseline.go (with
	// Go's defaults), the floor of the CPU per request, returned apart.
	routesTo := func(upstream string) ([]route, route, error) {
		rp, _, err := start(ctx, "ReverseProxy", gwEnv, proxyExe, "-baseline", strings.TrimSuffix(upstream, "/v1"))
		if err != nil {
			return nil, route{}, err
		}
		stops = append(stops, rp.stop)
		rp.token = standin.DemoKeyFull
		floor := route{floorName, rp, protoChat}
		gw := map[proto]*target{}
		for _, p := range []proto{protoChat, protoMessages, protoResponses} {
			tg, err := startGw(upstream)
			if err != nil {
				return nil, route{}, err
			}
			stops = append(stops, tg.stop)
			if token == "" {
				if token, err = readToken(filepath.Join(tmp, "config", "config.json")); err != nil {
					return nil, route{}, err
				}
			}
			tg.token = token
			gw[p] = tg
		}
		routes := []route{
			{"direct (chat)", &target{name: "direct", base: upstream, token: standin.DemoKeyFull}, protoChat},
			{"gw serve, chat passed through", gw[protoChat], protoChat},
			{"gw serve, Messages → chat", gw[protoMessages], protoMessages},
			{"gw serve, Responses → chat", gw[protoResponses], protoResponses},
		}
		if c.ccr != "" {
			ccr, stop, _, err := startCCR(ctx, c.node, c.ccr, tmp, upstream, standin.DemoKeyFull, token)
			if err != nil {
				return nil, route{}, err
			}
			stops = append(stops, stop)
			routes = append(routes, route{"claude-code-router, Messages → chat", ccr, protoMessages})
		}
		return routes, floor, nil
	}
	routes, floor, err := routesTo(upstream)
	if err != nil {
		return err
	}
	shortRoutes, shortFloor, err := routesTo(short)
	if err != nil {
		return err
	}

	if err := perEventSection(ctx, c, out, svc, clock, routes); err != nil {
		return err
	}

	answers := []cpuAnswer{{c.schedEvents, newCPURoutes(shortRoutes, shortFloor)}, {c.events, newCPURoutes(routes, floor)}}
	if err := cpuSection(ctx, c, out, agentRequests{claude, claudeChat, codex, codexChat}, answers); err != nil {
		return err
	}
	if err := rssSection(ctx, c, out, tmp, upstream, clock, startGw, token); err != nil {
		return err
	}
	if c.sched {
		if err := schedSection(ctx, c, out, short, proxyExe, clientExe, gwEnv, startGw, token); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\nLoad average (1 min) at the end: %s.\n", loadAvg())
	return nil
}

// perEventSection times each content delta from the stand-in's write to
// the client's read, one paced stream at a time.
func perEventSection(ctx context.Context, c tconfig, out io.Writer, svc *standin.Server, clock *deltaClock, routes []route) error {
	// Paced, so each delta's delay is its own, not a queue behind the ones before.
	svc.SetFault(standin.Fault{Kind: standin.FaultSlowStream, Delay: time.Millisecond})
	defer svc.SetFault(standin.Fault{})
	type pcts struct{ p50, p99 time.Duration }
	per := map[string][]pcts{}
	for _, r := range routes { // a first stream through each, not timed
		if _, err := deltaDelays(ctx, r, clock); err != nil {
			return fmt.Errorf("per-event delay, %s: %w", r.name, err)
		}
	}
	for round := range c.rounds {
		for _, r := range rotateAny(routes, round) {
			d, err := deltaDelays(ctx, r, clock)
			if err != nil {
				return fmt.Errorf("per-event delay, %s: %w", r.name, err)
			}
			per[r.name] = append(per[r.name], pcts{pct(d, 50), pct(d, 99)})
		}
	}
	fmt.Fprintf(out, "## Delay per content delta (%d rounds × %d deltas 1 ms apart, stand-in write → client read)\n\n", c.rounds, c.events)
	fmt.Fprintln(out, "Medians of the rounds' percentiles; added p99 is the median of the per-round differences [lowest – highest round].")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| path | p50 | p99 | added p99 vs direct | added p99 vs chat passed through |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	direct, pass := per[routes[0].name], per[routes[1].name]
	for i, r := range routes {
		var p50, p99, vsDirect, vsPass []time.Duration
		for k, x := range per[r.name] {
			p50 = append(p50, x.p50)
			p99 = append(p99, x.p99)
			vsDirect = append(vsDirect, x.p99-direct[k].p99)
			vsPass = append(vsPass, x.p99-pass[k].p99)
		}
		a, b := "–", "–"
		if i > 0 {
			a = fmtDurSpread(vsDirect)
		}
		if i > 1 {
			b = fmtDurSpread(vsPass)
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s |\n", r.name, fmtDur(pct(p50, 50)), fmtDur(pct(p99, 50)), a, b)
	}
	return nil
}

// deltaDelays reads one stream through r and returns each content delta's
// delay.
func deltaDelays(ctx context.Context, r route, clock *deltaClock) ([]time.Duration, error) {
	runtime.GC()
	hc := client(1)
	defer hc.CloseIdleConnections()
	clock.mu.Lock()
	clock.sent = make([]time.Time, 0, 1024)
	clock.mu.Unlock()
	var recv []time.Time
	err := func() error {
		res, err := hc.Do(newProtoRequest(ctx, r.tg.base, r.tg.token, r.p, smallBody(r.p, true)))
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return readStream(res.Body, r.p, func() { recv = append(recv, time.Now()) })
	}()
	clock.mu.Lock()
	sent := clock.sent
	clock.sent = nil
	clock.mu.Unlock()
	if err != nil {
		return nil, err
	}
	// Event 0 is the role chunk; the content deltas follow it.
	if len(sent) < len(recv)+1 {
		return nil, fmt.Errorf("the stand-in sent %d events, the client read %d content deltas", len(sent), len(recv))
	}
	d := make([]time.Duration, len(recv))
	for i := range recv {
		d[i] = recv[i].Sub(sent[i+1])
	}
	return d, nil
}

// rssSection measures each proxy's memory idle and with c.streams streams
// held open mid-answer, each in a fresh process.
func rssSection(ctx context.Context, c tconfig, out io.Writer, tmp, upstream string, clock *deltaClock,
	startGw func(string, ...string) (*target, error), token string) error {
	type row struct {
		name       string
		p          proto
		idle, busy int64
	}
	rows := []*row{{name: "gw serve, chat passed through", p: protoChat}, {name: "gw serve, Messages → chat", p: protoMessages},
		{name: "gw serve, Responses → chat", p: protoResponses}}
	if c.ccr != "" {
		rows = append(rows, &row{name: "claude-code-router, Messages → chat", p: protoMessages})
	}
	for _, rw := range rows {
		var tg *target
		var stop func()
		var err error
		if strings.HasPrefix(rw.name, "claude-code-router") {
			tg, stop, _, err = startCCR(ctx, c.node, c.ccr, tmp, upstream, standin.DemoKeyFull, token)
		} else if tg, err = startGw(upstream); err == nil {
			stop = tg.stop
		}
		if err != nil {
			return err
		}
		tg.token = token
		rw.idle = rss(tg.proc.Process.Pid)
		rw.busy, err = rssHolding(ctx, route{rw.name, tg, rw.p}, clock, c.streams)
		stop()
		if err != nil {
			return fmt.Errorf("RSS, %s: %w", rw.name, err)
		}
	}
	fmt.Fprintf(out, "\n## Memory (fresh process per row)\n\n| proxy | RSS idle | RSS with %d streams held mid-answer |\n|---|---|---|\n", c.streams)
	for _, rw := range rows {
		fmt.Fprintf(out, "| %s | %s | %s |\n", rw.name, fmtMB(rw.idle), fmtMB(rw.busy))
	}
	return nil
}

// rssHolding opens n streams through r that the stand-in holds before
// their first content delta, samples the proxy's RSS, then lets them end.
func rssHolding(ctx context.Context, r route, clock *deltaClock, n int) (int64, error) {
	hold := make(chan struct{})
	clock.mu.Lock()
	clock.hold, clock.held = hold, 0
	clock.mu.Unlock()
	release := sync.OnceFunc(func() {
		clock.mu.Lock()
		clock.hold = nil
		clock.mu.Unlock()
		close(hold)
	})
	defer release()
	hc := client(n)
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			res, err := hc.Do(newProtoRequest(ctx, r.tg.base, r.tg.token, r.p, smallBody(r.p, true)))
			if err != nil {
				errs <- err
				return
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("status %d", res.StatusCode)
				return
			}
			if err := readStream(res.Body, r.p, nil); err != nil {
				errs <- err
			}
		})
	}
	deadline := time.Now().Add(time.Minute)
	for {
		clock.mu.Lock()
		k := clock.held
		clock.mu.Unlock()
		if k >= n || len(errs) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	size := rss(r.tg.proc.Process.Pid)
	release()
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	clock.mu.Lock()
	held := clock.held
	clock.mu.Unlock()
	if held < n {
		return 0, fmt.Errorf("only %d of %d streams reached the stand-in within a minute", held, n)
	}
	return size, nil
}

// ratios are a[i] ÷ b[i].
func ratios(a, b []time.Duration) []float64 {
	var r []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			r = append(r, float64(a[i])/float64(b[i]))
		}
	}
	if len(r) == 0 {
		return []float64{0}
	}
	return r
}

// fmtDurSpread is "median [lowest – highest]".
func fmtDurSpread(d []time.Duration) string {
	return fmt.Sprintf("%s [%s – %s]", fmtDur(pct(d, 50)), fmtDur(slices.Min(d)), fmtDur(slices.Max(d)))
}

// rotateAny starts round r at a different element (see rotate).
func rotateAny[T any](xs []T, r int) []T {
	k := r % len(xs)
	return append(slices.Clone(xs[k:]), xs[:k]...)
}

// withoutEnv is env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, k)
	})
}

// loadAvg is the 1-minute load average (Linux), "?" elsewhere.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
