// Package run implements `gw run AGENT [-- ARGS...]`: a coding agent started pointed at gw serve, with
// nothing written to disk.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/internal/secret"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/tui"
)

// RunOptions holds the arguments, flags and dependencies of `gw run`.
type RunOptions struct {
	IO      *tui.IOStreams
	Getenv  func(string) string
	WorkDir func() (string, error)
	Config  func() (config.File, config.Paths, error)
	// Models lists the account's models joined with the catalogue, for the --base-url given.
	Models         func(ctx context.Context, baseURL string) ([]api.JoinedModel, error)
	ResolveBaseURL func(flag string) (string, config.Source, error)
	// Key and Transport are what the gw serve of gw run's own (when none runs) forwards with: the key as gw
	// serve reads it (cmdutil.Serving), the shared transport to the service.
	Key       proxy.KeyFrom
	Transport func() http.RoundTripper
	// KeyStamp tells that gw stored or removed the key (cmdutil.Factory.KeyStamp): the key is read again then,
	// and otherwise served without waiting for the keychain; nil: read again every few seconds.
	KeyStamp proxy.KeyStamp

	Agent      string
	Args       []string // the agent's own arguments
	Model      string
	SmallModel string
	BaseURL    string

	// Environ is the environment the agent starts from (gw's own); nil: os.Environ.
	Environ func() []string
}

// NewCmdRun binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdRun(f *cmdutil.Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IOStreams, Getenv: f.Getenv, WorkDir: f.WorkDir, Config: f.Config, Models: f.ListModels,
		ResolveBaseURL: f.BaseURL, Key: cmdutil.Serving(f.Key), Transport: f.Transport, KeyStamp: f.KeyStamp()}
	cmd := &cobra.Command{
		Use:   "run AGENT [-- ARGS...]",
		Short: "Run a coding agent pointed at the gateway, with nothing written to disk",
		Long: `Run a coding agent pointed at gw serve, with your subscription's models, without touching its
config files: gw passes the settings through the agent's own environment variables and flags, and
the local token through its environment only (arguments show in ps). ARGS go to the agent as they
are; gw's own flags come before AGENT.

The running gw serve is used when it answers on the configured port; otherwise gw serves on a free
loopback port for as long as the agent runs, writing its request log to gw serve's (gw logs, gw
usage). gw prints nothing while the agent runs: the terminal is the agent's. Signals (ctrl-c, SIGTERM, SIGHUP, window size changes) reach the agent, and gw
exits with the agent's status (128+N when signal N ended it). GW_API_KEY is not passed on.

Agents: ` + all.Listed(all.With[agents.Runner]()) + `. ` + cmdutil.AndList(all.Displays(all.Without[agents.Runner]())) + ` take
gw's settings only from their config files: use gw init agent --agent NAME for them.`,
		Example: `  gw run opencode
  gw run claude-code -- -p "explain this repository"
  gw run --model vendor-a/model-a-sonnet-4.6 qwen-code
  gw run codex -- exec "run the tests"`,
		Args: cobra.ArbitraryArgs, // checked in RunE, where the error is gw run's own
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveDefault
			}
			var out []cobra.Completion
			for _, a := range all.With[agents.Runner]() {
				out = append(out, cobra.CompletionWithDesc(a.Info().Name, a.Info().Display))
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.FlagErrorf("gw run needs the agent to run: one of %s", strings.Join(runNames(), ", "))
			}
			opts.Agent, opts.Args = args[0], args[1:]
			// Flags stop at AGENT (interspersed off), so a "--" after it is the agent's separator.
			if len(opts.Args) > 0 && opts.Args[0] == "--" {
				opts.Args = opts.Args[1:]
			}
			a, _, err := lookup(opts.Agent)
			if err != nil {
				return err
			}
			opts.Agent = a.Info().Name // claude: claude-code
			if opts.SmallModel != "" && opts.Model == "" {
				return cmdutil.FlagErrorf("--small-model goes with --model")
			}
			return cmdutil.Run(cmd.Context(), runF, runRun, opts)
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&opts.Model, "model", "", "the model the agent starts with (default: the one its config names, else a middle model of the subscription, such as a Sonnet)")
	cmd.Flags().StringVar(&opts.SmallModel, "small-model", "", "with --model: the agent's small (fast) model (Claude Code: its background tasks' model; default: its Haiku tier)")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL (overrides GW_BASE_URL and the config)")
	_ = cmd.RegisterFlagCompletionFunc("model", cmdutil.CompleteModelID)
	_ = cmd.RegisterFlagCompletionFunc("small-model", cmdutil.CompleteModelID)
	return cmd
}

