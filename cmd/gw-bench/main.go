// Command gw-bench measures gw serve against the stand-in of the service, in
// one run: direct to the stand-in, through gw serve (the real binary, as a
// separate process) and through a minimal httputil.ReverseProxy baseline
// (a copy of this binary re-run with -baseline, also a separate process),
// with a byte relay as the floor any proxy hop costs. It prints a Markdown
// report; docs/benchmarks.md explains it. It is not a test: it passes or
// fails nothing, it measures.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/standin"
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

// serveBaseline is the minimal reverse proxy gw serve is compared with: the
// same standard-library machinery, with none of gw's checks or logging.
// Its scheduler setting comes from GOMAXPROCS in its environment.
func serveBaseline(ctx context.Context, upstream, handler string, out io.Writer) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	key := os.Getenv("GW_API_KEY")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	var rp http.Handler = &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Header.Set("Authorization", "Bearer "+key)
		},
	}
	if handler == "gw" {
		// gw serve's own handler in this small process: separates what the
		// handler costs from what the gw binary and process do.
		v1 := *u
		v1.Path = "/v1"
		rp, err = proxy.New(proxy.Options{Upstream: &v1, Transport: api.NewTransport(api.TransportOptions{}),
			Keys:       proxy.NewKeys(func(context.Context) (string, error) { return key, nil }, 0),
			LocalToken: os.Getenv("GW_BENCH_TOKEN"), Log: io.Discard})
		if err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "listening on http://%s/v1\n", ln.Addr())
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveRelay copies bytes between each client connection and a connection
// to upstream (host:port), nothing else: the cheapest hop a Go proxy can
// add with the standard network stack (on Linux io.Copy between TCP
// connections splices in the kernel). serveBlockingRelay is the same
// without Go's poller.
func serveRelay(ctx context.Context, upstream string, out io.Writer) error {
	return relayServe(ctx, out, func(c net.Conn) {
		defer c.Close()
		u, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		defer u.Close()
		go func() { _, _ = io.Copy(u, c); _ = u.(*net.TCPConn).CloseWrite() }()
		_, _ = io.Copy(c, u)
	})
}

// relayServe listens on a free loopback port, prints it as the benchmark
// expects, and hands each connection to relay until ctx ends.
func relayServe(ctx context.Context, out io.Writer, relay func(net.Conn)) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); _ = ln.Close() }()
	fmt.Fprintf(out, "listening on http://%s/v1\n", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go relay(c)
	}
}

// loadMain is the small-request client in a process of its own (a coding
// agent is never in the service's process): -load URL CONCURRENCY DURATION,
// the Bearer token in GW_BENCH_TOKEN (not an argument, which anyone on the
// machine can read). It prints "req/s p50-ns p99-ns".
func loadMain(ctx context.Context, args []string, out io.Writer) error {
	if len(args) != 3 {
		return errors.New("-load URL CONCURRENCY DURATION")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return err
	}
	d, err := time.ParseDuration(args[2])
	if err != nil {
		return err
	}
	r, err := load(ctx, &target{base: args[0], token: os.Getenv("GW_BENCH_TOKEN")}, n, d)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%f %d %d\n", r.rps, int64(r.p50), int64(r.p99))
	return err
}

