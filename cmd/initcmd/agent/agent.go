// Package agent implements `gw init agent`: gw's provider and models in a coding agent's own config.
package agent

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/tui"
)

const (
	ModeProxy  = "proxy"
	ModeDirect = "direct"
)

// AgentOptions holds the flags and dependencies of `gw init agent`.
type AgentOptions struct {
	IO      *tui.IOStreams
	Getenv  func(string) string
	WorkDir func() (string, error)
	Config  func() (config.File, config.Paths, error)
	// ResolveBaseURL is the base URL by gw's precedence, validated (--base-url is its flag).
	ResolveBaseURL func(flag string) (string, config.Source, error)
	// ListModels lists the account's models joined with the catalogue.
	ListModels func(ctx context.Context, baseURL string) ([]api.JoinedModel, error)
	// DefaultBaseURL is the service's address built into gw ("" when the build has none): an agent pointed
	// there is pointed at the service.
	DefaultBaseURL string

	Agent      string // --agent; "": the picker chooses
	Project    bool
	Mode       string
	Models     []string
	Default    string
	SmallModel string
	DryRun     bool
	Yes        bool
	BaseURL    string
	Port       int

	// Pick shows the agent and model pickers; tests replace it.
	Pick func(*tui.IOStreams, tui.PickOptions) ([]string, error)
	// LoginService says what keeps gw serve running here (gw's login service, or the platform has none),
	// asked at the end of a run on a terminal.
	LoginService func(context.Context) cmdutil.LoginService
	// Executable is the gw binary's absolute path (os.Executable), which an agent that runs a credential
	// command is given (agents.CredentialCommander).
	Executable func() (string, error)
}

