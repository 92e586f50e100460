// Package doctor implements `gw doctor`.
package doctor

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/doctor"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/tui"
)

// DoctorOptions holds the flags and dependencies of `gw doctor`.
type DoctorOptions struct {
	IO      *tui.IOStreams
	Getenv  func(string) string
	WorkDir func() (string, error)
	Config  func() (config.File, config.Paths, error)
	// Keychain is the OS keychain for this run: reading the key and naming the backend share its deadline.
	Keychain func(context.Context) keychain.Store
	// Key is gw's one key policy (cmdutil's Factory.Key); doctor asks it with its own keychain session and
	// takes the keychain's errors as they are, to report them.
	Key            func(context.Context, cmdutil.KeyOptions) (keychain.Resolved, error)
	KeychainRemedy func(error) remedy.Remedy
	// Version is gw's version (the User-Agent of doctor's requests); DefaultBaseURL the service's address
	// built into gw ("" when the build has none).
	Version        string
	DefaultBaseURL string

	JSON         bool
	BaseURL      string
	Models       []string
	AgentConfigs []string
	NoProbe      bool

	// Network overrides how doctor reaches the service (tests); zero: the system's.
	Network doctor.Network
	// LoginService says whether the platform can start gw serve at login here (nil: not asked).
	LoginService func(context.Context) cmdutil.LoginService
}

