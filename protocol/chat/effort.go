package chat

// Effort is the reasoning_effort a chat request carries for an agent's
// effort level, one the service's reasoning models take: low, medium or
// high. The levels past high (Anthropic's max, OpenAI's xhigh) become
// high, the levels under low (OpenAI's minimal and none) low, since the
// catalogue's reasoning models always think; "" for a level no API names
// (the field is then left out, and the model thinks as it does by
// default).
func Effort(level string) string {
	switch level {
	case "low", "medium", "high":
		return level
	case "max", "xhigh":
		return "high"
	case "minimal", "none":
		return "low"
	}
	return ""
}
