package reqlog

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var (
	genModels = []string{"vendor-a/model-a-sonnet-4.5", "vendor-b/model-b-3-flash-preview", "vendor-a/model-a-haiku-4.5"}
	genAgents = []string{"claude-code", "codex", ""}
)

// genEntry is the i-th request of a generated log: every model and agent in
// turn, one day in five, and failures of each condition at their own rates.
func genEntry(i int, start time.Time) Entry {
	e := Entry{
		Time: start.Add(time.Duration(i) * time.Minute), Method: "POST", Path: "/v1/messages",
		Agent: genAgents[i%3], Model: genModels[i%3], Status: 200, Dur: time.Duration(i%5000) * time.Millisecond,
		Proto: "messages", Stream: i%2 == 0,
	}
	switch {
	case i%50 == 0:
		e.Status, e.Condition = 404, UnknownModel
	case i%70 == 0:
		e.Status, e.Condition, e.Note = 401, KeyRejected, "rejected=wrong_key"
	case i%90 == 0:
		e.Status, e.Condition, e.Note = 502, ServiceUnreachable, "failed=upstream_unreachable"
	case i%110 == 0:
		e.Status = 429
	default:
		e.HasUsage = true
		e.Input, e.Output = int64(1000+i%100), int64(10+i%7)
		if i%2 == 0 {
			e.Cached = 500
		}
		e.Reasoning = int64(i % 3)
	}
	return e
}

// tallyOf adds up the whole log at path, days in UTC, as gw usage does.
func tallyOf(path string) (*Tally, error) {
	tally := &Tally{Loc: time.UTC}
	err := Scan(path, time.Time{}, func(l *Line) bool {
		if l.OK {
			tally.Add(&l.Entry)
		}
		return true
	})
	return tally, err
}

// gw usage's sums of a generated log, written through File with
// rotations, against the totals worked out from the generator's rules.
func TestTallyOfAGeneratedLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	f := &File{Path: path, MaxSize: 64 << 10, Keep: 1000}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const n = 10_000 // one request a minute: 6.9 days
	var buf []byte
	for i := range n {
		e := genEntry(i, start)
		buf = Append(buf, &e)
		if i%100 == 99 {
			if _, err := f.Write(buf); err != nil {
				t.Fatal(err)
			}
			buf = buf[:0]
		}
	}
	if _, err := f.Write([]byte("gw serve: 3 request log lines dropped: the disk did not keep up\n")); err != nil {
		t.Fatal(err)
	}
	tally, err := tallyOf(path)
	if err != nil {
		t.Fatal(err)
	}

	var want Totals
	wantErr := map[string]int{}
	for i := range n {
		want.Requests++
		switch {
		case i%50 == 0:
			want.Errors++
			wantErr[UnknownModel]++
		case i%70 == 0:
			want.Errors++
			wantErr[KeyRejected]++
		case i%90 == 0:
			want.Errors++
			wantErr[ServiceUnreachable]++
		case i%110 == 0:
			want.Errors++
			wantErr[Other]++
		default:
			want.Input += int64(1000 + i%100)
			want.Output += int64(10 + i%7)
			want.Reasoning += int64(i % 3)
			if i%2 == 0 {
				want.Cached += 500
			}
		}
	}
	if tally.Total != want {
		t.Errorf("total %+v\nwant  %+v", tally.Total, want)
	}
	if fmt.Sprint(tally.Errors) != fmt.Sprint(wantErr) {
		t.Errorf("errors %v, want %v", tally.Errors, wantErr)
	}
	days := tally.ByDay()
	if len(days) != 7 || days[0].Key != "2026-11-01" || days[0].Requests != 1440 || days[6].Key != "2026-11-07" || days[6].Requests != n-6*1440 {
		t.Errorf("days: %+v", days)
	}
	var sum Totals
	for _, r := range tally.ByModel() {
		if r.Requests < n/3 || r.Requests > n/3+1 {
			t.Errorf("model %s: %d requests", r.Key, r.Requests)
		}
		sum.Requests += r.Requests
		sum.Input += r.Input
	}
	if sum.Requests != n || sum.Input != want.Input {
		t.Errorf("the models add up to %+v", sum)
	}
	if agents := tally.ByAgent(); len(agents) != 3 || agents[2].Key == "" {
		t.Errorf("agents: %+v", agents)
	}
	if r := tally.Total.CacheRatio(); r < 0.2 || r > 0.3 {
		t.Errorf("cache ratio %.3f", r)
	}
}

// BenchmarkScanAndTally reads 1 M generated lines from a file the way gw
// usage does (parse, add up by day, model and agent). The baseline is
// counting the lines of the same file with bufio.Scanner: the ratio says
// what parsing and adding cost beyond reading. Then the same over a year
// of realistic lines in rotated files, plain and compressed (see
// usageYear).
func BenchmarkScanAndTally(b *testing.B) {
	path := filepath.Join(b.TempDir(), Name)
	start := time.Date(2025, 11, 1, 0, 0, 0, 0, time.FixedZone("", 3600))
	const n = 1_000_000
	var buf bytes.Buffer
	for i := range n {
		e := genEntry(i, start)
		e.Time = start.Add(time.Duration(i) * 31 * time.Second) // a year
		buf.Write(Append(nil, &e))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	size := buf.Len()
	buf = bytes.Buffer{}
	b.Run("baseline-bufio-line-count", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			s := bufio.NewScanner(f)
			s.Buffer(make([]byte, readBuf), readBuf)
			lines := 0
			for s.Scan() {
				lines++
			}
			f.Close()
			if lines != n {
				b.Fatalf("%d lines", lines)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/line")
	})
	b.Run("scan-and-tally", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			tally, err := tallyOf(path)
			if err != nil {
				b.Fatal(err)
			}
			if tally.Total.Requests != n {
				b.Fatalf("%d requests", tally.Total.Requests)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/line")
	})
	os.Remove(path)
	usageYear(b)
}
