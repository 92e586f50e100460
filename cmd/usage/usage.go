// Package usage implements `gw usage`.
package usage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/internal/tokens"
	"github.com/modelgateway/gw/reqlog"
	"github.com/modelgateway/gw/tui"
)

// UsageOptions holds the flags and dependencies of `gw usage`.
type UsageOptions struct {
	IO    *tui.IOStreams
	Paths func() (config.Paths, error)
	Since string
	By    string
	JSON  bool

	// Now is the clock --since counts back from (time.Now when nil).
	Now func() time.Time
}

// NewCmdUsage binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdUsage(f *cmdutil.Factory, runF func(context.Context, *UsageOptions) error) *cobra.Command {
	opts := &UsageOptions{IO: f.IOStreams, Paths: f.Paths}
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Show the tokens your agents spent, by day, model or agent",
		Long: `Show what went through gw serve, from its request log: requests, and the input, cached and
output tokens the service reported, per day, model or agent; the share of input tokens read
from the service's cache; and the requests that failed, by condition (key rejected, service
unreachable, unknown model, refused by gw serve itself, other).`,
		Example: `  gw usage
  gw usage --since 30d --by model
  gw usage --by agent --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := cmdutil.ParseSince(opts.Since); err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			switch opts.By {
			case "day", "model", "agent":
			default:
				return cmdutil.FlagErrorf("--by %q: give day, model or agent", opts.By)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return usageRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Since, "since", "7d", "the last while to count: 12h, 7d, 2w, 365d")
	cmd.Flags().StringVar(&opts.By, "by", "day", "one row per day, model or agent")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the totals as JSON")
	return cmd
}

// report is gw usage --json.
type report struct {
	Since      string         `json:"since"`
	Until      string         `json:"until"`
	Total      reqlog.Totals  `json:"total"`
	CacheRatio float64        `json:"cache_ratio"`
	Errors     map[string]int `json:"errors"`
	By         string         `json:"by"`
	Rows       []row          `json:"rows"`
}

type row struct {
	Key string `json:"key"`
	reqlog.Totals
	CacheRatio float64 `json:"cache_ratio"`
}

// conditions are the error conditions in the order they are shown: the
// service's three, then the rest.
var conditions = []string{reqlog.KeyRejected, reqlog.ServiceUnreachable, reqlog.UnknownModel, reqlog.Refused, reqlog.Other}

// conditionWords are the conditions as the table's summary says them.
var conditionWords = map[string]string{
	reqlog.KeyRejected:        "key rejected",
	reqlog.ServiceUnreachable: "service unreachable",
	reqlog.UnknownModel:       "unknown model",
	reqlog.Refused:            "refused by gw serve (no or wrong local token)",
	reqlog.Other:              "other",
}

func usageRun(opts *UsageOptions) error {
	ios := opts.IO
	p, err := opts.Paths()
	if err != nil {
		return err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	d, _ := cmdutil.ParseSince(opts.Since)
	until := now()
	since := until.Add(-d)
	tally := reqlog.Tally{Loc: time.Local}
	err = reqlog.Scan(filepath.Join(p.StateDir, reqlog.Name), since, func(l *reqlog.Line) bool {
		if l.OK && !l.Time.After(until) {
			tally.Add(&l.Entry)
		}
		return true
	})
	// A rotated file that could not be read to its end is said; the
	// totals are those of every line that could be read.
	var damaged *reqlog.DamagedError
	if errors.As(err, &damaged) {
		for _, d := range damaged.Files {
			fmt.Fprintf(ios.ErrOut, "! %v\n", d)
		}
	} else if err != nil {
		return err
	}
	var rows []reqlog.Row
	switch opts.By {
	case "day":
		rows = tally.ByDay()
	case "model":
		rows = tally.ByModel()
	case "agent":
		rows = tally.ByAgent()
	}
	if opts.JSON {
		r := report{Since: since.Format(time.RFC3339), Until: until.Format(time.RFC3339), Total: tally.Total,
			CacheRatio: round(tally.Total.CacheRatio()), Errors: map[string]int{}, By: opts.By, Rows: []row{}}
		for _, c := range conditions {
			r.Errors[c] = tally.Errors[c]
		}
		for _, x := range rows {
			r.Rows = append(r.Rows, row{Key: x.Key, Totals: x.Totals, CacheRatio: round(x.CacheRatio())})
		}
		return cmdutil.WriteJSON(ios.Out, r)
	}

	cs := ios.ColorScheme()
	if tally.Total.Requests == 0 {
		fmt.Fprintf(ios.Out, "No requests in the last %s.\n", opts.Since)
		return nil
	}
	table := [][]string{{strings.ToUpper(opts.By), "REQUESTS", "ERRORS", "INPUT", "CACHED", "OUTPUT", "CACHE HIT"}}
	line := func(key string, t reqlog.Totals) {
		table = append(table, []string{key, strconv.Itoa(t.Requests), strconv.Itoa(t.Errors),
			tokenCount(t.Input), tokenCount(t.Cached), tokenCount(t.Output), percent(t.CacheRatio(), t.Input)})
	}
	for _, r := range rows {
		line(r.Key, r.Totals)
	}
	line("total", tally.Total)
	writeTable(ios.Out, cs, table)
	fmt.Fprintln(ios.Out)
	if tally.Total.Errors == 0 {
		fmt.Fprintf(ios.Out, "%s No failed requests.\n", cs.SuccessIcon())
		return nil
	}
	var parts []string
	for _, c := range conditions {
		if n := tally.Errors[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", conditionWords[c], n))
		}
	}
	fmt.Fprintf(ios.Out, "%s Failed requests: %s (gw logs --status error shows them)\n", cs.WarningIcon(), strings.Join(parts, ", "))
	return nil
}

// writeTable writes rows in columns two spaces apart: the first column
// left-aligned, the numbers right-aligned; the header in bold, the last
// row (the total) too.
func writeTable(w io.Writer, cs *tui.ColorScheme, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			r[i] = safetext.Line(c) // a model or agent name from the log
			widths[i] = max(widths[i], len(r[i]))
		}
	}
	for n, r := range rows {
		var b strings.Builder
		for i, c := range r {
			switch {
			case i == 0:
				fmt.Fprintf(&b, "%-*s", widths[i], c)
			default:
				fmt.Fprintf(&b, "  %*s", widths[i], c)
			}
		}
		text := b.String()
		if n == 0 || n == len(rows)-1 {
			text = cs.Bold(text)
		}
		fmt.Fprintln(w, text)
	}
}

func round(r float64) float64 { return float64(int64(r*1000+0.5)) / 1000 }

// tokenCount is a token count as a terminal shows it: exact up to 9,999, then
// 12K, 4.5M.
func tokenCount(n int64) string {
	if n < 10_000 {
		return strconv.FormatInt(n, 10)
	}
	return tokens.Format(int(n))
}

func percent(r float64, input int64) string {
	if input == 0 {
		return "-"
	}
	return strconv.FormatFloat(r*100, 'f', 0, 64) + "%"
}
