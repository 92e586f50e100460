package cmdutil

import "strings"

// Wrap joins words with spaces into lines of at most width characters (a word longer than that stands
// alone), each starting with indent: help text whose lists grow with each agent gw supports. A word may
// hold spaces ("Claude Code"): lines break only between words.
func Wrap(words []string, width int, indent string) string {
	var b strings.Builder
	b.WriteString(indent)
	line := len(indent)
	for i, w := range words {
		switch {
		case i == 0:
		case line+1+len(w) > width:
			b.WriteString("\n" + indent)
			line = len(indent)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// ListWords are names as words of a parenthesised list for Wrap: "(a,", "b,", "c)".
func ListWords(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if i == 0 {
			n = "(" + n
		}
		if i < len(names)-1 {
			n += ","
		} else {
			n += ")"
		}
		out[i] = n
	}
	return out
}

// AndList joins names as a sentence lists them: "a, b and c".
func AndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
