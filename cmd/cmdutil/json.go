package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
)

// WriteJSON writes v as indented JSON with a trailing newline, HTML characters unescaped.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WithFixFrom appends the fix of a classified service error as a second line, so a failing command says
// what went wrong and the one thing to do about it; the fix is rewritten for where the base URL (src) and
// the key (keySrc; "" when no stored key is involved) really came from (config.FixForSource,
// keychain.FixForKeySource).
func WithFixFrom(err error, src config.Source, keySrc keychain.Source) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Fix != "" {
		return fmt.Errorf("%w\nfix: %s", err, keychain.FixForKeySource(config.FixForSource(ae.Fix, src), keySrc))
	}
	return err
}
