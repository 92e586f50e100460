package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config"
)

// WriteJSON writes v as indented JSON with a trailing newline, HTML characters unescaped.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WithFixFrom appends the fix of a classified service error as a second line, so a failing command says
// what went wrong and the one thing to do about it; a fix that says to run gw auth login --base-url is
// rewritten to where the base URL really came from, src (see config.FixForSource).
func WithFixFrom(err error, src config.Source) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Fix != "" {
		return fmt.Errorf("%w\nfix: %s", err, config.FixForSource(ae.Fix, src))
	}
	return err
}