// NewCmdDoctor binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdDoctor(f *cmdutil.Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IOStreams, Getenv: f.Getenv, WorkDir: f.WorkDir, Config: f.Config,
		Keychain: f.Keychain, Key: f.Key, KeychainRemedy: f.KeychainRemedy, Version: f.Version,
		DefaultBaseURL: f.DefaultBaseURL, LoginService: f.LoginService}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check every step from this machine to a working model, and say what to fix",
		Long: `Check every step from this machine to a working model: the config file, the base URL, DNS,
the TCP connection, TLS, the service's answer to GET /models without and with your key, the
models your account has, each model id you name or your agents' configs use, the global and
project configs of the coding agents gw configures (where they send requests, the local token, a
key written into the file), the local proxy (gw serve) and where the key is kept.
Agents checked: ` + strings.Join(all.Displays(all.Configurable()), ", ") + `.

Every check runs; one failing does not stop the others (a check that cannot run because of an
earlier one is skipped, saying why). Each failure names the service's condition (key rejected,
service unreachable, unknown model), the specific cause, and the one thing to do about it.
gw doctor answers within 15 seconds even when the network hangs.

Listing models costs nothing but says little about the balance: gw doctor also asks for a
one-token answer (from the first listed model, and from each model id it checks), which may cost
a token each. --no-probe sends no such request.

A base URL other than the service's own (built into gw) is a warning when you ask for it with
--base-url, or when a service answers there (a staging gateway); it is a failure when it comes
from GW_BASE_URL or the config file and nothing answers there.

Exit status: 0 when nothing failed (warnings allowed), 1 when at least one check failed.`,
		Example: `  gw doctor
  gw doctor --model vendor-a/model-a-sonnet-4.6
  gw doctor --json | jq '.checks[] | select(.status == "fail")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, m := range opts.Models {
				if strings.TrimSpace(m) == "" {
					return cmdutil.FlagErrorf("--model needs a model id, e.g. --model vendor-a/model-a-sonnet-4.6")
				}
			}
			for _, p := range opts.AgentConfigs {
				if strings.TrimSpace(p) == "" {
					return cmdutil.FlagErrorf("--agent-config needs the path of an agent's config file")
				}
				if _, ok := all.ForFile(p); !ok {
					return cmdutil.FlagErrorf("--agent-config: gw does not know whose config %s is; it reads a file named %s", filepath.Base(p), strings.Join(all.FileNames(), ", "))
				}
			}
			return cmdutil.Run(cmd.Context(), runF, doctorRun, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "check this base URL instead of the configured one")
	cmd.Flags().StringArrayVar(&opts.Models, "model", nil, "also check this model id (repeatable)")
	cmd.Flags().BoolVar(&opts.NoProbe, "no-probe", false, "send no chat request (by default one one-token request per model checked tests the balance and the subscription)")
	cmd.Flags().StringArrayVar(&opts.AgentConfigs, "agent-config", nil,
		"an agent config file to check instead of every agent's global and project config (repeatable; named "+strings.Join(all.FileNames(), ", ")+")")
	_ = cmd.RegisterFlagCompletionFunc("model", cmdutil.CompleteModelID)
	return cmd
}

func doctorRun(ctx context.Context, opts *DoctorOptions) error {
	start := time.Now()
	ios := opts.IO

	stop := ios.StartSpinner("Checking the path to the service")
	in := gather(ctx, opts)
	// Reading the keychain may already have taken a while; the 15 s promise covers the whole command.
	in.Timeout = max(doctor.DefaultTimeout-time.Since(start), 2*time.Second)
	rep := doctor.Run(ctx, in)
	stop()

	// Fixes are said for doctor's reader and where the base URL and the key came from.
	say := render.Context{Where: render.Doctor, BaseURL: in.BaseURLSource.Fix(), Key: in.Key.Source.Fix()}
	if opts.JSON {
		if err := cmdutil.WriteJSON(ios.Out, jsonReport(rep, say)); err != nil {
			return err
		}
	} else {
		Render(ios.Out, ios.ColorScheme(), rep, say)
	}
	if !rep.OK {
		return cmdutil.ErrSilent
	}
	return nil
}

// gather resolves everything doctor checks; failures to resolve become inputs (and so checks), not errors.
func gather(ctx context.Context, opts *DoctorOptions) doctor.Input {
	in := doctor.Input{
		Models:  opts.Models,
		NoProbe: opts.NoProbe,
		Getenv:  opts.Getenv,
		Version: opts.Version,
		Network: opts.Network,
	}
	in.CanonicalURL = opts.DefaultBaseURL

	cfg, paths, cfgErr := opts.Config()
	in.ConfigPath, in.ConfigErr, in.ConfigBaseURL = paths.File(), cfgErr, cfg.BaseURL
	if paths.ConfigDir == "" {
		in.ConfigPath = ""
	}
	in.BaseURL, in.BaseURLSource = config.ResolveBaseURL(opts.BaseURL, opts.Getenv(config.EnvBaseURL), cfg.BaseURL, opts.DefaultBaseURL)

	// Reading the key and naming the keychain share one deadline: a keychain that does not answer costs one
	// time-out.
	kr := opts.Keychain(ctx)
	in.Key, in.KeyErr = opts.Key(ctx, cmdutil.KeyOptions{Keychain: kr, AsIs: true})
	if in.KeyErr != nil {
		in.KeychainBackend = kr.Backend()
	}
	in.KeychainInstall = opts.KeychainRemedy(cmp.Or(in.KeyErr, in.Key.Warning)).Value

	in.ProxyAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.ServePort()))
	if opts.LoginService != nil {
		if ls := opts.LoginService(ctx); ls.NotReady != nil {
			in.StartServeLine = ls.StartServeLine()
		}
	}
	in.LocalToken = cfg.LocalToken
	if paths.StateDir != "" {
		if st, err := proxy.ReadState(paths.StateDir); err == nil {
			in.RunningProxyAddr = st.Addr
		}
	}

	in.Agents = agentConfigs(opts, opts.AgentConfigs)
	return in
}

// agentConfigs are the config files the agent check reads: the ones --agent-config names, each as the agent
// whose file it is; else the global and project config files of every agent gw configures (the ones that are
// missing are left out of the report).
func agentConfigs(opts *DoctorOptions, given []string) []doctor.AgentFiles {
	var out []doctor.AgentFiles
	if len(given) > 0 {
		for _, p := range given {
			if a, ok := all.ForFile(p); ok {
				out = append(out, doctor.AgentFiles{Agent: a, Files: []string{p}, Installed: installedVersion(opts.Getenv, a)})
			}
		}
		return out
	}
	wd, _ := opts.WorkDir()
	env := agents.Place{Getenv: opts.Getenv, WorkDir: wd}
	var seen []string
	for _, a := range all.Configurable() {
		for _, scope := range []agents.Scope{agents.Global, agents.Project} {
			if scope == agents.Project && wd == "" {
				continue
			}
			files, err := a.(agents.ConfigWriter).Files(scope, env)
			if err != nil || len(files) == 0 || slices.Contains(seen, files[0]) {
				continue
			}
			seen = append(seen, files[0])
			out = append(out, doctor.AgentFiles{Agent: a, Files: files, Installed: installedVersion(opts.Getenv, a)})
		}
	}
	return out
}

// Check is one check as gw doctor --json prints it (the contract of cli-contract.md).
type Check struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	Condition string `json:"condition,omitempty"`
	Message   string `json:"message,omitempty"`
	Cause     string `json:"cause,omitempty"`
	Fix       string `json:"fix,omitempty"`
	Detail    string `json:"detail,omitempty"`
}

// Report is what gw doctor --json prints.
type Report struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// jsonReport is rep with each fix in words.
func jsonReport(rep doctor.Report, say render.Context) Report {
	out := Report{OK: rep.OK, Checks: make([]Check, 0, len(rep.Checks))}
	for _, c := range rep.Checks {
		out.Checks = append(out.Checks, Check{ID: c.ID, Title: c.Title, Status: string(c.Status), Condition: c.Condition,
			Message: c.Message, Cause: c.Cause, Fix: render.Text(c.Fix, say), Detail: detail(c, say)})
	}
	return out
}

// Render prints the checklist: one line per check with ✓ ! ✗ or - (skipped); a warning or failure is
// followed by its cause and the fix, said for say. Without colour the text is stable, for pipes and tests.
func Render(w io.Writer, cs *tui.ColorScheme, rep doctor.Report, say render.Context) {
	var failed, warned int
	for _, c := range rep.Checks {
		// What a check says may quote what it read (an agent config's model id, the service's words):
		// shown with its control characters escaped.
		c.Title, c.Message, c.Cause, c.Detail = safetext.Line(c.Title), safetext.Line(c.Message), safetext.Line(c.Cause), safetext.Line(c.Detail)
		switch c.Status {
		case doctor.Pass:
			line(w, cs.SuccessIcon(), c.Title, detail(c, say))
		case doctor.Skip:
			line(w, cs.SkipIcon(), c.Title, cs.Gray(c.Cause))
		case doctor.Warn, doctor.Fail:
			mark := cs.FailureIcon()
			if c.Status == doctor.Warn {
				mark = cs.WarningIcon()
				warned++
			} else {
				failed++
			}
			head := detail(c, say)
			if c.Message != "" {
				head = cs.Bold(c.Message)
			}
			line(w, mark, c.Title, head)
			if c.Cause != "" {
				fmt.Fprintf(w, "    cause: %s\n", c.Cause)
			}
			if fix := safetext.Line(render.Text(c.Fix, say)); fix != "" {
				fmt.Fprintf(w, "    fix:   %s\n", fix)
			}
			if d := detail(c, say); c.Message != "" && d != "" {
				fmt.Fprintf(w, "    note:  %s\n", d)
			}
		}
	}
	fmt.Fprintln(w)
	switch {
	case failed > 0:
		fmt.Fprintf(w, "%s, %s.\n", plural(failed, "check failed", "checks failed"), plural(warned, "warning", "warnings"))
	case warned > 0:
		fmt.Fprintf(w, "No check failed; %s.\n", plural(warned, "warning", "warnings"))
	default:
		fmt.Fprintln(w, "All checks passed.")
	}
}

// detail is the check's detail with its note, if any, in words.
func detail(c doctor.Check, say render.Context) string {
	if note := safetext.Line(render.Text(c.Note, say)); note != "" {
		return c.Detail + " (" + note + ")"
	}
	return c.Detail
}

func line(w io.Writer, mark, title, detail string) {
	if detail == "" {
		fmt.Fprintf(w, "%s %s\n", mark, title)
		return
	}
	fmt.Fprintf(w, "%s %s: %s\n", mark, title, detail)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// installedVersion is the version of a's command on PATH, read from its npm package (nothing is run); ""
// when a has no package gw looks at, the command is not on PATH, or it was installed another way.
func installedVersion(getenv func(string) string, ag agents.Agent) string {
	a := ag.Info()
	if a.Package == "" {
		return ""
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, a.Binary)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			v, _ := agents.InstalledVersion(p, a.Package)
			return v
		}
	}
	return ""
}
