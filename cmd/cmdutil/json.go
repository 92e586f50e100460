package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelgateway/gw/api"
)

// WriteJSON writes v as indented JSON with a trailing newline, HTML characters unescaped.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WithFix appends the fix of a classified service error as a second line, so a failing command says what
// went wrong and the one thing to do about it.
func WithFix(err error) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Fix != "" {
		return fmt.Errorf("%w\nfix: %s", err, ae.Fix)
	}
	return err
}
