// Package statusline implements `gw statusline`, Claude Code's status line.
package statusline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/internal/tokens"
	"github.com/modelgateway/gw/proxy"
	"github.com/modelgateway/gw/reqlog"
	"github.com/modelgateway/gw/tui"
)

// Bounds that keep the status line quick whatever happens: Claude Code runs
// it at every turn and waits for it.
const (
	maxInput  = 256 << 10              // what is read of Claude Code's JSON
	inputWait = 300 * time.Millisecond // for Claude Code to send it
	probeWait = 300 * time.Millisecond // for gw serve to answer
)

// StatuslineOptions holds the dependencies of `gw statusline`.
type StatuslineOptions struct {
	IO     *tui.IOStreams
	Config func() (config.File, config.Paths, error)

	// Now is the clock "today" is taken from (time.Now when nil).
	Now func() time.Time
	// Probe checks that this install's gw serve answers on addr
	// (proxy.ProbeQuietly when nil: gw serve does not log it).
	Probe func(ctx context.Context, addr, token string) error
	// LoginService says what keeps gw serve running here, asked when it is down.
	LoginService func(context.Context) cmdutil.LoginService
}

// NewCmdStatusline binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdStatusline(f *cmdutil.Factory, runF func(context.Context, *StatuslineOptions) error) *cobra.Command {
	opts := &StatuslineOptions{IO: f.IOStreams, Config: f.Config, LoginService: f.LoginService}
	cmd := &cobra.Command{
		Use:   "statusline",
		Short: "Print a status line for Claude Code: gw serve up or down, the model, today's tokens",
		Long: `Print one short line for Claude Code's status line: whether gw serve answers on the configured
port, the model Claude Code uses (from the JSON Claude Code sends on standard input), and the
tokens every agent spent through gw today, with the share read from the service's cache.

gw init agent --agent claude-code sets it up where you have no status line of your own:
"statusLine": {"type": "command", "command": "gw statusline"} in ~/.claude/settings.json.`,
		Example: `  echo '{"model":{"display_name":"Sonnet"}}' | gw statusline`,
		Args:    cobra.NoArgs,
		RunE:    cmdutil.RunE(runF, statuslineRun, opts),
	}
	return cmd
}

// input is what gw statusline reads of the JSON Claude Code sends.
type input struct {
	Model struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
}

func statuslineRun(ctx context.Context, opts *StatuslineOptions) error {
	ios := opts.IO
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	probe := opts.Probe
	if probe == nil {
		probe = proxy.ProbeQuietly
	}

	// Claude Code's JSON, read in the background while gw serve is probed.
	in := make(chan input, 1)
	if ios.IsStdinTTY() {
		in <- input{}
	} else {
		go func() {
			var v input
			b, _ := io.ReadAll(io.LimitReader(ios.In, maxInput))
			_ = json.Unmarshal(b, &v)
			in <- v
		}()
	}

	var parts []string
	cfg, paths, err := opts.Config()
	switch {
	case err != nil:
		parts = append(parts, "gw: config unreadable, run gw doctor")
	case cfg.LocalToken == "":
		parts = append(parts, "gw: not set up, run gw init agent")
	default:
		pctx, cancel := context.WithTimeout(ctx, probeWait)
		err := probe(pctx, net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.ServePort())), cfg.LocalToken)
		cancel()
		switch {
		case err == nil:
			parts = append(parts, "gw ● up")
		case errors.Is(err, proxy.ErrNotRunning):
			parts = append(parts, "gw ○ down, "+whatStartsServe(ctx, opts))
		default:
			parts = append(parts, "gw ! port "+strconv.Itoa(cfg.ServePort())+" taken, run gw doctor")
		}
	}

	var v input
	select {
	case v = <-in:
	case <-time.After(inputWait):
	}
	if m := modelName(v); m != "" {
		parts = append(parts, m)
	}

	if paths.StateDir != "" {
		if t, ok := today(filepath.Join(paths.StateDir, reqlog.Name), now()); ok {
			parts = append(parts, t)
		}
	}
	_, err = fmt.Fprintln(ios.Out, strings.Join(parts, " · "))
	return err
}

// whatStartsServe is what to run while gw serve is down: gw service install where the platform can start
// it at login (and gw service status where that is set up but not running), else gw serve.
func whatStartsServe(ctx context.Context, opts *StatuslineOptions) string {
	if opts.LoginService == nil {
		return "run gw serve"
	}
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	switch ls := opts.LoginService(ctx); {
	case ls.Installed:
		return "see gw service status"
	case ls.NotReady == nil && ctx.Err() == nil:
		return "run gw service install"
	}
	return "run gw serve"
}

// modelName is the model as Claude Code names it, bounded and printable.
func modelName(v input) string {
	m := v.Model.DisplayName
	if m == "" {
		m = v.Model.ID
	}
	m = safetext.Line(m)
	if len(m) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(m[cut]) {
			cut--
		}
		m = m[:cut] + "…"
	}
	return m
}

// today is what the request log says about today (local time): tokens in,
// the share read from the cache, tokens out.
func today(path string, now time.Time) (string, bool) {
	y, m, d := now.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	var t reqlog.Tally
	t.Loc = now.Location()
	// A damaged rotated file (reqlog.DamagedError) is gw logs' and gw
	// usage's to report: today's lines are in the current file.
	var damaged *reqlog.DamagedError
	if err := reqlog.Scan(path, midnight, func(l *reqlog.Line) bool {
		if l.OK && !l.Time.After(now) {
			t.Add(&l.Entry)
		}
		return true
	}); err != nil && !errors.As(err, &damaged) {
		return "", false
	}
	if t.Total.Requests == 0 {
		return "today: no requests", true
	}
	s := "today " + count(t.Total.Input) + " in"
	if t.Total.Input > 0 {
		s += " (" + strconv.Itoa(int(t.Total.CacheRatio()*100+0.5)) + "% cached)"
	}
	s += ", " + count(t.Total.Output) + " out"
	// What gw serve refused itself is left out: Claude Code checks the
	// address without a token at start, and that is no failure.
	if n := t.Total.Errors - t.Errors[reqlog.Refused]; n > 0 {
		s += ", " + strconv.Itoa(n) + " failed"
	}
	return s, true
}

func count(n int64) string {
	if n <= 0 {
		return "0"
	}
	return tokens.Format(int(n))
}
