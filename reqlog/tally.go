package reqlog

import (
	"cmp"
	"sort"
	"strings"
	"time"
)

// Totals add up requests and the tokens the service reported for them.
type Totals struct {
	Requests  int   `json:"requests"`
	Errors    int   `json:"errors"` // answered with a status from 400 on
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_tokens"`
}

func (t *Totals) add(e *Entry) {
	n := e.Requests()
	t.Requests += n
	if e.Status >= 400 {
		t.Errors += n
	}
	if e.HasUsage {
		t.Input += max(0, e.Input)
		t.Cached += max(0, e.Cached)
		t.Output += max(0, e.Output)
		t.Reasoning += max(0, e.Reasoning)
	}
}

// CacheRatio is the share of input tokens read from the service's cache,
// 0 when there were none.
func (t *Totals) CacheRatio() float64 {
	if t.Input <= 0 {
		return 0
	}
	return float64(min(t.Cached, t.Input)) / float64(t.Input)
}

// The conditions gw usage counts the failures under that are none of the
// service's three: requests gw serve refused itself (no or a wrong local
// token, a foreign Host or Origin: nothing reached the service), and the
// rest (rate limits, server errors, a client gone…).
const (
	Refused = "refused"
	Other   = "other"
)

// Tally adds up the request log by day, model and agent. The zero value is
// ready; set Loc for the days (time.Local when nil).
type Tally struct {
	Loc   *time.Location
	Total Totals
	// Errors counts failed requests by condition: KeyRejected,
	// ServiceUnreachable, UnknownModel, Refused or Other.
	Errors  map[string]int
	days    map[int64]*Totals // by day number since the epoch, in Loc
	models  map[string]*Totals
	agents  map[string]*Totals
	lastDay int64
	lastAt  int64 // the start of lastDay, Unix seconds
	lastEnd int64 // and its end
}

// Counted reports whether a line counts in gw usage: every request but
// probes (Entry.Probe).
func Counted(e *Entry) bool { return !e.Probe() }

// Add counts e.
func (t *Tally) Add(e *Entry) {
	if !Counted(e) {
		return
	}
	t.Total.add(e)
	if e.Status >= 400 {
		c := e.Condition
		switch {
		case c != "":
		case strings.HasPrefix(e.Note, "refused=") || strings.Contains(e.Note, " refused="):
			c = Refused
		default:
			c = Other
		}
		if t.Errors == nil {
			t.Errors = make(map[string]int)
		}
		t.Errors[c] += e.Requests()
	}
	at := e.Time.Unix()
	if t.days == nil || at < t.lastAt || at >= t.lastEnd {
		// Lines come in order, so the day changes rarely: the calendar is
		// asked only then.
		t.newDay(e.Time)
	}
	bucket(&t.days, t.lastDay).add(e)
	bucket(&t.models, cmp.Or(e.Model, "-")).add(e)
	bucket(&t.agents, cmp.Or(e.Agent, "-")).add(e)
}

func (t *Tally) newDay(at time.Time) {
	loc := t.Loc
	if loc == nil {
		loc = time.Local
	}
	y, m, d := at.In(loc).Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, loc)
	t.lastAt, t.lastEnd = start.Unix(), start.AddDate(0, 0, 1).Unix()
	t.lastDay = int64(y)*10000 + int64(m)*100 + int64(d)
}

// bucket is m's Totals for k, added when missing.
func bucket[K comparable](m *map[K]*Totals, k K) *Totals {
	if *m == nil {
		*m = make(map[K]*Totals)
	}
	b := (*m)[k]
	if b == nil {
		b = &Totals{}
		(*m)[k] = b
	}
	return b
}

// Row is the totals of one day, model or agent.
type Row struct {
	Key string `json:"key"`
	Totals
}

// ByDay is the totals per day (YYYY-MM-DD in Loc), oldest first.
func (t *Tally) ByDay() []Row {
	rows := make([]Row, 0, len(t.days))
	for k, v := range t.days {
		rows = append(rows, Row{Key: time.Date(int(k/10000), time.Month(k/100%100), int(k%100), 0, 0, 0, 0, time.UTC).Format("2006-01-02"), Totals: *v})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Key < rows[j].Key })
	return rows
}

// ByModel is the totals per model, the most tokens first.
func (t *Tally) ByModel() []Row { return ranked(t.models) }

// ByAgent is the totals per agent, the most tokens first.
func (t *Tally) ByAgent() []Row { return ranked(t.agents) }

func ranked(m map[string]*Totals) []Row {
	rows := make([]Row, 0, len(m))
	for k, v := range m {
		rows = append(rows, Row{Key: k, Totals: *v})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i].Input+rows[i].Output, rows[j].Input+rows[j].Output
		if a != b {
			return a > b
		}
		if rows[i].Requests != rows[j].Requests {
			return rows[i].Requests > rows[j].Requests
		}
		return rows[i].Key < rows[j].Key
	})
	return rows
}
