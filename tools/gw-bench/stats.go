package main

import (
	"fmt"
	"slices"
	"time"
)

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "−" + fmtDur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	default:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
}

// rotate starts round r at a different path, so that no path always runs
// right after the same other one (whose after-effects, such as garbage to
// collect or a busy CPU, would always fall on it).
func rotate(ts []*target, r int) []*target {
	k := r % len(ts)
	return append(slices.Clone(ts[k:]), ts[:k]...)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fmtSpread is "median× [lowest – highest]".
func fmtSpread(xs []float64) string {
	return fmt.Sprintf("%.2f× [%.2f – %.2f]", median(xs), slices.Min(xs), slices.Max(xs))
}

func fmtMB(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
