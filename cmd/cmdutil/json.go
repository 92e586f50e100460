package cmdutil

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/modelgateway/gw/internal/safetext"
)

// WriteJSON writes v as indented JSON with a trailing newline, HTML characters unescaped, DEL and C1
// characters escaped.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	// DEL and C1 (which the encoder leaves) escaped: JSON printed on a terminal cannot act on it.
	_, err := w.Write(safetext.JSON(buf.Bytes()))
	return err
}
