package cmdutil

import (
	"encoding/json"
	"io"
)

// WriteJSON writes v as indented JSON with a trailing newline, HTML characters unescaped.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
