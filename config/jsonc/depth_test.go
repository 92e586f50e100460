package jsonc

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config"
)

// A config of a million "[" (2 MB, under the read cap) is a *ParseError at the bracket that passes the
// limit, in every dialect and through every entry point (Parse, ReadTop, Decode), instead of a stack
// overflow in hujson's recursive parser. Exactly config.MaxDepth levels still parse.
func TestParse_DeeplyNestedIsAParseError(t *testing.T) {
	million := []byte(strings.Repeat("[\n", 1_000_000))
	for name, do := range map[string]func([]byte) error{
		"Parse HuJSON": func(b []byte) error { _, err := Parse(b, HuJSON); return err },
		"Parse plain":  func(b []byte) error { _, err := Parse(b, Dialect{Agent: "X"}); return err },
		"ReadTop":      func(b []byte) error { _, err := ReadTop(b, HuJSON); return err },
		"Decode":       func(b []byte) error { var v any; return Decode(b, &v) },
	} {
		err := do(million)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != config.MaxDepth+1 || pe.Column != 1 || pe.Msg != config.TooDeepMsg {
			t.Errorf("%s: err = %v, want line %d column 1: %s", name, err, config.MaxDepth+1, config.TooDeepMsg)
		}
	}
	// Brackets inside strings and comments do not count; the object around them does.
	ok := "{\"a\": \"" + strings.Repeat("[", 5000) + "\", // " + strings.Repeat("{", 5000) + "\n \"b\": " +
		strings.Repeat("[", config.MaxDepth-1) + strings.Repeat("]", config.MaxDepth-1) + "}"
	if _, err := Parse([]byte(ok), HuJSON); err != nil {
		t.Errorf("%d levels: %v", config.MaxDepth, err)
	}
	tooDeep := strings.Replace(ok, `"b": [`, `"b": [[`, 1) + "]"
	var pe *ParseError
	if _, err := Parse([]byte(tooDeep), HuJSON); !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 7+config.MaxDepth-1 {
		t.Errorf("%d levels: err = %v, want line 2, column %d", config.MaxDepth+1, err, 7+config.MaxDepth-1)
	}
}