// NewCmdAgent binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdAgent(f *cmdutil.Factory, runF func(context.Context, *AgentOptions) error) *cobra.Command {
	opts := &AgentOptions{IO: f.IOStreams, Getenv: f.Getenv, WorkDir: f.WorkDir, Config: f.Config,
		ResolveBaseURL: f.BaseURL, ListModels: f.ListModels, DefaultBaseURL: f.DefaultBaseURL, Pick: tui.Pick,
		LoginService: f.LoginService, Executable: os.Executable}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Point a coding agent's own config at the gateway, with your subscription's models",
		Long: `Write the gateway and the models of your subscription into a coding agent's own config, in its
own format and place: ` + all.Listed(all.Configurable()) + `.
On a terminal without --agent, gw lists the agents it finds (on PATH, or by their config files)
with the state of each config, and you pick one; otherwise --agent is required.

The global config is used; with --project, the project's in the current directory (for the
agents that have one). The file is merged, never rewritten: comments, order, spacing and
everything gw does not own stay as they are, and the previous content is kept beside it as
<file>.bak, readable only by you (delete it once the new config works if the old one held your
key). A file that does not parse is left untouched, and the error names its line and column.

Modes:
  proxy   (default) the agent talks to gw serve on 127.0.0.1, which adds your key to each
          request; the file holds only gw serve's local token.
  direct  the agent talks to the service itself and reads the key from GW_API_KEY; the key is
` + directRefusals() + `

Running it again refreshes the models to your current subscription and reports the ids added
and removed. The default model changes only when you pass --default (or choose one in the
picker). To run an agent pointed at gw without writing anything, use gw run.`,
		Example: `  gw init agent
  gw init agent --agent opencode --models vendor-a/model-a-sonnet-4.6,vendor-a/model-a-haiku-4.5 --default vendor-a/model-a-sonnet-4.6
  gw init agent --agent qwen-code --models all --mode direct --dry-run
  gw init agent --agent claude-code --models all --yes
  gw init agent --agent kilo --project --models all --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Mode != ModeProxy && opts.Mode != ModeDirect {
				return cmdutil.FlagErrorf("--mode must be %q or %q, not %q", ModeProxy, ModeDirect, opts.Mode)
			}
			if cmd.Flags().Changed("agent") {
				a, err := lookup(opts.Agent)
				if err != nil {
					return err
				}
				if opts.Mode == ModeDirect && a.directRefusal() != "" {
					return directRefused(a)
				}
			}
			ids, err := parseIDs(opts.Models)
			if err != nil {
				return err
			}
			opts.Models = ids
			if cmd.Flags().Changed("port") && opts.Mode == ModeDirect {
				return cmdutil.FlagErrorf("--port is for --mode proxy (gw serve's port); direct mode uses the hosted base URL")
			}
			if cmd.Flags().Changed("port") && (opts.Port < 1 || opts.Port > 65535) {
				return cmdutil.FlagErrorf("--port must be between 1 and 65535, not %d", opts.Port)
			}
			if opts.SmallModel != "" && opts.Default == "" {
				return cmdutil.FlagErrorf("--small-model goes with --default")
			}
			return cmdutil.Run(cmd.Context(), runF, agentRun, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "the agent to configure: "+strings.Join(all.Names(all.Configurable()), ", ")+" (default: choose in a picker)")
	cmd.Flags().BoolVar(&opts.Project, "project", false, "write the project's config in the current directory instead of the global one")
	cmd.Flags().StringVar(&opts.Mode, "mode", ModeProxy, "proxy (through gw serve) or direct (to the service, key from GW_API_KEY)")
	cmd.Flags().StringSliceVar(&opts.Models, "models", nil, "model ids to add, comma-separated, or \"all\" (default: choose in a picker)")
	cmd.Flags().StringVar(&opts.Default, "default", "", "the agent's default model (and small model; Claude Code's runs on its Haiku tier), one of --models")
	cmd.Flags().StringVar(&opts.SmallModel, "small-model", "", "with --default: the agent's small (fast) model instead (Claude Code: its background tasks' model)")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the change as a unified diff and write nothing")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "write without asking for confirmation")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the service's base URL (overrides GW_BASE_URL and the config)")
	cmd.Flags().IntVar(&opts.Port, "port", 0, "gw serve's port for --mode proxy, saved in gw's config (default: the configured port, else 8787)")
	var words [][2]string
	for _, a := range all.Configurable() {
		words = append(words, [2]string{a.Info().Name, a.Info().Display})
	}
	_ = cmd.RegisterFlagCompletionFunc("agent", cmdutil.CompleteWords(words...))
	_ = cmd.RegisterFlagCompletionFunc("mode", cmdutil.CompleteWords(
		[2]string{ModeProxy, "through gw serve on localhost; the key stays in the keychain"},
		[2]string{ModeDirect, "straight to the service; the key comes from GW_API_KEY"},
	))
	_ = cmd.RegisterFlagCompletionFunc("models", cmdutil.CompleteModelList)
	_ = cmd.RegisterFlagCompletionFunc("default", cmdutil.CompleteModelID)
	_ = cmd.RegisterFlagCompletionFunc("small-model", cmdutil.CompleteModelID)
	return cmd
}

// directRefusals says, wrapped for the help text, which agents refuse --mode direct (agents.DirectRefuser).
func directRefusals() string {
	return cmdutil.Wrap(strings.Fields("never written to the file. Not for "+cmdutil.AndList(all.Displays(all.With[agents.DirectRefuser]()))+", which speak an API the service does not "+
		"(gw serve translates) or cannot refer to a variable."), 100, "          ")
}

// writer is an agent gw init agent writes a config for: its Info, its ConfigWriter, and the agent itself,
// for the other interfaces it implements.
type writer struct {
	agents.Info
	agents.ConfigWriter
	agent agents.Agent
}

// lookup finds the agent --agent names: an unknown one, or one gw only runs, is a usage error (gw run
// starts the latter pointed at gw).
func lookup(name string) (writer, error) {
	a, ok := all.Lookup(name)
	if !ok {
		return writer{}, cmdutil.FlagErrorf("--agent must be one of %s", strings.Join(all.Names(all.Configurable()), ", "))
	}
	cw, ok := a.(agents.ConfigWriter)
	if !ok {
		var fix remedy.Remedy
		if _, runs := a.(agents.Runner); runs {
			fix = remedy.Remedy{Do: remedy.RunAgent, Agent: a.Info().RemedyAgent()}
		}
		return writer{}, &cmdutil.FlagError{Err: remedy.With(fmt.Errorf("gw init agent has nothing to write for %s: %s", a.Info().Display, a.Info().NoConfig), fix)}
	}
	return writer{a.Info(), cw, a}, nil
}

// directRefusal says why the agent refuses --mode direct (agents.DirectRefuser); "" when it does not.
func (w writer) directRefusal() (why string) {
	if r, ok := w.agent.(agents.DirectRefuser); ok {
		why = r.DirectRefusal()
	}
	return why
}

// choosesOwn says which models the agent chooses itself where gw names none (agents.ModelChooser).
func (w writer) choosesOwn() (def, small bool) {
	if c, ok := w.agent.(agents.ModelChooser); ok {
		def, small = c.ChoosesOwn()
	}
	return def, small
}

// directRefused is the usage error of --mode direct for an agent that only works through gw serve.
func directRefused(a writer) error {
	return cmdutil.FlagErrorf("--mode direct is not possible for %s: %s; use --mode proxy (the default)", a.Display, a.directRefusal())
}

func parseIDs(raw []string) ([]string, error) {
	var ids []string
	for _, r := range raw {
		id := strings.TrimSpace(r)
		if id == "" {
			return nil, cmdutil.FlagErrorf("--models has an empty entry; give ids separated by commas, e.g. --models vendor-a/model-a-sonnet-4.6,vendor-a/model-a-haiku-4.5")
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if slices.Contains(ids, "all") && len(ids) > 1 {
		return nil, cmdutil.FlagErrorf("--models all cannot be combined with other ids")
	}
	return ids, nil
}

// agentRun works in three steps: plan (choose the agent and the models, build what gw declares, merge it
// into the agent's config files, collect what gw's own config must gain), render (the diff or the
// summary, and the question), apply (write the agent's files, then update gw's config in one go).
func agentRun(ctx context.Context, opts *AgentOptions) error {
	ios := opts.IO
	if opts.Agent == "" && !ios.CanPromptOnStderr() {
		return cmdutil.FlagErrorf("--agent required when not running interactively: one of %s", strings.Join(all.Names(all.Configurable()), ", "))
	}
	if len(opts.Models) == 0 && opts.Default == "" && !ios.CanPromptOnStderr() {
		return cmdutil.FlagErrorf("--models required when not running interactively (e.g. --models all, or ids from gw models)")
	}

	baseURL, _, err := opts.ResolveBaseURL(opts.BaseURL)
	if err != nil {
		return err
	}
	entries, err := opts.ListModels(ctx, baseURL)
	if err != nil {
		return err
	}
	if len(api.SubscribedIDs(entries)) == 0 {
		return errors.New("the service lists no models for this account; check the subscription on the dashboard")
	}
	a, err := chooseAgent(opts, baseURL, entries)
	if err != nil {
		return err
	}
	if opts.Mode == ModeDirect && a.directRefusal() != "" {
		return directRefused(a)
	}
	files, err := configFiles(opts, a)
	if err != nil {
		return err
	}

	// Another gw init agent writing the same files at the same time must not merge into the content this
	// one read: the lock makes the second merge into the first one's result. A run that asks nothing holds
	// it from the read to the write (and the saving of gw serve's token and port); one that shows the
	// picker or asks to confirm takes it only to write, and Write refuses if a file changed meanwhile (the
	// user approved a diff of what they saw).
	lock := &configLock{paths: files}
	if opts.Project {
		// Checked again when the lock is taken: a run that asks first may write long after configFiles.
		if lock.inside, err = opts.WorkDir(); err != nil {
			return err
		}
	}
	defer lock.release()
	asks := (len(opts.Models) == 0 && ios.CanPromptOnStderr()) || (ios.CanPrompt() && !opts.Yes)
	if !opts.DryRun && !asks {
		if err := lock.take(); err != nil {
			return err
		}
	}

	p, err := makePlan(opts, a, files, baseURL, entries)
	if err != nil {
		return err
	}

	out, errOut := ios.Out, ios.ErrOut
	for _, n := range p.notes {
		fmt.Fprintln(errOut, safetext.Text(n))
	}
	changed := p.changed()
	switch {
	case len(changed) == 0:
		return upToDate(ios, opts, p)
	case opts.DryRun:
		fmt.Fprint(out, p.diff())
		printSummary(errOut, p)
		if p.gw.port != 0 {
			fmt.Fprintf(errOut, "note: a real run also saves port %d in gw's config, so that gw serve listens there\n", p.gw.port)
		}
		fmt.Fprintln(errOut, "dry run: nothing was written")
		return nil
	case ios.CanPrompt() && !opts.Yes:
		fmt.Fprint(out, p.diff())
		var names []string
		for _, c := range changed {
			names = append(names, c.path)
		}
		ok, err := confirm(ios.In, out, fmt.Sprintf("Write these changes to %s? [Y/n] ", strings.Join(names, " and ")))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(errOut, "nothing was written")
			return cmdutil.ErrCancel
		}
	}

	if err := lock.take(); err != nil {
		return err
	}
	w, err := p.apply()
	if err != nil {
		return err
	}
	report(ctx, ios, opts, p, w)
	return nil
}

// configFiles are the agent's config files gw init agent writes: the global ones, or with --project the
// project's in the working directory. An agent without a project config is a usage error that says so.
func configFiles(opts *AgentOptions, a writer) ([]string, error) {
	project := opts.Project
	wd, err := opts.WorkDir()
	if err != nil {
		return nil, err
	}
	scope := agents.Global
	if project {
		scope = agents.Project
	}
	files, err := a.Files(scope, agents.Place{Getenv: opts.Getenv, WorkDir: wd})
	if err != nil {
		if project {
			return nil, &cmdutil.FlagError{Err: fmt.Errorf("--project: %w", err)} // with the agent's remedy
		}
		return nil, err
	}
	// A project's links were chosen by whoever wrote the project: none may take a write outside it (the
	// user's own links, in the global scope, are followed).
	if project {
		for _, path := range files {
			if err := fsutil.CheckInside(wd, path); err != nil {
				return nil, cmdutil.NothingChanged(err)
			}
		}
	}
	return files, nil
}

// configLock is agentfile.Lock on each of the agent's config files, held from the first take to release.
// With inside set (--project), no file may be reached through a symlink leaving that directory.
type configLock struct {
	paths  []string
	inside string
	held   []func()
}

func (l *configLock) take() error {
	if l.held != nil {
		return nil
	}
	for _, p := range l.paths {
		if l.inside != "" {
			if err := fsutil.CheckInside(l.inside, p); err != nil {
				l.release()
				return cmdutil.NothingChanged(err)
			}
		}
		release, err := agentfile.Lock(p)
		if err != nil {
			l.release()
			return cmdutil.NothingChanged(err)
		}
		l.held = append(l.held, release)
	}
	return nil
}

func (l *configLock) release() {
	for i := len(l.held) - 1; i >= 0; i-- {
		l.held[i]()
	}
	l.held = nil
}

// upToDate is the end of a run that leaves the agent's config as it is. The config may already point at
// --port (an earlier run that did not save it, or a hand edit): gw's config should agree with it.
func upToDate(ios *tui.IOStreams, opts *AgentOptions, p *plan) error {
	var names []string
	for _, f := range p.files {
		names = append(names, f.path)
	}
	verb := "is"
	if len(names) > 1 {
		verb = "are"
	}
	fmt.Fprintf(ios.Out, "%s %s already up to date: %s with %s; nothing changed\n", strings.Join(names, " and "), verb, p.agent.Entry, countModels(len(p.after.Models)))
	switch {
	case p.gw.port == 0:
	case opts.DryRun:
		fmt.Fprintf(ios.ErrOut, "note: a real run saves port %d in gw's config, so that gw serve listens there\n", p.gw.port)
	default:
		// Only the port: a new token would have changed the agent's config.
		if err := (gwChange{file: p.gw.file, port: p.gw.port}).save(); err != nil {
			return fmt.Errorf("gw serve's port was not saved: %w", err)
		}
		fmt.Fprintf(ios.Out, "gw serve will listen on port %d (saved in gw's config)\n", p.gw.port)
		fmt.Fprintln(ios.Out, "Next: run gw serve, or restart it if it runs on another port")
	}
	return nil
}

// report says what was written, and what to do next.
func report(ctx context.Context, ios *tui.IOStreams, opts *AgentOptions, p *plan, w written) {
	out, errOut := ios.Out, ios.ErrOut
	a := p.agent
	for i, fw := range w {
		verb := "Updated"
		if fc := p.fileAt(fw.Path); fc != nil && !fc.exists {
			verb = "Created"
		}
		if i == 0 {
			fmt.Fprintf(out, "%s %s: %s with %s\n", verb, fw.Path, a.Entry, countModels(len(p.after.Models)))
			printSummary(out, p)
			continue
		}
		fmt.Fprintf(out, "%s %s\n", verb, fw.Path)
	}
	for _, fw := range w {
		if fw.Backup != "" {
			fmt.Fprintf(out, "Previous version kept in %s\n", fw.Backup)
		}
	}
	for _, fw := range w {
		if fw.Backup == "" {
			continue
		}
		fc := p.fileAt(fw.Path)
		if fc == nil {
			continue
		}
		if what := plainKeyRemoved(p, *fc); what != "" {
			fmt.Fprintf(errOut, "warning: %s holds the previous config, with %s in plain text (readable only by you); once %s works with the new config, delete it: rm %s\n",
				fw.Backup, what, a.Display, agentfile.ShellQuote(fw.Backup))
		}
	}
	if ownDef, _ := a.choosesOwn(); !ownDef && (p.after.Default != p.before.Default || p.after.Small != p.before.Small) {
		if p.after.Default != "" {
			line := fmt.Sprintf("%s's model: %s", a.Display, p.after.Default)
			if p.after.Small != "" {
				line += fmt.Sprintf(" (small model: %s)", p.after.Small)
			}
			fmt.Fprintln(out, line)
		}
	}
	for _, f := range p.files {
		for _, n := range f.result.Notes {
			fmt.Fprintln(out, n)
		}
	}
	switch opts.Mode {
	case ModeProxy:
		if p.gw.port != 0 {
			fmt.Fprintf(out, "gw serve will listen on port %d (saved in gw's config)\n", p.gw.port)
		}
		if p.after.GwCommand {
			fmt.Fprintf(out, "Next: start %s; gw serve starts with it when it is not running (%s runs gw %s)\n",
				a.Display, a.Display, strings.Join(agents.CredentialArgs, " "))
		} else {
			fmt.Fprintf(out, "Next: %s\n", keepServing(ctx, ios, opts, a.Display, cmp.Or(p.after.BaseURL, p.decl.BaseURL)))
		}
		if opts.Project {
			fmt.Fprintln(errOut, "note: the project config holds gw serve's local token; it opens only your local proxy, but keep it out of version control (or use --mode direct)")
		}
	case ModeDirect:
		fmt.Fprintf(out, "Next: start %s with the key in its environment: %s=$(gw auth token) %s\n", a.Display, p.decl.KeyVar(), a.Binary)
	}
}

// keepServing is what to do next for an agent that reaches the service through gw serve at baseURL: on a
// terminal, what keeps gw serve running here (gw service install where the platform can start it at
// login, else the line that starts it), since the agent finds it only while it runs; else to run it.
func keepServing(ctx context.Context, ios *tui.IOStreams, opts *AgentOptions, agent, baseURL string) string {
	if ios.IsStdoutTTY() && opts.LoginService != nil {
		switch s := opts.LoginService(ctx).KeepServing(agent); s {
		case "":
			return "start " + agent + ": gw serve runs already, started at login by gw service"
		default:
			return s
		}
	}
	return fmt.Sprintf("run gw serve (%s reaches the service through %s)", agent, baseURL)
}

// fileAt is the planned change of the file written at path (a symlink's target).
func (p *plan) fileAt(path string) *fileChange {
	for i := range p.files {
		f := &p.files[i]
		if f.path == path {
			return f
		}
		if t, err := filepath.EvalSymlinks(f.path); err == nil && t == path {
			return f
		}
	}
	return nil
}

// plainKeyRemoved says what plain-text key the change took out of a file, which then lives on only in its
// backup: the agent's own reading of the two contents where it has one (OpenCode's and Kilo's providers, by
// name), else its key setting before and after; "" when none.
func plainKeyRemoved(p *plan, f fileChange) string {
	if r, ok := p.agent.agent.(agents.PlainKeyRemover); ok {
		return r.PlainKeysRemoved(f.old, f.result.Data)
	}
	if p.before.KeyKind == agents.KeyLiteral && p.after.KeyKind != agents.KeyLiteral && f.path == p.files[0].path {
		return "an API key"
	}
	return ""
}

// printSummary says what the run did to the file's models, each removal with its true reason, and which
// of the models chosen the agent does not take (Claude Code takes one a tier).
func printSummary(w io.Writer, p *plan) {
	added, removed, updated := p.summary()
	if len(added) > 0 {
		fmt.Fprintf(w, "  added:   %s\n", strings.Join(added, ", "))
	}
	var gone, unchosen, untaken []string
	for _, id := range removed {
		switch {
		case !slices.Contains(p.available, id):
			gone = append(gone, id)
		case !slices.Contains(p.chosen, id):
			unchosen = append(unchosen, id)
		default:
			untaken = append(untaken, id)
		}
	}
	for _, r := range []struct {
		ids []string
		why string
	}{
		{gone, "no longer in your subscription"},
		{unchosen, "not chosen"},
		{untaken, fmt.Sprintf("chosen, but %s takes %d of the %d models chosen: what it takes is said below", p.agent.Display, len(p.after.Models), len(p.chosen))},
	} {
		if len(r.ids) > 0 {
			fmt.Fprintf(w, "  removed: %s (%s)\n", strings.Join(r.ids, ", "), r.why)
		}
	}
	if len(updated) > 0 {
		fmt.Fprintf(w, "  updated: %s\n", strings.Join(updated, ", "))
	}
	var left []string
	for _, id := range p.chosen {
		if !slices.Contains(p.after.Models, id) && !slices.Contains(untaken, id) {
			left = append(left, id)
		}
	}
	if len(left) > 0 && len(p.after.Models) > 0 {
		fmt.Fprintf(w, "  not written: %s (%s takes %d of the %d models chosen)\n", strings.Join(left, ", "), p.agent.Display, len(p.after.Models), len(p.chosen))
	}
}

func confirm(in io.Reader, out io.Writer, prompt string) (bool, error) {
	fmt.Fprint(out, prompt)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes":
		return true, nil
	}
	return false, nil
}

func countModels(n int) string {
	if n == 1 {
		return "1 model"
	}
	return fmt.Sprintf("%d models", n)
}
