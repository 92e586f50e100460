package tomledit

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config"
)

// Arrays and inline tables nested deeper than config.MaxDepth are a *ParseError naming the limit at the
// bracket that passes it, before go-toml (whose own bound is ten times higher) parses anything; the same
// brackets inside strings of every kind and in comments do not count, and table headers do not add up.
func TestParse_DeeplyNestedIsAParseError(t *testing.T) {
	max := config.MaxDepth
	nested := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	quoted := `s1 = "[[[[\"[[[["` + "\n" + `s2 = '[[[['` + "\n" + `s3 = """` + "\n" + `[[[[\"""` + "\n" + `"""` + "\n" +
		"s4 = '''\n{{{{'''\n# [[[[\n[t]\n[[u]]\n"
	for _, c := range []struct {
		name, src string
		line, col int // 0: parses
	}{
		{"arrays at the limit", quoted + "a = " + nested("[", "]", max), 0, 0},
		{"inline tables at the limit", quoted + "a = " + nested("{b = ", "}", max), 0, 0},
		{"arrays past it", quoted + "a = " + nested("[", "]", max+1), 11, 5 + max},
		{"inline tables past it", quoted + "a = " + nested("{b = ", "}", max+1), 11, 5 + 5*max},
		{"a million", "a = " + strings.Repeat("[", 1_000_000), 1, 5 + max},
	} {
		_, err := Parse([]byte(c.src))
		var pe *ParseError
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.line != 0 && (!errors.As(err, &pe) || pe.Line != c.line || pe.Column != c.col || pe.Msg != config.TooDeepMsg):
			t.Errorf("%s: err = %v, want line %d, column %d: %s", c.name, err, c.line, c.col, config.TooDeepMsg)
		}
	}
}
