// Package serve implements `gw serve`: the localhost /v1 proxy that adds the
// API key from the keychain to every request of a local coding agent.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/tui"
)

// ServeOptions holds the flags and dependencies of `gw serve`.
type ServeOptions struct {
	IO             *tui.IOStreams
	Config         func() (config.File, config.Paths, error)
	ResolveBaseURL func(flag string) (string, config.Source, error)
	// Key is read again when KeyStamp changes (gw stored or removed the key) and, in the background, every
	// KeyRefresh, so a new key reaches a running gw serve (gw's one key policy: cmdutil.Serving).
	Key       proxy.KeyFrom
	KeyStamp  proxy.KeyStamp // cmdutil.Factory.KeyStamp; nil: a key older than 1.5×KeyRefresh is read again first
	API       func(baseURL, key string, timeout time.Duration) *api.Client
	Transport func() http.RoundTripper

	Port          int
	PortSet       bool // --port was given (0 is a valid choice: a free port)
	Listen        string
	BaseURL       string
	Grace         time.Duration
	HeaderTimeout time.Duration
	IdleTimeout   time.Duration
	KeyRefresh    time.Duration
	Procs         int // see proxy.RunOptions.Procs; set by gw serve's run, not in tests
	// NoWarm opens no connection to the service ahead of the agents'
	// requests (proxy.WarmOptions.Off); for tests that count the requests
	// the service gets.
	NoWarm bool

	// Background is --background: what the Windows logon task runs (background.go).
	Background bool
	// OnDemand is --on-demand: what gw auth token --serve starts (ondemand.go).
	OnDemand bool
	// Paths resolves gw's directories (for --background's log, even when the config does not parse).
	Paths func() (config.Paths, error)
	// Log, when set, takes everything gw serve says and its request log, instead of the terminal and
	// serve.log (--background sets it to serve.log).
	Log io.Writer

	// Signals makes the context that ends serving; nil: SIGINT and SIGTERM.
	// Once that is done it is called again, for the context whose end cuts
	// the grace period short (a second ctrl-c).
	Signals func(context.Context) (context.Context, context.CancelFunc)
}

