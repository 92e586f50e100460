// Package serve implements `gw serve`: the localhost /v1 proxy that adds the
// API key from the keychain to every request of a local coding agent.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/proxy"
)

// ServeOptions holds the flags and dependencies of `gw serve`.
type ServeOptions struct {
	Factory *cmdutil.Factory

	Port          int
	PortSet       bool // --port was given (0 is a valid choice: a free port)
	Listen        string
	BaseURL       string
	Grace         time.Duration
	HeaderTimeout time.Duration
	KeyRefresh    time.Duration

	// Signals makes the context that ends serving; nil: SIGINT and SIGTERM.
	// Once that is done it is called again, for the context whose end cuts
	// the grace period short (a second ctrl-c).
	Signals func(context.Context) (context.Context, context.CancelFunc)
}

// maxLogSize is where serve.log is rotated (to serve.log.1) at start-up.
const maxLogSize = 10 << 20

// NewCmdServe binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a localhost /v1 proxy that adds your API key to each request",
		Long: `Run a proxy on 127.0.0.1 that forwards /v1/… to the service with the API key from the
keychain, so agent configs hold only the local token (gw auth status shows it; gw init agent
--mode proxy writes it).

Only local tools get through: requests from web pages (an Origin header, a cross-site fetch),
with a Host other than 127.0.0.1/localhost/[::1], or without the local token are refused.
Streams are passed on event by event. One line per request goes to standard error and to
serve.log in gw's state directory. A new key (gw auth login, gw auth logout) is picked up within
a few seconds. On ctrl-c or SIGTERM, running requests get --grace to finish; ctrl-c again
stops them at once. gw serve runs Go's scheduler on one CPU, which is plenty for one person's
agents; set GOMAXPROCS to change that.`,
		Example: `  gw serve
  gw serve --port 0
  gw serve --listen 0.0.0.0 --port 8787   # reachable from other machines: think twice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.PortSet = cmd.Flags().Changed("port")
			if opts.PortSet && (opts.Port < 0 || opts.Port > 65535) {
				return cmdutil.FlagErrorf("--port %d: a port is 0–65535 (0 chooses a free one)", opts.Port)
			}
			if opts.Grace < 0 || opts.HeaderTimeout < 0 {
				return cmdutil.FlagErrorf("--grace and --upstream-header-timeout cannot be negative")
			}
			if opts.Listen != "" {
				host, port, err := splitListen(opts.Listen)
				if err != nil {
					return cmdutil.FlagErrorf("--listen %q: %v", opts.Listen, err)
				}
				if port != "" && opts.PortSet {
					return cmdutil.FlagErrorf("--listen %q already names a port; drop --port or the port in --listen", opts.Listen)
				}
				if port != "" {
					opts.Port, _ = strconv.Atoi(port)
					opts.PortSet = true
				}
				opts.Listen = host
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if n, ok := serveProcs(f.Getenv); ok {
				runtime.GOMAXPROCS(n)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Port, "port", config.DefaultPort, "port to listen on (0 chooses a free port; without --port: the config's port if set)")
	cmd.Flags().StringVar(&opts.Listen, "listen", "", "address to listen on instead of 127.0.0.1 (warns when not loopback)")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL (overrides GW_BASE_URL and the config)")
	cmd.Flags().DurationVar(&opts.Grace, "grace", proxy.DefaultGrace, "how long running requests may finish after ctrl-c or SIGTERM")
	cmd.Flags().DurationVar(&opts.HeaderTimeout, "upstream-header-timeout", api.DefaultResponseHeaderTimeout,
		"how long to wait for the service to start answering (slow reasoning models need minutes)")
	return cmd
}

// serveProcs is how many CPUs Go's scheduler uses in gw serve, unless the
// user chose with GOMAXPROCS: one. A local proxy for one person's agents
// waits on the network and spends a few microseconds of CPU per request or
// event; on one CPU the hand-offs between a request's goroutines stay on
// one thread instead of waking another, which cuts the delay gw adds to
// each request and the wake-ups it costs a laptop (docs/benchmarks.md).
func serveProcs(getenv func(string) string) (int, bool) {
	if getenv("GOMAXPROCS") != "" {
		return 0, false
	}
	return 1, true
}

// splitListen accepts an IP or host name, or host:port.
func splitListen(s string) (host, port string, err error) {
	if h, p, err := net.SplitHostPort(s); err == nil {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return "", "", fmt.Errorf("port %q is not a number 0–65535", p)
		}
		return h, p, nil
	}
	if s == "" {
		return "", "", errors.New("empty address")
	}
	return s, "", nil
}

func serveRun(ctx context.Context, opts *ServeOptions) error {
	f := opts.Factory
	// A proxy outlives its terminal: a closed terminal, or gw serve 2>&1 |
	// head once head has gone, must not end it. Go kills a program with
	// SIGPIPE when a write to its standard output or error meets a closed
	// pipe, unless SIGPIPE is asked for with signal.Notify (or ignored).
	// Notify, not Ignore: an ignored signal stays ignored in programs gw
	// starts (a keychain helper), a caught one is reset for them. The write
	// then fails with EPIPE, which the terminal log below takes as the end
	// of standard error. (Go also raises the soft limit of open files to
	// the hard one at start, on Unix, so gw serve needs no code for that;
	// TestBrokenTerminal checks it.)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	// Everything gw serve says on standard error from here on goes through
	// errLog: in order, and never holding up a request or the shutdown
	// when the terminal is paused or the pipe is not read.
	var fileLog atomic.Pointer[asyncLog] // set once serve.log is open
	errLog := newAsyncLog(f.IOStreams.ErrOut, maxPendingTerm,
		"gw serve: %d request log lines not shown here: the terminal did not keep up (serve.log has them)",
		func(err error) {
			if l := fileLog.Load(); l != nil {
				fmt.Fprintf(l, "gw serve: standard error failed (%v); the request log goes on in this file only\n", err)
			}
		})
	defer errLog.CloseWithin(termFlushWait)
	errOut := io.Writer(errLog)
	cfg, paths, err := f.Config()
	if err != nil {
		return err
	}
	base, _, err := f.BaseURL(opts.BaseURL)
	if err != nil {
		return err
	}
	upstream, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("base URL %q: %w", base, err)
	}
	token, err := config.EnsureLocalToken(paths.File())
	if err != nil {
		return fmt.Errorf("creating the local token for gw serve: %w", err)
	}

	// Read again at every refresh, so gw auth login/logout (and a switch to --insecure-storage) reach a
	// running gw serve without a restart.
	source := func(context.Context) (string, keychain.Source, error) {
		r, err := f.LookupKey()
		return r.Key, r.Source, err
	}
	keys := proxy.NewKeysFrom(source, opts.KeyRefresh)
	if _, err := keys.Get(ctx); errors.Is(err, keychain.ErrNotFound) {
		fmt.Fprintln(errOut, "warning: no API key stored yet; requests will be refused until you run: gw auth login")
	} else if err != nil {
		fmt.Fprintf(errOut, "warning: the API key cannot be read (%v); requests will be refused until it can: run gw doctor\n", err)
	}

	transport := f.Transport()
	if opts.HeaderTimeout != api.DefaultResponseHeaderTimeout && opts.HeaderTimeout > 0 {
		transport = api.NewTransport(api.TransportOptions{ResponseHeaderTimeout: opts.HeaderTimeout})
	}

	host := "127.0.0.1"
	var acceptHosts []string
	if opts.Listen != "" {
		host = opts.Listen
		acceptHosts = listenHosts(host)
	}
	port := cfg.ServePort()
	if opts.PortSet {
		port = opts.Port
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))

	// The terminal and serve.log each have a writer of their own, so that a
	// slow, stuck or closed terminal costs the file no line.
	var reqLog io.Writer = errLog
	if file := openLog(paths, errOut); file != nil {
		defer file.Close()
		l := newAsyncLog(file, maxPendingFile,
			"gw serve: %d request log lines dropped: the disk did not keep up", nil)
		defer l.Close() // every line written before the file closes
		fileLog.Store(l)
		reqLog = tee{l, errLog}
	}

	models := &modelList{ttl: modelListTTL, fetch: func(ctx context.Context, key string) ([]string, error) {
		models, err := f.APIClient(base, key, 10*time.Second).Models(ctx)
		ids := make([]string, 0, len(models))
		for _, m := range models {
			ids = append(ids, m.ID)
		}
		return ids, err
	}}
	h, err := proxy.New(proxy.Options{
		Upstream:    upstream,
		Transport:   transport,
		Keys:        keys,
		LocalToken:  token,
		AcceptHosts: acceptHosts,
		Log:         reqLog,
		ModelIDs: func(ctx context.Context) ([]string, error) {
			key, err := keys.Get(ctx)
			if err != nil {
				return nil, err
			}
			return models.get(ctx, key)
		},
	})
	if err != nil {
		return err
	}

	// Caught before the address is printed: a supervisor that sends
	// SIGTERM as soon as gw serve says it listens gets a clean stop.
	signals := opts.Signals
	if signals == nil {
		signals = func(ctx context.Context) (context.Context, context.CancelFunc) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		}
	}
	sctx, stop := signals(ctx)
	defer stop()

	ln, err := proxy.Listen(addr)
	if err != nil {
		var pe *proxy.PortInUseError
		if errors.As(err, &pe) && proxy.Probe(ctx, loopbackAddr(host, port), token) == nil {
			return fmt.Errorf("gw serve is already running on %s; use it, or stop it first", addr)
		}
		if opts.Listen != "" && !errors.As(err, &pe) {
			return fmt.Errorf("%w\nfix: give --listen an IP address of this machine (127.0.0.1 for this machine only, 0.0.0.0 for every address)", err)
		}
		return err
	}
	if !config.IsLoopbackHost(host) {
		fmt.Fprintf(errOut, "warning: listening on %s, not 127.0.0.1: other machines may reach gw serve; only the local token keeps them from spending your balance\n", host)
	}
	// The address clients use: on "every address" (0.0.0.0, ::) that is
	// not what the listener reports ([::]:port) but the loopback one.
	bound := ln.Addr().String()
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		bound = loopbackAddr(host, ln.Addr().(*net.TCPAddr).Port)
		fmt.Fprintf(errOut, "gw serve: listening on every address of this machine, port %d\n", ln.Addr().(*net.TCPAddr).Port)
	}
	// What was said on stderr so far comes before the address on stdout,
	// as it would unbuffered (unless the terminal does not take it).
	errLog.Flush(termFlushWait)
	fmt.Fprintf(f.IOStreams.Out, "gw serve: listening on http://%s/v1 (forwarding to %s)\n", bound, base)
	fmt.Fprintf(errOut, "Point your agent at http://%s/v1 with the local token as its API key (gw auth status shows it; gw init agent --mode proxy writes it). Ctrl-C stops.\n", bound)

	now, nowCancel := context.WithCancel(context.Background())
	defer nowCancel()
	served := make(chan struct{})
	stopping := context.AfterFunc(sctx, func() {
		again, stopAgain := signals(ctx)
		fmt.Fprintf(errOut, "gw serve: stopping; running requests have %s to finish (ctrl-c again to stop them now)\n", opts.Grace)
		go func() {
			defer stopAgain()
			select {
			case <-again.Done():
				nowCancel()
			case <-served:
			}
		}()
	})
	defer stopping()

	err = proxy.ServeUntil(sctx, now, ln, h, opts.Grace)
	close(served)
	if errors.Is(err, proxy.ErrRequestsCut) {
		fmt.Fprintf(errOut, "gw serve: stopped; %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(errOut, "gw serve: stopped")
	return nil
}

// modelListTTL is how long gw serve reuses the account's model ids to
// suggest the closest one after an unknown-model error.
const modelListTTL = time.Minute

// modelList remembers the account's model ids for a while, for the key they
// were listed with, so that an agent retrying a misspelled id does not cost
// a GET /models each time. Callers arriving during a listing wait for it and
// share its answer. Failed listings are not remembered.
type modelList struct {
	fetch func(ctx context.Context, key string) ([]string, error)
	ttl   time.Duration

	mu  sync.Mutex
	key string // the key ids were listed with
	ids []string
	at  time.Time
}

func (m *modelList) get(ctx context.Context, key string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ids != nil && m.key == key && time.Since(m.at) < m.ttl {
		return m.ids, nil
	}
	ids, err := m.fetch(ctx, key)
	if err != nil {
		return ids, err
	}
	m.key, m.ids, m.at = key, ids, time.Now()
	return ids, nil
}

// openLog opens serve.log in the state directory. A log file that cannot be
// opened is reported and skipped (nil).
func openLog(paths config.Paths, errOut io.Writer) *os.File {
	path := filepath.Join(paths.StateDir, "serve.log")
	if err := os.MkdirAll(paths.StateDir, 0o700); err != nil {
		fmt.Fprintf(errOut, "warning: request log only on stderr: %v\n", err)
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.Size() > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintf(errOut, "warning: request log only on stderr: %v\n", err)
		return nil
	}
	return file
}

// listenHosts are the Host names to accept besides the loopback ones: the
// address given, or every address of this machine when it is unspecified.
func listenHosts(host string) []string {
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsUnspecified() {
		return []string{host}
	}
	var hosts []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			hosts = append(hosts, n.IP.String())
		}
	}
	return hosts
}

// loopbackAddr is where a gw serve bound to host:port answers locally.
func loopbackAddr(host string, port int) string {
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
