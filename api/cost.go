package api

import "strings"

// CostRank orders model ids by what a request to them likely costs and how long it takes, from the words
// in their names, since the service publishes no prices: 0 the small, fast ones (haiku, flash, mini, nano,
// lite), 2 the largest (opus, pro, ultra, max), 1 the rest (sonnet, and names that say neither); a
// "thinking" variant ranks one higher than its plain model.
func CostRank(id string) int {
	name := strings.ToLower(id[strings.LastIndexByte(id, '/')+1:])
	rank, thinking := 1, 0
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '.' || r == '_' || r == ':' }) {
		switch w {
		case "haiku", "flash", "mini", "nano", "lite", "small":
			rank = 0
		case "opus", "pro", "ultra", "max", "large":
			rank = 2
		case "thinking":
			thinking = 1
		}
	}
	return rank + thinking
}

// Cheapest is the id of ids a careful user would spend the least on (the lowest CostRank, the first of
// those as listed: the service lists a family's newest first); "" when ids is empty.
func Cheapest(ids []string) string {
	best := ""
	for _, id := range ids {
		if best == "" || CostRank(id) < CostRank(best) {
			best = id
		}
	}
	return best
}

// Balanced is the id of ids a careful user would make an agent's default: the first of the middle rank
// (a Sonnet, not an Opus), else the cheapest; "" when ids is empty.
func Balanced(ids []string) string {
	for _, id := range ids {
		if CostRank(id) == 1 {
			return id
		}
	}
	return Cheapest(ids)
}