// unknownAgent is the usage error for an agent gw run does not know: what was typed (unless it may be a
// pasted key: an error message is copied into chats and issues), the closest agent, and the list.
func unknownAgent(typed string) error {
	// As for an unknown command: a key starts with sk-, and no agent's name is near 20 characters.
	if secret.Looks(typed) || strings.HasPrefix(typed, "sk-") || len(typed) >= 20 {
		return cmdutil.FlagErrorf("unknown agent (not shown, in case it is a secret); gw run starts one of %s", strings.Join(runNames(), ", "))
	}
	msg := fmt.Sprintf("unknown agent %q; gw run starts one of %s", typed, strings.Join(runNames(), ", "))
	if c := all.Closest(typed, all.With[agents.Runner]()); c != "" {
		msg += "\n\nDid you mean this?\n\t" + c
	}
	return cmdutil.FlagErrorf("%s", msg)
}

// lookup finds the agent gw run starts by its name or its command's: an unknown name, or an agent gw
// cannot run, is a FlagError.
func lookup(name string) (agents.Agent, agents.Runner, error) {
	a, ok := all.Lookup(name)
	if !ok {
		return nil, nil, unknownAgent(name)
	}
	r, ok := a.(agents.Runner)
	if !ok {
		return nil, nil, &cmdutil.FlagError{Err: remedy.With(fmt.Errorf("gw run cannot point %s at gw: %s", a.Info().Display, a.Info().NoRun),
			remedy.Remedy{Do: remedy.InitAgentFor, Agent: a.Info().RemedyAgent()})}
	}
	return a, r, nil
}

func runNames() []string { return all.Names(all.With[agents.Runner]()) }

func runRun(ctx context.Context, opts *RunOptions) error {
	ag, runner, err := lookup(opts.Agent)
	if err != nil {
		return err
	}
	a := ag.Info()
	bin, err := exec.LookPath(a.Binary)
	if err != nil {
		return fmt.Errorf("%s is not on PATH (%s's command); install it: %s", a.Binary, a.Display, a.Install)
	}
	cfg, paths, err := opts.Config()
	if err != nil {
		return err
	}
	entries, err := opts.Models(ctx, opts.BaseURL)
	if err != nil {
		return err
	}
	subscribed := api.SubscribedIDs(entries)
	if len(subscribed) == 0 {
		return errors.New("the service lists no models for this account; check the subscription on the dashboard")
	}

	wd, _ := opts.WorkDir()
	env := agents.Place{Getenv: opts.Getenv, WorkDir: wd}
	configured := readConfigs(ag, env)
	def, small, err := models(opts, subscribed, configured)
	if err != nil {
		return err
	}
	d := agents.Declaration{Mode: agents.Proxy, Default: def, Small: small}
	for _, id := range subscribed {
		m, _ := agents.ModelFor(id, entries)
		d.Models = append(d.Models, m)
	}

	// The running gw serve, else one of our own for the agent's lifetime.
	srv, err := serve(ctx, opts, cfg, paths.StateDir, a.Name)
	if err != nil {
		return err
	}
	defer srv.stop()
	d.BaseURL, d.Token = "http://"+srv.addr+"/v1", srv.token

	spec, err := runner.Run(d)
	if err != nil {
		return err
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ
	}
	if len(spec.Files) > 0 || spec.Prepare != nil {
		// What an earlier run killed (SIGKILL) could not remove, now that no process holds it.
		fsutil.RemoveStalePrivateTemps(runDirPrefix)
		tmp, err := writeRunFiles(spec.Files)
		if err != nil {
			return fmt.Errorf("writing %s's settings for this run: %w", a.Display, err)
		}
		defer tmp.Remove()
		dir := tmp.Dir
		if spec.Prepare != nil {
			place := agents.RunPlace{Dir: dir, User: env, Args: opts.Args, Terminal: opts.IO.IsStdinTTY() && opts.IO.IsStdoutTTY()}
			if spec, err = spec.Prepare(spec, place); err != nil {
				return fmt.Errorf("writing %s's settings for this run: %w", a.Display, err)
			}
		}
	}
	for _, w := range append(overrides(ag, configured, d), spec.Warnings...) {
		fmt.Fprintln(opts.IO.ErrOut, "warning: "+safetext.Line(w)) // it may quote a project's file
	}
	for _, n := range spec.Notes {
		fmt.Fprintln(opts.IO.ErrOut, "note: "+safetext.Line(n))
	}
	child := exec.Command(bin, append(slices.Clone(spec.Args), opts.Args...)...)
	child.Env = childEnv(environ(), spec.Env)
	ios := opts.IO
	child.Stdin, child.Stdout, child.Stderr = ios.In, ios.Out, ios.ErrOut
	code, err := runChild(child)
	if err != nil {
		return fmt.Errorf("starting %s: %w", a.Display, err)
	}
	if code != 0 {
		return &cmdutil.ExitStatusError{Code: cmdutil.ExitCode(code)}
	}
	return nil
}

