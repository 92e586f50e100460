// Package logs implements `gw logs`.
package logs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/reqlog"
	"github.com/modelgateway/gw/tui"
)

// LogsOptions holds the flags and dependencies of `gw logs`.
type LogsOptions struct {
	IO     *tui.IOStreams
	Paths  func() (config.Paths, error)
	Follow bool
	Since  string
	JSON   bool
	Agent  string
	Model  string
	Status string
	Probes bool

	// Now is the clock --since counts back from (time.Now when nil).
	Now func() time.Time
	// Poll is how often -f looks for new lines (a quarter second when 0).
	Poll time.Duration
}

// NewCmdLogs binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdLogs(f *cmdutil.Factory, runF func(context.Context, *LogsOptions) error) *cobra.Command {
	opts := &LogsOptions{IO: f.IOStreams, Paths: f.Paths}
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Show the request log of gw serve",
		Long: `Show the request log: one line per request every gw serve on this machine answered (gw serve
and the one gw run starts), with the agent that sent it, the model, the status, the time it took and
the tokens the service reported. Never a key, a token or a body.

With -f, lines are shown as they are written until ctrl-c. --status takes a code (429), a class
(4xx) or "error" (every status from 400 on). Probes (a client asking whether gw serve answers, as
Claude Code does at start, and gw's own checks) are left out unless --probes is given.`,
		Example: `  gw logs --since 1h
  gw logs -f --agent claude-code
  gw logs --status error --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Since != "" {
				if _, err := cmdutil.ParseSince(opts.Since); err != nil {
					return cmdutil.FlagErrorf("%v", err)
				}
			}
			if opts.Status != "" {
				if _, err := parseStatus(opts.Status); err != nil {
					return cmdutil.FlagErrorf("%v", err)
				}
			}
			return cmdutil.Run(cmd.Context(), runF, logsRun, opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Follow, "follow", "f", false, "show lines as they are written, until ctrl-c")
	cmd.Flags().StringVar(&opts.Since, "since", "", "only lines of this last while: 30m, 12h, 7d (with -f: the default is none of the earlier lines)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON object per line")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "only requests of this agent (claude-code, codex, …)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "only requests for this model")
	cmd.Flags().StringVar(&opts.Status, "status", "", "only these statuses: 429, 4xx or error")
	cmd.Flags().BoolVar(&opts.Probes, "probes", false, "show probes too (a client or gw checking that gw serve answers)")
	return cmd
}

// statusFilter matches statuses: one code, or a range.
type statusFilter struct{ lo, hi int }

func parseStatus(s string) (statusFilter, error) {
	switch {
	case s == "error":
		return statusFilter{400, 999}, nil
	case len(s) == 3 && s[0] >= '1' && s[0] <= '5' && strings.EqualFold(s[1:], "xx"):
		lo := int(s[0]-'0') * 100
		return statusFilter{lo, lo + 99}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n > 999 {
		return statusFilter{}, fmt.Errorf("--status %q: give a status code (429), a class (4xx) or error", s)
	}
	return statusFilter{n, n}, nil
}

func logsRun(ctx context.Context, opts *LogsOptions) error {
	ios := opts.IO
	p, err := opts.Paths()
	if err != nil {
		return err
	}
	path := filepath.Join(p.StateDir, reqlog.Name)
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	var since time.Time
	if opts.Since != "" {
		d, _ := cmdutil.ParseSince(opts.Since)
		since = now().Add(-d)
	}
	var status statusFilter
	if opts.Status != "" {
		status, _ = parseStatus(opts.Status)
	}
	filtered := opts.Agent != "" || opts.Model != "" || opts.Status != ""
	pr := &printer{out: ios.Out, cs: ios.ColorScheme(), json: opts.JSON, follow: opts.Follow}
	wanted := func(l *reqlog.Line) bool {
		switch {
		case !l.OK:
			return !filtered && !opts.JSON
		case !opts.Probes && l.Probe():
			return false
		case opts.Agent != "" && l.Agent != opts.Agent,
			opts.Model != "" && l.Model != opts.Model,
			opts.Status != "" && (l.Status < status.lo || l.Status > status.hi):
			return false
		}
		return true
	}
	var werr error
	show := func(l *reqlog.Line) bool {
		if !wanted(l) {
			return true
		}
		werr = pr.print(l)
		return werr == nil
	}

	if !opts.Follow {
		if !opts.JSON {
			// The columns are as wide as the lines shown need: a first
			// pass measures them (reading the log costs far less than
			// printing it).
			// A damaged file is said once, by the pass below.
			if err := reqlog.Scan(path, since, func(l *reqlog.Line) bool {
				if l.OK && wanted(l) {
					pr.fit(l)
				}
				return true
			}); err != nil && !damaged(err) {
				return err
			}
		}
		err := reqlog.Scan(path, since, show)
		if err != nil && !damaged(err) {
			return err
		}
		var d *reqlog.DamagedError
		if errors.As(err, &d) {
			for _, f := range d.Files {
				fmt.Fprintf(ios.ErrOut, "! %v\n", f)
			}
		}
		if werr == nil && pr.n == 0 && ios.IsStdoutTTY() && !opts.JSON {
			fmt.Fprintln(ios.ErrOut, noLines(opts, path))
		}
		return nil // a write error: the reader went away (gw logs | head)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	poll := opts.Poll
	if poll == 0 {
		poll = 250 * time.Millisecond
	}
	return reqlog.Follow(ctx, path, since, poll, show, func(err error) {
		fmt.Fprintf(ios.ErrOut, "! %v\n", err)
	})
}

// damaged: err says only that some rotated files could not be read to
// their end (reqlog.DamagedError); the rest of the log was read.
func damaged(err error) bool {
	var d *reqlog.DamagedError
	return errors.As(err, &d)
}

func noLines(opts *LogsOptions, path string) string {
	if _, err := os.Lstat(path); err != nil {
		return "No requests logged yet: gw serve writes them to " + path + "."
	}
	if opts.Since != "" {
		return "No requests in the last " + opts.Since + "."
	}
	return "No requests match."
}

// printer writes lines: aligned columns (coloured on a terminal), or JSON.
type printer struct {
	out    io.Writer
	cs     *tui.ColorScheme
	json   bool
	follow bool // columns of a fixed width: lines to come are not measured
	n      int
	header bool
	widths [2]int // agent, model: grown as longer ones come
	buf    []byte
}

// jsonLine is a line of gw logs --json.
type jsonLine struct {
	Time       string  `json:"time"`
	Method     string  `json:"method"`
	Path       string  `json:"path"`
	Agent      string  `json:"agent,omitempty"`
	Model      string  `json:"model,omitempty"`
	Status     int     `json:"status"`
	Condition  string  `json:"condition,omitempty"`
	DurationMS float64 `json:"duration_ms"`
	Input      *int64  `json:"input_tokens,omitempty"`
	Cached     *int64  `json:"cached_tokens,omitempty"`
	Output     *int64  `json:"output_tokens,omitempty"`
	Reasoning  *int64  `json:"reasoning_tokens,omitempty"`
	Protocol   string  `json:"protocol"`
	Stream     bool    `json:"stream"`
	Note       string  `json:"note,omitempty"`
	Requests   int     `json:"requests"`
	Probe      bool    `json:"probe,omitempty"` // a probe (shown with --probes), not a request for the service
}

func (p *printer) print(l *reqlog.Line) error {
	p.n++
	if p.json {
		j := jsonLine{Time: l.Time.Format(reqlog.TimeLayout), Method: l.Method, Path: l.Path, Agent: l.Agent, Model: l.Model,
			Status: l.Status, Condition: l.Condition, DurationMS: float64(l.Dur.Microseconds()) / 1000,
			Protocol: l.Proto, Stream: l.Stream, Note: l.Note, Requests: l.Requests(), Probe: l.Probe()}
		if l.HasUsage {
			j.Input, j.Cached, j.Output, j.Reasoning = &l.Input, &l.Cached, &l.Output, &l.Reasoning
		}
		b, err := json.Marshal(j)
		if err != nil {
			return err
		}
		_, err = p.out.Write(append(safetext.JSON(b), '\n'))
		return err
	}
	if !l.OK {
		_, err := fmt.Fprintln(p.out, p.cs.Gray(safetext.Line(string(l.Raw))))
		return err
	}
	agent, model := p.fit(l)
	if !p.header {
		p.header = true
		h := fmt.Sprintf("%-19s  %-*s  %-*s  %-6s  %8s  %8s  %8s  %8s  %s", "TIME", p.widths[0], "AGENT", p.widths[1], "MODEL",
			"STATUS", "DURATION", "INPUT", "CACHED", "OUTPUT", "NOTE")
		if _, err := fmt.Fprintln(p.out, p.cs.Bold(strings.TrimRight(h, " "))); err != nil {
			return err
		}
	}
	in, cached, out := "-", "-", "-"
	if l.HasUsage {
		in, cached, out = strconv.FormatInt(l.Input, 10), strconv.FormatInt(l.Cached, 10), strconv.FormatInt(l.Output, 10)
	}
	note := safetext.Line(l.Note)
	if l.Condition != "" {
		note = strings.TrimSpace(strings.ReplaceAll(safetext.Line(l.Condition), "_", " ") + " " + note)
	}
	if l.Count > 1 {
		note += " ×" + strconv.Itoa(l.Count)
	}
	status := fmt.Sprintf("%-6d", l.Status)
	switch {
	case l.Status >= 500 || l.Status == 499:
		status = p.cs.Red(status)
	case l.Status >= 400:
		status = p.cs.Yellow(status)
	default:
		status = p.cs.Green(status)
	}
	line := fmt.Sprintf("%-19s  %-*s  %-*s  %s  %8s  %8s  %8s  %8s  %s", l.Time.Local().Format("2006-01-02 15:04:05"),
		p.widths[0], agent, p.widths[1], model, status, duration(l.Dur), in, cached, out, p.cs.Gray(note))
	_, err := fmt.Fprintln(p.out, strings.TrimRight(line, " "))
	return err
}

// followModelWidth is the model column's width under -f, where the lines to
// come cannot be measured: a longer id is shortened in its middle, so that
// the columns after it stay where the header put them.
const followModelWidth = 32

// fit widens the columns for l's agent and model (up to a bound: a longer
// model id is not cut, the line is longer; under -f the widths are fixed)
// and returns them as shown.
func (p *printer) fit(l *reqlog.Line) (agent, model string) {
	agent, model = safetext.Line(l.Agent), safetext.Line(l.Model)
	if agent == "" {
		agent = "-"
	}
	if model == "" {
		model = "-"
	}
	if p.widths[0] == 0 {
		p.widths[0] = agentWidth()
	}
	if p.follow {
		p.widths[1] = followModelWidth
		return shorten(agent, p.widths[0]), shorten(model, followModelWidth)
	}
	p.widths[0] = max(p.widths[0], min(len(agent), 16))
	p.widths[1] = max(p.widths[1], len("MODEL"), min(len(model), 40))
	return agent, model
}

// shorten cuts s to n runes, an ellipsis in the middle: a model id's
// vendor and version stay.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// agentWidth is the agent column's least width: the longest name of an agent
// gw knows, so that a followed log keeps its columns when another agent shows up.
func agentWidth() int {
	w := len("AGENT")
	for _, n := range all.Names(all.All()) {
		w = max(w, len(n))
	}
	return w
}

// duration is short and of a fixed precision: 850ms, 3.2s, 2m05s.
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
