// Package tokens writes token counts the way gw shows them to a user: gw models' context column, the
// model picker, gw usage's totals and gw statusline. One place, so the four say a count alike.
package tokens

import (
	"strconv"
	"strings"
)

// Format writes a token count briefly: 1000000 → "1M", 1048576 → "1M", 1500000 → "1.5M", 200000 → "200K",
// 500 → "500", 0 or less (unknown) → "".
func Format(tokens int) string {
	switch {
	case tokens <= 0:
		return ""
	case tokens >= 999_500: // rounds to at least 1000K: say 1M
		v := strconv.FormatFloat(float64(tokens)/1_000_000, 'f', 1, 64)
		return strings.TrimSuffix(v, ".0") + "M"
	case tokens >= 1_000:
		return strconv.Itoa((tokens+500)/1_000) + "K"
	default:
		return strconv.Itoa(tokens)
	}
}