// NewCmdServe binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IOStreams, Config: f.Config, ResolveBaseURL: f.BaseURL, Key: cmdutil.Serving(f.Key),
		KeyStamp: f.KeyStamp(), API: f.APIClient, Transport: f.Transport, Paths: f.Paths}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a localhost /v1 proxy that adds your API key to each request",
		Long: `Run a proxy on 127.0.0.1 that forwards /v1/… to the service with the API key from the
keychain, so agent configs hold only the local token (gw auth status shows it; gw init agent
--mode proxy writes it).

Only local tools get through: requests from web pages (an Origin header, a cross-site fetch),
with a Host other than 127.0.0.1/localhost/[::1], or without the local token are refused.
Streams are passed on event by event. One line per request goes to standard error and to
serve.log in gw's state directory. A new key (gw auth login, gw auth logout) is used from the
next request on. On ctrl-c or SIGTERM, running requests get --grace to finish; ctrl-c again
stops them at once. gw serve runs Go's scheduler on one CPU while one request runs and on two
while several do; set GOMAXPROCS to choose yourself.

--background is how gw service install's Windows logon task runs it: gw lets go of the console
window Windows opened for it (when it is that console's only program), so closing the window
cannot stop it; everything it would say on the terminal goes to serve.log (gw logs shows it);
and when serving fails (its port taken, say) it says why there and starts again after 5 s,
waiting longer each time up to a minute. Should gw itself crash, Go's report of it goes to
serve-crash.log in gw's state directory, which the next start names in serve.log.`,
		Example: `  gw serve
  gw serve --port 0
  gw serve --listen 0.0.0.0 --port 8787   # reachable from other machines: think twice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.PortSet = cmd.Flags().Changed("port")
			if opts.PortSet && (opts.Port < 0 || opts.Port > 65535) {
				return cmdutil.FlagErrorf("--port %d: a port is 0–65535 (0 chooses a free one)", opts.Port)
			}
			if opts.Grace < 0 || opts.HeaderTimeout < 0 || opts.IdleTimeout < 0 {
				return cmdutil.FlagErrorf("--grace, --upstream-header-timeout and --upstream-idle-timeout cannot be negative")
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
			opts.Procs = serveProcs(f.Getenv, runtime.GOMAXPROCS(0))
			switch {
			case opts.OnDemand:
				return onDemandRun(cmd.Context(), opts)
			case opts.Background:
				return backgroundRun(cmd.Context(), opts)
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
	cmd.Flags().DurationVar(&opts.IdleTimeout, "upstream-idle-timeout", relay.DefaultIdleTimeout,
		"how long a translated stream (/v1/messages, /v1/responses, the Gemini API) may wait for the service's next event before it ends with an error")
	cmd.Flags().BoolVar(&opts.Background, "background", false,
		"run as gw service install's Windows logon task does: without a console window of its own, saying everything in serve.log, serving again when serving fails")
	cmd.Flags().BoolVar(&opts.OnDemand, onDemandFlag, false,
		"run as gw auth token --serve starts it for an agent: saying everything in serve.log, stopping when it cannot serve")
	_ = cmd.Flags().MarkHidden(onDemandFlag) // plumbing: only gw starts it so
	return cmd
}

// serveProcs is how many CPUs Go's scheduler may use in gw serve while
// several requests are in flight (with one or none it uses one): two, or
// Go's default (goDefault: the CPUs, or the container's CPU limit) when
// that is less; 0, leaving the scheduler alone, when the user set
// GOMAXPROCS. One CPU adds the least to a lone request; agents run several
// streams at once, and there one CPU fell behind a plain ReverseProxy
// while two kept level; more only wake more threads (docs/benchmarks.md).
func serveProcs(getenv func(string) string, goDefault int) int {
	if getenv("GOMAXPROCS") != "" {
		return 0
	}
	return min(2, goDefault)
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
	cfg, paths, err := opts.Config()
	if err != nil {
		return err
	}
	base, _, err := opts.ResolveBaseURL(opts.BaseURL)
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
	transport := opts.Transport()
	if opts.HeaderTimeout != api.DefaultResponseHeaderTimeout && opts.HeaderTimeout > 0 {
		transport = api.NewTransport(api.TransportOptions{ResponseHeaderTimeout: opts.HeaderTimeout})
	}
	port := cfg.ServePort()
	if opts.PortSet {
		port = opts.Port
	}
	out, errOut, stateDir := opts.IO.Out, opts.IO.ErrOut, paths.StateDir
	if opts.Log != nil {
		out, errOut, stateDir = opts.Log, opts.Log, "" // the request log goes to errOut alone
	}
	return proxy.Run(ctx, proxy.RunOptions{
		Out:         out,
		ErrOut:      errOut,
		StateDir:    stateDir,
		AgentOf:     all.UserAgentIndex(),
		ModelRoutes: all.ServeRoutes(),
		Upstream:    upstream,
		Transport:   transport,
		KeySource:   opts.Key,
		KeyStamp:    opts.KeyStamp,
		KeyRefresh:  opts.KeyRefresh,
		LocalToken:  token,
		ListModels: func(ctx context.Context, key string) ([]string, error) {
			models, err := opts.API(base, key, 10*time.Second).Models(ctx)
			ids := make([]string, 0, len(models))
			for _, m := range models {
				ids = append(ids, m.ID)
			}
			return ids, err
		},
		Host:                opts.Listen,
		Port:                port,
		ConfiguredPort:      cfg.ServePort(),
		Grace:               opts.Grace,
		UpstreamIdleTimeout: opts.IdleTimeout,
		Procs:               opts.Procs,
		Warm:                proxy.WarmOptions{Off: opts.NoWarm, StartConns: opts.startConns()},
		Signals:             opts.Signals,
	})
}
