// Package defaults fills in the settings a caller left unset.
package defaults

import "time"

// Positive is v when it is above zero, else d: a zero or negative setting takes its default.
func Positive[T int | int64 | time.Duration](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}
