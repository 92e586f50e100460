package cmdutil

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// maxSince is the longest --since: 100 years, past which a time reaches back before any log (and a
// week count overflows a duration).
const maxSince = 36500 * 24 * time.Hour

// ParseSince reads a --since value: a Go duration (90m, 12h) or a number of
// days or weeks (7d, 2w), which Go's durations lack; more than 0 and at most
// 100 years (36500d). Not a number (NaN, Inf) is a bad spelling.
func ParseSince(s string) (time.Duration, error) {
	bad := fmt.Errorf("--since %q: give a duration such as 30m, 12h, 7d or 2w", s)
	tooLong := fmt.Errorf("--since %q: give a duration of at most 100 years (36500d)", s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			switch {
			case errors.Is(err, strconv.ErrRange) && v > 0:
				return 0, tooLong // 1e400d
			case err != nil, math.IsNaN(v), math.IsInf(v, 0), v <= 0:
				return 0, bad
			case v*float64(unit) > float64(maxSince):
				return 0, tooLong
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil || d <= 0:
		return 0, bad
	case d > maxSince:
		return 0, tooLong
	}
	return d, nil
}