// childEnv is gw's environment with the agent's settings in place of any it had, and without GW_API_KEY:
// the agent, and every command it runs for a model, has no use for the key.
func childEnv(base, set []string) []string {
	names := []string{keychain.EnvVar}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// configured is what the agent's own config files hold (global, then project), for the default model and
// for the settings there that win over gw run's.
type configured struct {
	path string
	in   agents.Inspection
}

func readConfigs(ag agents.Agent, env agents.Place) []configured {
	a, ok := ag.(agents.ConfigWriter)
	if !ok {
		return nil
	}
	var out []configured
	for _, scope := range []agents.Scope{agents.Global, agents.Project} {
		files, err := a.Files(scope, env)
		if err != nil {
			continue
		}
		srcs, exists, err := agentfile.ReadAll(files)
		if err != nil || !exists {
			continue
		}
		if in, err := a.Inspect(srcs); err == nil {
			out = append(out, configured{path: files[0], in: in})
		}
	}
	return out
}

// models settles the default and small models: --model, else the default the agent's config names when
// the subscription has it, else a middle model of the subscription (a Sonnet, not the Opus listed first).
func models(opts *RunOptions, subscribed []string, cfgs []configured) (def, small string, err error) {
	for _, kv := range []struct{ flag, id string }{{"--model", opts.Model}, {"--small-model", opts.SmallModel}} {
		if kv.id == "" {
			continue
		}
		if e := api.ModelError(kv.id, subscribed); e != nil {
			return "", "", cmdutil.FlagModelError(kv.flag, e)
		}
	}
	if opts.Model != "" {
		return opts.Model, opts.SmallModel, nil
	}
	for i := len(cfgs) - 1; i >= 0; i-- { // the project's wins
		in := cfgs[i].in
		id := strings.TrimPrefix(in.Default, agents.ProviderID+"/")
		if slices.Contains(subscribed, id) {
			s := strings.TrimPrefix(in.Small, agents.ProviderID+"/")
			if !slices.Contains(subscribed, s) {
				s = ""
			}
			return id, s, nil
		}
	}
	// Not the first listed, which is the largest: what a careful user would pick.
	return api.Balanced(subscribed), "", nil
}

// overrides are the settings of the agent's own files that win over gw run's environment, as the agent
// says (agents.RunOverrider: Claude Code prefers a key in its settings' "env", Qwen Code an entry of the
// same model id under another base URL).
func overrides(ag agents.Agent, cfgs []configured, d agents.Declaration) []string {
	ro, ok := ag.(agents.RunOverrider)
	if !ok {
		return nil
	}
	a := ag.Info()
	fix := render.Text(remedy.Remedy{Do: remedy.InitAgentFor, Agent: a.RemedyAgent()}, render.Context{Where: render.Command})
	var out []string
	for _, c := range cfgs {
		o, ok := ro.RunOverride(c.in, d)
		switch {
		case !ok:
		case len(o.KeyVars) > 0:
			out = append(out, fmt.Sprintf("%s sets %s in %q, which %s sends instead of gw run's token; remove it, or %s",
				c.path, strings.Join(o.KeyVars, " or "), o.Block, a.Display, fix))
		default:
			out = append(out, fmt.Sprintf("%s declares gw's models with base URL %s, which %s uses instead of gw run's for the same model ids; %s",
				c.path, o.BaseURL, a.Display, fix))
		}
	}
	return out
}

// server is the gw serve the agent talks to.
type server struct {
	addr, token string
	stop        func()
}

// serve finds the running gw serve (the configured port answering gw serve's probe with gw's local
// token), or serves until stop — on gw serve's port when nothing listens there, else on a free loopback
// port — with gw's local token (or, when gw has none yet, a token of its own that is never saved).
func serve(ctx context.Context, opts *RunOptions, cfg config.File, stateDir, agent string) (*server, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.ServePort()))
	var probed error = errors.New("gw has no local token yet")
	if cfg.LocalToken != "" {
		if probed = proxy.Probe(ctx, addr, cfg.LocalToken); probed == nil {
			return &server{addr: addr, token: cfg.LocalToken, stop: func() {}}, nil
		}
		if !errors.Is(probed, proxy.ErrNotRunning) {
			// Something that is not this install's gw serve holds the port: it got nothing, and the agent is
			// pointed elsewhere (an agent whose own config names the port would still go there).
			fix, ok := remedy.Of(probed)
			if !ok {
				fix = remedy.Remedy{Do: remedy.FreePort, Value: addr}
			}
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", cmdutil.ErrorWithFix(
				remedy.With(fmt.Errorf("%w; gw run serves the agent on a free port instead", probed), fix)))
		}
	}
	base, _, err := opts.ResolveBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	upstream, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %w", base, err)
	}
	// gw's local token, so that one an agent's own config holds (Claude Code's settings.json, which wins
	// over the environment) is accepted here too; a token of its own, never saved, when gw has none.
	token := cfg.LocalToken
	if token == "" {
		if token, err = config.NewLocalToken(); err != nil {
			return nil, err
		}
	}
	keys := proxy.NewWatchedKeyCache(opts.Key, proxy.DefaultKeyRefresh, opts.KeyStamp)
	// The request log goes to gw serve's serve.log, with the agent named.
	h, err := proxy.New(proxy.Options{Upstream: upstream, Transport: opts.Transport(), Key: keys, LocalToken: token, Log: io.Discard, StateDir: stateDir, Agent: agent,
		ModelRoutes: all.ServeRoutes()})
	if err != nil {
		return nil, err
	}
	// gw serve's own port when nothing listens there: an address gw init agent wrote into the agent's
	// config (Qwen Code prefers its entries to the environment's) then reaches this one.
	var ln net.Listener
	if errors.Is(probed, proxy.ErrNotRunning) {
		ln, _ = proxy.Listen(addr)
	}
	if ln == nil {
		if ln, err = proxy.Listen("127.0.0.1:0"); err != nil {
			return nil, err
		}
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer h.Close()
		_ = proxy.Serve(sctx, ln, h, stopGrace)
	}()
	return &server{addr: ln.Addr().String(), token: token, stop: func() { cancel(); <-done }}, nil
}

// stopGrace: the agent has ended, so nothing is waiting for an answer still running.
const stopGrace = time.Second

// writeRunFiles writes an agent's run files (no secret in them) into a new directory only the user can
// read; the caller removes it when the agent has ended.
// It is held (locked) while gw run runs, so that a later gw run removes it when this one was killed
// before it could.
func writeRunFiles(files map[string][]byte) (*fsutil.PrivateTemp, error) {
	tmp, err := fsutil.NewPrivateTemp(runDirPrefix)
	if err != nil {
		return nil, err
	}
	for name, data := range files {
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			tmp.Remove()
			return nil, fmt.Errorf("run file name %q is not a plain file name", name)
		}
		if err := fsutil.WriteOwn(filepath.Join(tmp.Dir, name), data, 0o600); err != nil {
			tmp.Remove()
			return nil, err
		}
	}
	return tmp, nil
}

// runDirPrefix names gw run's directories in the temporary directory.
const runDirPrefix = "gw-run-"
