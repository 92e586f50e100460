// Command gw-latency measures how soon the first token of a streamed chat
// completion reaches an agent, directly from the service and through gw
// serve, in one run. The service is the stand-in over TLS behind a relay
// that delays each direction by half the round-trip time; the agent is a
// long-lived Node process using the official openai SDK with its defaults.
// The scenarios are the first request after gw serve started, single
// requests after idle gaps (6 s, 30 s, 120 s, and 10 min with -long), and
// 4 streams at once after 30 s idle, against a service speaking HTTP/1.1
// and one offering HTTP/2. It prints a Markdown report; docs/benchmarks.md
// explains it. It passes or fails nothing: it measures.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelgateway/gw/standin"
)

//go:embed agent.mjs
var agentScript []byte

const model = "vendor-a/model-a-sonnet-4.5"

type config struct {
	gw, node, sdk string
	rtts          []time.Duration
	rounds        int
	longRounds    int
	long          bool
	serviceIdle   time.Duration
	stagger       time.Duration
	gaps          []time.Duration
	burstGap      time.Duration
}

var newTLSListener = tls.NewListener

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gw-latency:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out, progress io.Writer) error {
	var c config
	var rtts, gaps string
	fs := flag.NewFlagSet("gw-latency", flag.ContinueOnError)
	fs.StringVar(&c.gw, "gw", "", "path of the gw binary to measure (required)")
	fs.StringVar(&c.node, "node", "node", "the node binary")
	fs.StringVar(&c.sdk, "sdk", "", "directory whose node_modules holds the openai SDK (required)")
	fs.StringVar(&rtts, "rtt", "50ms,150ms", "round-trip times to the service")
	fs.IntVar(&c.rounds, "rounds", 5, "measurements per scenario and path")
	fs.StringVar(&gaps, "gaps", "6s,30s,120s", "idle gaps before single requests")
	fs.DurationVar(&c.burstGap, "burst-gap", 30*time.Second, "idle gap before 4 streams at once")
	fs.BoolVar(&c.long, "long", false, "also measure after 10 minutes idle (the run then takes long-rounds × 10 min)")
	fs.IntVar(&c.longRounds, "long-rounds", 2, "with -long: measurements after 10 minutes idle per path")
	fs.DurationVar(&c.serviceIdle, "service-idle", 60*time.Second, "the service closes a connection idle this long, as a load balancer does (0: never)")
	fs.DurationVar(&c.stagger, "stagger", 1500*time.Millisecond, "delay between the starts of the scenarios, which run side by side")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.gw == "" || c.sdk == "" {
		return errors.New("-gw and -sdk are required")
	}
	if _, err := os.Stat(filepath.Join(c.sdk, "node_modules", "openai", "package.json")); err != nil {
		return fmt.Errorf("-sdk %s: the openai package is not installed there (npm install --prefix %s openai)", c.sdk, c.sdk)
	}
	for _, s := range strings.Split(rtts, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			return fmt.Errorf("-rtt %q: give durations such as 50ms,150ms", rtts)
		}
		c.rtts = append(c.rtts, d)
	}
	for _, s := range strings.Split(gaps, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return fmt.Errorf("-gaps %q: give durations such as 6s,30s,120s", gaps)
		}
		c.gaps = append(c.gaps, d)
	}

	tmp, err := os.MkdirTemp("", "gw-latency-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// The stand-ins: one speaking HTTP/1.1, one offering HTTP/2 too.
	cert, certPEM, err := standin.SelfSignedCert()
	if err != nil {
		return err
	}
	certFile := filepath.Join(tmp, "standin.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		return err
	}
	// gw trusts the system's roots and the stand-in's, as a machine behind
	// a company's TLS inspection does: Go reads them all at the first
	// handshake (or at start, to warm up).
	bundle := filepath.Join(tmp, "roots.pem")
	roots := slices.Clone(certPEM)
	for _, f := range []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"} {
		if b, err := os.ReadFile(f); err == nil {
			roots = append(append(b, '\n'), roots...)
			break
		}
	}
	if err := os.WriteFile(bundle, roots, 0o600); err != nil {
		return err
	}
	services := map[string]string{}
	for _, h2 := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: standin.New(standin.Options{}), IdleTimeout: c.serviceIdle,
			ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
		go func() { _ = srv.Serve(newTLSListener(ln, standin.TLSConfig(cert, h2))) }()
		defer srv.Close()
		services[protoName(h2)] = ln.Addr().String()
	}

	agent, err := startAgent(ctx, c, tmp, certFile) // the long-lived one

	if err != nil {
		return err
	}
	defer agent.stop()

	gwEnv := append(withoutEnv(os.Environ(), "GW_BASE_URL", "GW_API_KEY", "SSL_CERT_FILE", "SSL_CERT_DIR"),
		"HOME="+tmp, "GW_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "GW_STATE_DIR="+filepath.Join(tmp, "state"),
		"GW_API_KEY="+standin.DemoKeyFull, "SSL_CERT_FILE="+bundle)
	r := &runner{c: c, tmp: tmp, certFile: certFile, agent: agent, gw: c.gw, gwEnv: gwEnv, tokenFile: filepath.Join(tmp, "config", "config.json")}
	// The local token is made by the first gw serve; make it before the
	// scenarios start side by side.
	{
		g, err := r.startGw(ctx, "https://127.0.0.1:1/v1")
		if err != nil {
			return err
		}
		g.stop()
	}

	// The second: an agent whose credential command has just started gw serve (gw auth token --serve)
	// sends its main request beside small-model ones.
	scenarios := []scenario{{name: "first request after gw serve started", cold: true, n: 1},
		{name: "4 streams at once right after gw serve started", cold: true, n: 4},
		{name: "4 streams at once right after gw serve --on-demand started", cold: true, n: 4, onDemand: true}}
	for _, gap := range c.gaps {
		scenarios = append(scenarios, scenario{name: "after " + human(gap) + " idle", gap: gap, n: 1})
	}
	if c.long {
		scenarios = append(scenarios, scenario{name: "after 10 min idle", gap: 10 * time.Minute, n: 1, rounds: c.longRounds})
	}
	scenarios = append(scenarios, scenario{name: "4 streams at once after " + human(c.burstGap) + " idle", gap: c.burstGap, n: 4})

	var lanes []*lane
	for _, rtt := range c.rtts {
		for _, proto := range []string{"HTTP/1.1", "HTTP/2"} {
			for _, s := range scenarios {
				lanes = append(lanes, &lane{s: s, rtt: rtt, proto: proto, service: services[proto], id: len(lanes)})
			}
		}
	}
	longest := time.Duration(0)
	for _, s := range scenarios {
		rounds := c.rounds
		if s.rounds > 0 {
			rounds = s.rounds
		}
		longest = max(longest, time.Duration(rounds)*(s.gap+2*time.Second))
	}
	fmt.Fprintf(progress, "gw-latency: %d scenarios side by side, about %s\n", len(lanes),
		(longest + time.Duration(len(lanes))*c.stagger).Round(time.Minute))
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(lanes))
	for i, l := range lanes {
		wg.Go(func() {
			select {
			case <-time.After(time.Duration(i) * c.stagger):
			case <-ctx.Done():
				return
			}
			if err := r.runLane(ctx, l); err != nil {
				errs <- fmt.Errorf("%s, %s, RTT %s: %w", l.s.name, l.proto, human(l.rtt), err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	report(out, c, lanes, time.Since(start))
	return nil
}

func protoName(h2 bool) string {
	if h2 {
		return "HTTP/2"
	}
	return "HTTP/1.1"
}

type scenario struct {
	name string
	cold bool // a new gw serve (and a new agent connection) each round
	// onDemand: that gw serve is started as an agent's credential command starts it
	onDemand bool
	gap      time.Duration // idle before each measurement
	n        int           // streams at once
	// rounds, when not 0, replaces config.rounds
	rounds int
}

// lane is one scenario at one RTT against one service.
type lane struct {
	s       scenario
	rtt     time.Duration
	proto   string
	service string
	id      int
	// First-token times, ms, and connections the service accepted per
	// stream measured, for each path.
	direct, viaGw        []float64
	directConns, gwConns int64
	directCount, gwCount int
	directFails, gwFails int
}

type runner struct {
	c         config
	tmp       string
	certFile  string
	agent     *agent
	gw        string
	gwEnv     []string
	tokenFile string
	tokenOnce sync.Once
	token     string
	tokenErr  error
	// measuring lets one measurement run at a time (the idle gaps overlap):
	// the lanes share one Node process and two CPUs, and another lane's
	// TLS handshake or process start-up must not land in a first-token
	// time. A lane that waits for it idles a little longer than its gap.
	measuring sync.Mutex
}

var listening = regexp.MustCompile(`listening on (http://\S+/v1)`)

type gwProc struct {
	base string
	cmd  *exec.Cmd
}

func (g *gwProc) stop() {
	_ = g.cmd.Process.Signal(os.Interrupt)
	_ = g.cmd.Wait()
}

// startGw starts gw serve in front of upstream and returns once it said
// where it listens.
func (r *runner) startGw(ctx context.Context, upstream string) (*gwProc, error) {
	return r.startGwAs(ctx, upstream, false)
}

// startGwAs is startGw; onDemand starts it as gw auth token --serve does
// (gw serve --on-demand), which says where it listens in serve.log, here in
// a state directory of its own.
func (r *runner) startGwAs(ctx context.Context, upstream string, onDemand bool) (*gwProc, error) {
	if onDemand {
		state, err := os.MkdirTemp(r.tmp, "state-")
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, r.gw, "serve", "--on-demand", "--port", "0")
		cmd.Env = append(slices.Clone(r.gwEnv), "GW_BASE_URL="+upstream, "GW_STATE_DIR="+state)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			b, _ := os.ReadFile(filepath.Join(state, "serve.log"))
			if m := listening.FindSubmatch(b); m != nil {
				return &gwProc{base: string(m[1]), cmd: cmd}, nil
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, errors.New("gw serve --on-demand wrote no address into its serve.log within 10 s")
	}
	cmd := exec.CommandContext(ctx, r.gw, "serve", "--port", "0")
	cmd.Env = append(slices.Clone(r.gwEnv), "GW_BASE_URL="+upstream)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := listening.FindStringSubmatch(line)
	if m == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("gw serve printed %q (%v), not its address", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	r.tokenOnce.Do(func() {
		b, err := os.ReadFile(r.tokenFile)
		if m := regexp.MustCompile(`"local_token":\s*"([^"]+)"`).FindSubmatch(b); m != nil {
			r.token = string(m[1])
		} else {
			r.tokenErr = fmt.Errorf("no local token in %s (%v)", r.tokenFile, err)
		}
	})
	return &gwProc{base: m[1], cmd: cmd}, r.tokenErr
}

// runLane measures one lane: each round, the direct path and the path
// through gw serve, in alternating order.
func (r *runner) runLane(ctx context.Context, l *lane) error {
	if l.s.cold {
		// Each round as an agent's session starts under gw run: gw serve
		// starts, then the agent (a new Node process) sends its first
		// request as soon as it can; directly, the same from a new Node
		// process. Each path has a relay of its own.
		for round := range r.c.rounds {
			r.measuring.Lock()
			for _, path := range []string{"gw", "direct"} {
				rl, err := newRelay(l.service, l.rtt)
				if err != nil {
					return err
				}
				base, key := "https://"+rl.addr()+"/v1", standin.DemoKeyFull
				var g *gwProc
				if path == "gw" {
					if g, err = r.startGwAs(ctx, base, l.s.onDemand); err != nil {
						rl.close()
						return err
					}
					base, key = g.base, r.token
				}
				a, err := startAgent(ctx, r.c, r.tmp, r.certFile)
				if err == nil {
					id := fmt.Sprintf("%d.%d%s", l.id, round, path)
					if err = a.client(id, base, key); err == nil {
						if path == "gw" {
							l.measure(a, id, &l.viaGw, &l.gwFails)
						} else {
							l.measure(a, id, &l.direct, &l.directFails)
						}
					}
					a.stop()
				}
				if g != nil {
					g.stop()
				}
				rl.close()
				if path == "gw" {
					l.gwConns += rl.accepted.Load()
					l.gwCount += l.s.n
				} else {
					l.directConns += rl.accepted.Load()
					l.directCount += l.s.n
				}
				if err != nil {
					r.measuring.Unlock()
					return err
				}
			}
			r.measuring.Unlock()
			if err := sleep(ctx, 2*time.Second); err != nil {
				return err
			}
		}
		return nil
	}

	dr, err := newRelay(l.service, l.rtt)
	if err != nil {
		return err
	}
	defer dr.close()
	gr, err := newRelay(l.service, l.rtt)
	if err != nil {
		return err
	}
	defer gr.close()
	g, err := r.startGw(ctx, "https://"+gr.addr()+"/v1")
	if err != nil {
		return err
	}
	defer g.stop()
	id := fmt.Sprint(l.id)
	if err := r.agent.client(id+"gw", g.base, r.token); err != nil {
		return err
	}
	if err := r.agent.client(id+"direct", "https://"+dr.addr()+"/v1", standin.DemoKeyFull); err != nil {
		return err
	}
	// The agent's turn before the first gap, not measured.
	var discard []float64
	var fails int
	r.measuring.Lock()
	l.measure(r.agent, id+"direct", &discard, &fails)
	l.measure(r.agent, id+"gw", &discard, &fails)
	r.measuring.Unlock()
	d0, g0 := dr.accepted.Load(), gr.accepted.Load()
	rounds := r.c.rounds
	if l.s.rounds > 0 {
		rounds = l.s.rounds
	}
	for round := range rounds {
		if err := sleep(ctx, l.s.gap); err != nil {
			return err
		}
		r.measuring.Lock()
		if round%2 == 0 {
			l.measure(r.agent, id+"direct", &l.direct, &l.directFails)
			l.measure(r.agent, id+"gw", &l.viaGw, &l.gwFails)
		} else {
			l.measure(r.agent, id+"gw", &l.viaGw, &l.gwFails)
			l.measure(r.agent, id+"direct", &l.direct, &l.directFails)
		}
		r.measuring.Unlock()
	}
	l.directConns, l.gwConns = dr.accepted.Load()-d0, gr.accepted.Load()-g0
	l.directCount, l.gwCount = rounds*l.s.n, rounds*l.s.n
	return nil
}

func (l *lane) measure(a *agent, id string, into *[]float64, fails *int) {
	ms, err := a.run(id, l.s.n)
	if err != nil {
		*fails += l.s.n
		return
	}
	*into = append(*into, ms...)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// agent is the Node process.
type agent struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	mu   sync.Mutex
	wait map[string]chan json.RawMessage
}

func startAgent(ctx context.Context, c config, tmp, certFile string) (*agent, error) {
	script := filepath.Join(tmp, "agent.mjs")
	if err := os.WriteFile(script, agentScript, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, c.node, script, c.sdk)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "NODE_EXTRA_CA_CERTS=" + certFile}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting node: %w", err)
	}
	a := &agent{cmd: cmd, in: in, wait: map[string]chan json.RawMessage{}}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			a.mu.Lock()
			ch := a.wait[m.ID]
			delete(a.wait, m.ID)
			a.mu.Unlock()
			if ch != nil {
				ch <- slices.Clone(sc.Bytes())
			}
		}
		a.mu.Lock()
		for id, ch := range a.wait {
			close(ch)
			delete(a.wait, id)
		}
		a.mu.Unlock()
	}()
	return a, nil
}

func (a *agent) send(id string, cmd map[string]any) (json.RawMessage, error) {
	ch := make(chan json.RawMessage, 1)
	a.mu.Lock()
	a.wait[id] = ch
	b, _ := json.Marshal(cmd)
	_, err := a.in.Write(append(b, '\n'))
	a.mu.Unlock()
	if err != nil {
		return nil, err
	}
	res, ok := <-ch
	if !ok {
		return nil, errors.New("node ended")
	}
	return res, nil
}

func (a *agent) client(id, baseURL, key string) error {
	_, err := a.send(id, map[string]any{"op": "client", "id": id, "baseURL": baseURL, "apiKey": key})
	return err
}

func (a *agent) run(id string, n int) ([]float64, error) {
	res, err := a.send(id, map[string]any{"op": "run", "id": id, "n": n, "model": model})
	if err != nil {
		return nil, err
	}
	var r struct {
		MS    []float64 `json:"ms"`
		Error string    `json:"error"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return r.MS, nil
}

func (a *agent) stop() {
	_ = a.in.Close()
	_ = a.cmd.Wait()
}

// relay copies bytes between each client connection and a new connection
// to the service, each direction delayed by half the round-trip time, and
// counts the connections: each is a TLS handshake with the service. It
// accepts at once, so nothing the client sends leaves before one round trip
// after the accept: what TCP's handshake costs a client.
type relay struct {
	ln       net.Listener
	upstream string
	rtt      time.Duration
	oneWay   time.Duration
	accepted atomic.Int64
	mu       sync.Mutex
	conns    []net.Conn
}

func newRelay(upstream string, rtt time.Duration) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, upstream: upstream, rtt: rtt, oneWay: rtt / 2}
	go r.serve()
	return r, nil
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.accepted.Add(1)
		connected := time.Now().Add(r.rtt)
		go func() {
			u, err := net.Dial("tcp", r.upstream)
			if err != nil {
				c.Close()
				return
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, u)
			r.mu.Unlock()
			go r.pump(u, c, connected)
			r.pump(c, u, time.Time{})
		}()
	}
}

// pump copies src to dst, each read delivered oneWay after it arrived (or
// after notBefore), in order; src's end becomes dst's end of writing, as
// late.
func (r *relay) pump(dst, src net.Conn, notBefore time.Time) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				at := time.Now()
				if at.Before(notBefore) {
					at = notBefore
				}
				q <- chunk{buf[:n], at.Add(r.oneWay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for ch := range q {
		if d := time.Until(ch.at); d > 0 {
			time.Sleep(d)
		}
		if _, err := dst.Write(ch.b); err != nil {
			break
		}
	}
	// The reader ended: its EOF (or error) reaches the other side as late.
	time.Sleep(r.oneWay)
	if tc, ok := dst.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	} else {
		_ = dst.Close()
	}
	for range q {
	}
}

func (r *relay) close() {
	_ = r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		_ = c.Close()
	}
}

func human(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d >= time.Second && d%time.Second == 0:
		return fmt.Sprintf("%d s", int(d/time.Second))
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

func withoutEnv(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	// Nearest rank.
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func report(out io.Writer, c config, lanes []*lane, took time.Duration) {
	fmt.Fprintf(out, "# gw serve: time to first token, direct and through gw serve\n\n")
	fmt.Fprintf(out, "%s, %s/%s, %d CPUs, %s; %d rounds per scenario (%d after 10 min idle), run time %s. The service: the stand-in over TLS behind a relay delaying each direction by RTT/2, closing connections idle %s. The agent: one Node process, the openai SDK with its defaults.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), c.rounds, c.longRounds, took.Round(time.Second), human(c.serviceIdle))
	for _, rtt := range c.rtts {
		for _, proto := range []string{"HTTP/1.1", "HTTP/2"} {
			fmt.Fprintf(out, "## RTT %s, service speaking %s\n\n", human(rtt), proto)
			fmt.Fprintln(out, "| scenario | direct median (p90) | through gw median (p90) | gw sooner by (median) | handshakes per stream, direct / gw | failed |")
			fmt.Fprintln(out, "|---|---|---|---|---|---|")
			for _, l := range lanes {
				if l.rtt != rtt || l.proto != proto {
					continue
				}
				dm, gm := quantile(l.direct, 0.5), quantile(l.viaGw, 0.5)
				fmt.Fprintf(out, "| %s | %.0f ms (%.0f) | %.0f ms (%.0f) | %+.0f ms | %.2f / %.2f | %d / %d |\n",
					l.s.name, dm, quantile(l.direct, 0.9), gm, quantile(l.viaGw, 0.9), dm-gm,
					perStream(l.directConns, l.directCount), perStream(l.gwConns, l.gwCount), l.directFails, l.gwFails)
			}
			fmt.Fprintln(out)
		}
	}
}

func perStream(conns int64, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(conns) / float64(n)
}
