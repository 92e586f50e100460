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
	// The other proxies run with gw serve's scheduler setting for one
	// request at a time (one CPU unless GOMAXPROCS is set; see
	// proxy/procs.go), so that the ratio compares the proxies, not the
	// setting; "baseline, Go defaults" shows the setting.
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

// copyExecutable copies the file at src to dst, executable.
func copyExecutable(src, dst string) (string, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	return dst, os.WriteFile(dst, b, 0o755)
}
