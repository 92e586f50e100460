package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

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

// WithFix appends the fix of a classified service error as a second line, so a failing command says what
// went wrong and the one thing to do about it.
func WithFix(err error) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Fix != "" {
		return fmt.Errorf("%w\nfix: %s", err, ae.Fix)
	}
	return err
}

// WithFixFrom is WithFix for a command whose base URL came from src: a fix that says to run
// gw auth login --base-url is rewritten to where the value really comes from (see FixForSource).
func WithFixFrom(err error, src config.Source) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Fix != "" {
		return fmt.Errorf("%w\nfix: %s", err, FixForSource(ae.Fix, src))
	}
	return err
}

const loginFix = "run: gw auth login --base-url "

// FixForSource rewrites a fix that sets the base URL with gw auth login (the service's fixes say that) for a
// base URL that came from elsewhere: GW_BASE_URL overrides the config file that login writes, so the fix is
// to export the corrected value; a --base-url given on the command line is corrected there.
func FixForSource(fix string, src config.Source) string {
	value, ok := strings.CutPrefix(fix, loginFix)
	if !ok {
		return fix
	}
	return BaseURLFix(src, value)
}

// BaseURLFix is how to set the base URL to value, given where the current one came from.
func BaseURLFix(src config.Source, value string) string {
	switch src {
	case config.SourceEnv:
		return "run: export GW_BASE_URL=" + value
	case config.SourceFlag:
		return "run again with --base-url " + value
	}
	return loginFix + value
}
