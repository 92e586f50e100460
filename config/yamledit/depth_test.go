package yamledit

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config"
)

// Sequences and mappings nested deeper than config.MaxDepth, in flow or block style, are a *ParseError
// naming the limit (the decoder alone would take ten times as many levels, and a million "[" gets its
// own refusal reworded the same way); exactly config.MaxDepth levels parse, and brackets in quoted
// strings and comments do not count.
func TestParse_DeeplyNestedIsAParseError(t *testing.T) {
	max := config.MaxDepth
	flow := func(n int) string { return "a: " + strings.Repeat("[", n-1) + "1" + strings.Repeat("]", n-1) + "\n" }
	block := func(n int) string {
		var b strings.Builder
		for i := range n - 1 {
			b.WriteString(strings.Repeat(" ", i) + "k:\n")
		}
		return b.String() + strings.Repeat(" ", n-1) + "k: 1\n"
	}
	quoted := "s: \"" + strings.Repeat("[", 5000) + "\" # " + strings.Repeat("{", 5000) + "\n"
	for _, c := range []struct {
		name, src string
		line, col int // 0: parses
	}{
		{"flow at the limit", quoted + flow(max), 0, 0},
		{"block at the limit", quoted + block(max), 0, 0},
		{"flow past it", quoted + flow(max+1), 2, 4 + max - 1},
		{"block past it", quoted + block(max+1), 2 + max, max + 1},
		{"a million", "a: " + strings.Repeat("[", 1_000_000), 1, 1},
	} {
		_, err := Parse([]byte(c.src), "X")
		var pe *ParseError
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.line != 0 && (!errors.As(err, &pe) || pe.Line != c.line || pe.Column != c.col || pe.Msg != config.TooDeepMsg):
			t.Errorf("%s: err = %v, want line %d, column %d: %s", c.name, err, c.line, c.col, config.TooDeepMsg)
		}
	}
}
