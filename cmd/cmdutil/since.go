package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads a --since value: a Go duration (90m, 12h) or a number of
// days or weeks (7d, 2w), which Go's durations lack.
func ParseSince(s string) (time.Duration, error) {
	bad := fmt.Errorf("--since %q: give a duration such as 30m, 12h, 7d or 2w", s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v <= 0 || v > 100*365 {
				return 0, bad
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, bad
	}
	return d, nil
}
