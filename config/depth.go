package config

import "fmt"

// MaxDepth is how deeply arrays and objects (TOML's tables, YAML's mappings) may be nested in a config
// file gw parses: its own and every agent's. No real config comes near it; a file a repository ships
// with a million "[" would otherwise take the recursive parsers past the stack's limit, and gw with it.
// Each format's parser checks it before building anything.
const MaxDepth = 1000

// TooDeepMsg is the message of a config nested deeper than MaxDepth, for the parse error that also
// carries the file's name and the line and column where the limit was passed.
var TooDeepMsg = fmt.Sprintf("arrays and objects are nested deeper than %d levels, more than any config needs; check that it is the right file", MaxDepth)

// JSONDepth scans src, JSON with or without comments, for arrays and objects nested deeper than max,
// without parsing it: it knows strings (and their escapes) and // and /* */ comments, and nothing
// else, so that it runs in constant memory on any input. It returns the offset of the bracket that
// passes max, or -1. What is not valid JSON is left to the parser to report.
func JSONDepth(src []byte, max int) int {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '/':
			switch {
			case i+1 < len(src) && src[i+1] == '/':
				for i < len(src) && src[i] != '\n' {
					i++
				}
			case i+1 < len(src) && src[i+1] == '*':
				for i += 2; i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/'); i++ {
				}
				i++
			}
		case '[', '{':
			if depth++; depth > max {
				return i
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return -1
}
