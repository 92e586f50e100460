package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/reqlog"
)

// RunOptions are what gw serve runs with, once its flags and gw's config
// are resolved (cmd/serve).
type RunOptions struct {
	Out    io.Writer // the address gw serve listens on, once
	ErrOut io.Writer // messages and the request log
	// StateDir holds serve.log; "" keeps the request log on ErrOut only.
	StateDir string
	// Agent names the agent every request comes from; "": each request's
	// User-Agent says, through AgentOf.
	Agent string
	// AgentOf names the agent whose requests carry a User-Agent's product
	// (reqlog.Product); nil names none.
	AgentOf func(product string) string
	// ModelRoutes are Options.ModelRoutes.
	ModelRoutes []agents.ServeRoute

	Upstream   *url.URL          // the service's base URL, ending in /v1
	Transport  http.RoundTripper // to the service
	KeySource  KeyFrom           // read again every KeyRefresh (DefaultKeyRefresh when 0)
	KeyRefresh time.Duration
	// KeyStamp watches the marker gw updates whenever it stores or removes
	// the key (see KeyCache); nil: none.
	KeyStamp   KeyStamp
	LocalToken string
	// ListModels lists the account's model ids with key, for "did you mean"
	// after an unknown model; nil: the built-in catalogue.
	ListModels func(ctx context.Context, key string) ([]string, error)

	Host string // the address to listen on; "" is 127.0.0.1
	Port int    // 0 chooses a free one
	// ConfiguredPort is the port gw's config names, where gw init agent
	// points agents; a gw serve on another port says so at start. 0: none.
	ConfiguredPort int
	Grace          time.Duration
	// UpstreamIdleTimeout ends a translated stream whose service has sent
	// nothing for that long with the protocol's error event; 0 is
	// relay.DefaultIdleTimeout.
	UpstreamIdleTimeout time.Duration
	// Warm keeps connections to the service ready (warm.go).
	Warm WarmOptions
	// Procs, when more than 1, runs Go's scheduler on one CPU while at most
	// one request is in flight and on Procs CPUs while more are; 0 leaves
	// the scheduler alone.
	Procs int

	// Signals makes the context that ends serving; nil: SIGINT and SIGTERM.
	// Once that is done it is called again, for the context whose end cuts
	// the grace period short (a second ctrl-c).
	Signals func(context.Context) (context.Context, context.CancelFunc)
}

