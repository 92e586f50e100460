package cmdutil

import (
	"strings"
	"unicode/utf8"
)

// Wrap joins words with spaces into lines of at most width characters (a word longer than that stands
// alone), each starting with indent: help text whose lists grow with each agent gw supports. A word may
// hold spaces ("Claude Code"): lines break only between words.
func Wrap(words []string, width int, indent string) string {
	return wrap(words, width, indent, func(w string) int { return len(w) })
}

// wrap is Wrap with a word's width counted by count.
func wrap(words []string, width int, indent string, count func(string) int) string {
	var b strings.Builder
	b.WriteString(indent)
	line := len(indent)
	for i, w := range words {
		n := count(w)
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteString("\n" + indent)
			line = len(indent)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
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

// Reflow fits help text to width columns: a paragraph (lines that start without a space, one after
// another) is joined and wrapped again; an indented line longer than width (a flag, a command, an
// example) is broken between words, its continuation lines starting under its text (a flag's or a
// command's description, else the line's own indent). A word longer than width stands alone.
func Reflow(text string, width int) string {
	var b strings.Builder
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l != "" && l[0] != ' ' && l[0] != '\t' && !strings.HasSuffix(l, ":") {
			para := []string{l}
			for i+1 < len(lines) && lines[i+1] != "" && lines[i+1][0] != ' ' && lines[i+1][0] != '\t' && !strings.HasSuffix(lines[i+1], ":") {
				i++
				para = append(para, lines[i])
			}
			b.WriteString(wrapRunes(strings.Fields(strings.Join(para, " ")), width, ""))
		} else if utf8.RuneCountInString(l) > width {
			col := len(l) - len(strings.TrimLeft(l, " \t"))
			// A flag or a command: its description starts after a run of two spaces or more.
			if j := strings.Index(l[col:], "  "); j > 0 {
				rest := l[col+j:]
				if c := len(l) - len(strings.TrimLeft(rest, " ")); c < width/2 {
					col = c
				}
			}
			hang := strings.Repeat(" ", utf8.RuneCountInString(l[:col]))
			b.WriteString(l[:col] + strings.TrimPrefix(wrapRunes(strings.Fields(l[col:]), width, hang), hang))
		} else {
			b.WriteString(l)
		}
		if i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wrapRunes is Wrap counting characters rather than bytes.
func wrapRunes(words []string, width int, indent string) string {
	return wrap(words, width, indent, utf8.RuneCountInString)
}

// AndList joins names as a sentence lists them: "a, b and c".
func AndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