// loadFrom runs one small-request cell from a client process of its own.
func loadFrom(ctx context.Context, exe string, tg *target, n int, d time.Duration) (loadResult, error) {
	cmd := exec.CommandContext(ctx, exe, "-load", tg.base, strconv.Itoa(n), d.String())
	cmd.Env = append(os.Environ(), "GW_BENCH_TOKEN="+tg.token)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	o, err := cmd.Output()
	if err != nil {
		return loadResult{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r loadResult
	var p50, p99 int64
	if _, err := fmt.Sscan(string(o), &r.rps, &p50, &p99); err != nil {
		return loadResult{}, fmt.Errorf("client printed %q: %w", o, err)
	}
	r.p50, r.p99 = time.Duration(p50), time.Duration(p99)
	return r, nil
}

// blockingRelay is the name of the serveBlockingRelay path.
const blockingRelay = "byte relay, blocking reads (floor)"

// eventClock records when the stand-in is about to write each SSE event.
type eventClock struct {
	mu    sync.Mutex
	sent  []time.Time
	hold  chan struct{} // while non-nil, streams wait before event 1
	count int
}

func (e *eventClock) before(ctx context.Context, n int) {
	e.mu.Lock()
	hold := e.hold
	if hold == nil && e.sent != nil {
		e.sent = append(e.sent, time.Now())
	}
	e.mu.Unlock()
	if hold != nil && n == 1 {
		e.mu.Lock()
		e.count++
		e.mu.Unlock()
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
}

type target struct {
	name  string
	base  string // ends in /v1
	token string
	proc  *exec.Cmd
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
	upstream := "http://" + ln.Addr().String() + "/v1"

	tmp, err := os.MkdirTemp("", "gw-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// The baseline and relay run from one copy of this binary, the client
	// from another: run from one file, two processes share code pages (and
	// their places in the CPU caches), an advantage gw serve's own binary
	// does not get.
	clientExe, err := copyExecutable(self, filepath.Join(tmp, "gw-bench-client"))
	if err != nil {
		return err
	}
	if self, err = copyExecutable(self, filepath.Join(tmp, "gw-bench-proxy")); err != nil {
		return err
	}

	gwEnv := append(os.Environ(), "HOME="+tmp, "GW_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "GW_STATE_DIR="+filepath.Join(tmp, "state"),
		"GW_BASE_URL="+upstream, "GW_API_KEY="+standin.DemoKeyFull)
	// The other proxies run with gw serve's scheduler setting (one CPU unless
	// GOMAXPROCS is set; see cmd/serve), so that the ratio compares the
	// proxies, not the setting; "baseline, Go defaults" shows the setting.
	procEnv := slices.Clone(gwEnv)
	if os.Getenv("GOMAXPROCS") == "" {
		procEnv = append(procEnv, "GOMAXPROCS=1")
	}
	startGw := func() (*target, time.Duration, error) {
		return start(ctx, "gw serve", gwEnv, c.gw, "serve", "--port", "0")
	}
	startBase := func() (*target, time.Duration, error) {
		return start(ctx, "baseline", procEnv, self, "-baseline", "http://"+ln.Addr().String())
	}
	startBefore := func() (*target, time.Duration, error) {
		return start(ctx, "gw serve (before)", gwEnv, c.gwBefore, "serve", "--port", "0")
	}

	fmt.Fprintf(out, "# gw serve benchmark\n\n%s, %s/%s, %d CPUs, %s. Upstream: the stand-in on loopback.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())

	// Start-up: from exec to the address printed.
	gwStart, err := startups(c.starts, startGw)
	if err != nil {
		return err
	}
	baseStart, err := startups(c.starts, startBase)
	if err != nil {
		return err
	}
	var beforeStart time.Duration
	if c.gwBefore != "" {
		if beforeStart, err = startups(c.starts, startBefore); err != nil {
			return err
		}
	}

	gw, _, err := startGw()
	if err != nil {
		return err
	}
	defer gw.stop()
	gw.token, err = readToken(filepath.Join(tmp, "config", "config.json"))
	if err != nil {
		return err
	}
	base, _, err := startBase()
	if err != nil {
		return err
	}
	defer base.stop()
	baseDefaults, _, err := start(ctx, "baseline, Go defaults", gwEnv, self, "-baseline", "http://"+ln.Addr().String())
	if err != nil {
		return err
	}
	defer baseDefaults.stop()
	// Two byte relays: the floor of a proxy hop on this machine.
	var floors []*target
	for _, r := range [][2]string{{"byte relay, Go net (floor)", "-relay"}, {blockingRelay, "-blocking-relay"}} {
		relay, _, err := start(ctx, r[0], procEnv, self, r[1], ln.Addr().String())
		if err != nil {
			if r[1] == "-blocking-relay" && runtime.GOOS == "windows" {
				continue
			}
			return err
		}
		defer relay.stop()
		relay.token = standin.DemoKeyFull
		floors = append(floors, relay)
	}
	direct := &target{name: "direct", base: upstream, token: standin.DemoKeyFull}
	targets := []*target{direct, gw, base}
	proxies := []*target{gw, base}
	var before *target
	if c.gwBefore != "" {
		if before, _, err = startBefore(); err != nil {
			return err
		}
		defer before.stop()
		before.token = gw.token // same config directory, same local token
		targets = []*target{direct, gw, before, base}
		proxies = []*target{gw, before, base}
	}
	if c.gwHandler {
		env := append(slices.Clone(procEnv), "GW_BENCH_TOKEN="+gw.token)
		h, _, err := start(ctx, "gw handler, small process", env, self, "-baseline", "http://"+ln.Addr().String(), "-handler", "gw")
		if err != nil {
			return err
		}
		defer h.stop()
		h.token = gw.token
		targets = append(targets[:len(targets)-1], h, base)
		proxies = append(proxies[:len(proxies)-1], h, base)
	}

	// Small requests only: the floor and what the scheduler setting buys.
	small := append(slices.Clone(targets[:len(targets)-1]), floors...)
	small = append(small, baseDefaults, base)

	idle := map[string]int64{}
	for _, tg := range proxies {
		idle[tg.name] = rss(tg.proc.Process.Pid)
	}

	// Small non-streamed requests. Rounds are interleaved across the paths,
	// so drift in the machine's load hits every path alike; each figure is
	// the median of the rounds' figures, and each ratio the median of the
	// rounds' ratios, with the lowest and highest round's beside it.
	fmt.Fprintf(out, "## Small non-streamed requests (GET /v1/models, %s per cell, %d interleaved rounds)\n\n", c.duration, c.rounds)
	fmt.Fprintln(out, "The client runs in a process of its own; medians of the rounds; ratios are the median of the per-round ratios [lowest – highest round].")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| concurrency | path | req/s | p50 | p99 | added p50 vs direct | p50 ÷ baseline p50 |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for _, n := range c.concurrency {
		paths := small
		if n > 1 {
			// A thread per blocked read leaves Go's scheduler to hand its
			// one CPU between many threads: some connections starve, so
			// this floor means something only one request at a time.
			paths = slices.DeleteFunc(slices.Clone(small), func(tg *target) bool { return tg.name == blockingRelay })
		}
		per := map[string][]loadResult{}
		for round := range c.rounds {
			for _, tg := range rotate(paths, round) {
				r, err := loadFrom(ctx, clientExe, tg, n, c.duration/time.Duration(c.rounds))
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
			if tg != direct {
				addedText = fmtDur(pct(added, 50))
				ratioText = fmtSpread(ratio)
			}
			fmt.Fprintf(out, "| %d | %s | %.0f | %s | %s | %s | %s |\n", n, tg.name, median(rps),
				fmtDur(pct(p50, 50)), fmtDur(pct(p99, 50)), addedText, ratioText)
		}
	}

	// Per-event delay: the stand-in's write of each event to the client's read of it.
	fmt.Fprintf(out, "\n## Delay per SSE event (%d rounds × %d events 1 ms apart, stand-in write → client read)\n\n", c.rounds, c.events)
	fmt.Fprintln(out, "Medians of the rounds' percentiles; the added p99 is the median of the per-round differences [lowest – highest round].")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| path | p50 | p99 | added p99 vs direct |")
	fmt.Fprintln(out, "|---|---|---|---|")
	perEvent := map[string][][2]time.Duration{}
	// Paced events, so each one's delay is its own and not a queue behind
	// the ones before (a burst measures throughput instead).
	svc.SetFault(standin.Fault{Kind: standin.FaultSlowStream, Delay: time.Millisecond})
	defer svc.SetFault(standin.Fault{})
	perRound := make([]map[string][2]time.Duration, c.rounds)
	for round := range c.rounds { // interleaved, so drift in the machine's load hits every path alike
		perRound[round] = map[string][2]time.Duration{}
		for _, tg := range rotate(targets, round) {
			d, err := eventDelays(ctx, tg, clock)
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
	for _, tg := range targets {
		var p50, p99, added []time.Duration
		for i, d := range perEvent[tg.name] {
			p50 = append(p50, d[0])
			p99 = append(p99, d[1])
			added = append(added, d[1]-perEvent["direct"][i][1])
		}
		addedText := "–"
		if tg != direct {
			addedText = fmt.Sprintf("%s [%s – %s]", fmtDur(pct(added, 50)), fmtDur(slices.Min(added)), fmtDur(slices.Max(added)))
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", tg.name, fmtDur(pct(p50, 50)), fmtDur(pct(p99, 50)), addedText)
	}

	svc.SetFault(standin.Fault{})

	// Memory: idle, then with many streams held open.
	busy := map[string]int64{}
	for _, tg := range proxies {
		r, err := rssWithStreams(ctx, tg, clock, c.streams)
		if err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
		busy[tg.name] = r
	}
	starts := map[string]time.Duration{"gw serve": gwStart, "gw serve (before)": beforeStart, "baseline": baseStart,
		"gw handler, small process": baseStart}
	fmt.Fprintf(out, "\n## Memory and start-up\n\n")
	fmt.Fprintf(out, "| proxy | RSS idle | RSS with %d streams | start-up p50 (exec → address printed) |\n|---|---|---|---|\n", c.streams)
	for _, tg := range proxies {
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", tg.name, fmtMB(idle[tg.name]), fmtMB(busy[tg.name]), fmtDur(starts[tg.name]))
	}
	fmt.Fprintf(out, "| gw serve ÷ baseline | %.2f× | %.2f× | %.2f× |\n",
		float64(idle["gw serve"])/float64(idle["baseline"]), float64(busy["gw serve"])/float64(busy["baseline"]),
		float64(gwStart)/float64(baseStart))
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

func client(n int) *http.Client {
	// Requests carry a key or the local token: a redirect is a failure, never followed.
	return &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConns: n + 10, MaxIdleConnsPerHost: n + 10},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type loadResult struct {
	rps      float64
	p50, p99 time.Duration
	lat      []time.Duration
}

func load(ctx context.Context, tg *target, n int, d time.Duration) (loadResult, error) {
	// The garbage of the cell before (when client and stand-in share a
	// process) is collected now, not during this cell.
	runtime.GC()
	hc := client(n)
	defer hc.CloseIdleConnections()
	get := func() error {
		req, _ := http.NewRequestWithContext(ctx, "GET", tg.base+"/models", nil)
		req.Header.Set("Authorization", "Bearer "+tg.token)
		res, err := hc.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	for range n * 4 { // warm up connections
		if err := get(); err != nil {
			return loadResult{}, err
		}
	}
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range n {
		wg.Go(func() {
			var mine []time.Duration
			for time.Now().Before(deadline) {
				s := time.Now()
				if err := get(); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(s))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if firstErr != nil {
		return loadResult{}, firstErr
	}
	return loadResult{rps: float64(len(lat)) / time.Since(t0).Seconds(), p50: pct(lat, 50), p99: pct(lat, 99), lat: lat}, nil
}

func streamRequest(ctx context.Context, tg *target) *http.Request {
	body := `{"model":"vendor-a/model-a-sonnet-4.5","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequestWithContext(ctx, "POST", tg.base+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Content-Type", "application/json")
	return req
}

func eventDelays(ctx context.Context, tg *target, clock *eventClock) ([]time.Duration, error) {
	runtime.GC()
	hc := client(1)
	defer hc.CloseIdleConnections()
	clock.mu.Lock()
	clock.sent = make([]time.Time, 0, 1024)
	clock.mu.Unlock()
	res, err := hc.Do(streamRequest(ctx, tg))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var recv []time.Time
	br := bufio.NewReader(res.Body)
	for {
		line, err := br.ReadString('\n')
		if strings.HasPrefix(line, "data: ") {
			recv = append(recv, time.Now())
		}
		if err != nil {
			break
		}
	}
	clock.mu.Lock()
	sent := clock.sent
	clock.sent = nil
	clock.mu.Unlock()
	if len(sent) != len(recv) {
		return nil, fmt.Errorf("stand-in sent %d events, client got %d", len(sent), len(recv))
	}
	d := make([]time.Duration, len(sent))
	for i := range sent {
		d[i] = recv[i].Sub(sent[i])
	}
	return d, nil
}

// rssWithStreams opens n streams that the stand-in holds after their first
// event, samples the proxy's RSS, then lets them finish.
func rssWithStreams(ctx context.Context, tg *target, clock *eventClock, n int) (int64, error) {
	hold := make(chan struct{})
	clock.mu.Lock()
	clock.hold, clock.count = hold, 0
	clock.mu.Unlock()
	hc := client(n)
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			res, err := hc.Do(streamRequest(ctx, tg))
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		})
	}
	for {
		clock.mu.Lock()
		k := clock.count
		clock.mu.Unlock()
		if k >= n || len(errs) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := rss(tg.proc.Process.Pid)
	clock.mu.Lock()
	clock.hold = nil
	clock.mu.Unlock()
	close(hold)
	wg.Wait()
	if len(errs) > 0 {
		return 0, <-errs
	}
	return r, nil
}

// rss is the resident set size of pid in bytes (Linux), 0 when unknown.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb * 1024
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "−" + fmtDur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	default:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
}

// rotate starts round r at a different path, so that no path always runs
// right after the same other one (whose after-effects, such as garbage to
// collect or a busy CPU, would always fall on it).
func rotate(ts []*target, r int) []*target {
	k := r % len(ts)
	return append(slices.Clone(ts[k:]), ts[:k]...)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fmtSpread is "median× [lowest – highest]".
func fmtSpread(xs []float64) string {
	return fmt.Sprintf("%.2f× [%.2f – %.2f]", median(xs), slices.Min(xs), slices.Max(xs))
}

func fmtMB(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

// copyExecutable copies the file at src to dst, executable.
func copyExecutable(src, dst string) (string, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	return dst, os.WriteFile(dst, b, 0o755)
}