// Run is gw serve: it listens, serves until a signal, lets running requests
// finish for the grace period and returns. Everything it says after start
// goes through a writer of its own per output (see asyncLog), so a slow,
// stuck or closed terminal neither holds up a request nor costs serve.log a
// line.
func Run(ctx context.Context, o RunOptions) error {
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
	errLog := newAsyncLog(o.ErrOut, maxPendingTerm,
		"gw serve: %d request log lines not shown here: the terminal did not keep up (serve.log has them)",
		func(err error) {
			if l := fileLog.Load(); l != nil {
				fmt.Fprintf(l, "gw serve: standard error failed (%v); the request log goes on in this file only\n", err)
			}
		})
	defer errLog.CloseWithin(termFlushWait)
	errOut := io.Writer(errLog)

	// Read again when the marker says gw auth login/logout (or a switch to
	// --insecure-storage) changed the key, so the change reaches a running
	// gw serve's next request without a restart; and in the background at
	// every refresh, for changes made by other tools.
	keys := NewWatchedKeyCache(o.KeySource, o.KeyRefresh, o.KeyStamp)
	// What to do is the key error's remedy, said by the one renderer for gw serve's user (a command's reader);
	// gw doctor when the error carries none.
	if _, err := keys.Get(ctx); errors.Is(err, keychain.ErrNotFound) {
		fmt.Fprintln(errOut, "warning: no API key stored yet; requests will be refused until you "+
			render.Text(remedy.Remedy{Do: remedy.StoreKey}, render.Context{Where: render.Command}))
	} else if err != nil {
		fix, ok := remedy.Of(err)
		if !ok {
			fix = remedy.Remedy{Do: remedy.RunDoctor}
		}
		fmt.Fprintf(errOut, "warning: the API key cannot be read (%v); requests will be refused until it can: %s\n",
			err, render.Text(fix, render.Context{Where: render.Command}))
	}

	host := "127.0.0.1"
	var acceptHosts []string
	if o.Host != "" {
		host = o.Host
		acceptHosts = listenHosts(host)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(o.Port))

	// The terminal and serve.log each have a writer of their own, so that a
	// slow, stuck or closed terminal costs the file no line.
	var reqLog io.Writer = errLog
	if o.StateDir != "" {
		if file, err := reqlog.Open(o.StateDir); err != nil {
			fmt.Fprintf(errOut, "warning: request log only on stderr: %v\n", err)
		} else {
			defer file.Close() // after l.Close, below
			l := newAsyncLog(file, maxPendingFile,
				"gw serve: %d request log lines dropped: the disk did not keep up", nil)
			defer l.Close() // every line written before the file closes
			fileLog.Store(l)
			reqLog = tee{l, errLog}
		}
	}

	opts := Options{
		Upstream:    o.Upstream,
		Transport:   o.Transport,
		Key:         keys,
		LocalToken:  o.LocalToken,
		Agent:       o.Agent,
		AgentOf:     o.AgentOf,
		ModelRoutes: o.ModelRoutes,
		AcceptHosts: acceptHosts,
		Log:         reqLog,
		Relay:       relay.Options{IdleTimeout: o.UpstreamIdleTimeout},
		Warm:        o.Warm,
	}
	if o.ListModels != nil {
		opts.ModelIDs = newModelList(o.ListModels).modelIDs(keys)
	}
	h, err := New(opts)
	if err != nil {
		return err
	}
	defer h.warm.stop() // its requests, if any are under way, end with gw serve

	// Caught before the address is printed: a supervisor that sends
	// SIGTERM as soon as gw serve says it listens gets a clean stop.
	signals := o.Signals
	if signals == nil {
		signals = func(ctx context.Context) (context.Context, context.CancelFunc) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		}
	}
	sctx, stop := signals(ctx)
	defer stop()

	ln, err := Listen(addr)
	if err != nil {
		var pe *PortInUseError
		if errors.As(err, &pe) && Probe(ctx, loopbackAddr(host, o.Port), o.LocalToken) == nil {
			return fmt.Errorf("gw serve is already running on %s; use it, or stop it first", addr)
		}
		if o.Host != "" && !errors.As(err, &pe) {
			return remedy.With(err, remedy.Remedy{Do: remedy.ListenHere}) // said under the error (cmdutil.ErrorWithFix)
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
	if port := ln.Addr().(*net.TCPAddr).Port; o.ConfiguredPort != 0 && port != o.ConfiguredPort {
		fix := remedy.Remedy{Do: remedy.ServeOnConfiguredPort, Value: strconv.Itoa(o.ConfiguredPort), Also: strconv.Itoa(port)}
		fmt.Fprintf(errOut, "gw serve: port %d is not the configured port %d, where gw init agent points agents: they will not reach this gw serve; %s\n",
			port, o.ConfiguredPort, render.Text(fix, render.Context{Where: render.Command}))
	}
	// Where gw doctor finds this gw serve when it is not on the configured
	// port (noted before the address is printed, so whoever reads the
	// address finds the note); removed when it stops.
	if h, _, _ := net.SplitHostPort(bound); o.StateDir != "" && config.IsLoopbackHost(h) {
		if remove, err := writeState(o.StateDir, State{Addr: bound, PID: os.Getpid()}); err != nil {
			fmt.Fprintf(errOut, "warning: gw doctor will not find this gw serve: %v\n", err)
		} else {
			defer remove()
		}
	}

	// What was said on stderr so far comes before the address on stdout,
	// as it would unbuffered (unless the terminal does not take it).
	errLog.Flush(termFlushWait)
	fmt.Fprintf(o.Out, "gw serve: listening on http://%s/v1 (forwarding to %s)\n", bound, o.Upstream)
	fmt.Fprintf(errOut, "Point your agent at http://%s/v1 with the local token as its API key (%s). Ctrl-C stops.\n", bound,
		render.Text(remedy.Remedy{Do: remedy.UseLocalToken}, render.Context{Where: render.Command}))

	stopNow, stopNowCancel := context.WithCancel(context.Background())
	defer stopNowCancel()
	served := make(chan struct{})
	stopping := context.AfterFunc(sctx, func() {
		again, stopAgain := signals(ctx)
		fmt.Fprintf(errOut, "gw serve: stopping; running requests have %s to finish (ctrl-c again to stop them now)\n", o.Grace)
		go func() {
			defer stopAgain()
			select {
			case <-again.Done():
				stopNowCancel()
			case <-served:
			}
		}()
	})
	defer stopping()

	var handler http.Handler = h
	if o.Procs > 1 {
		handler = (&cpus{max: o.Procs, linger: lingerCPUs}).wrap(h)
	}
	err = ServeUntil(sctx, stopNow, ln, handler, o.Grace)
	close(served)
	h.log.flush() // the counts of refusals not yet written
	if errors.Is(err, ErrRequestsCut) {
		fmt.Fprintf(errOut, "gw serve: stopped; %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(errOut, "gw serve: stopped")
	return nil
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
