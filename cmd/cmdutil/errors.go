// Package cmdutil holds what every command shares: the Factory of dependencies, the typed errors that
// root.Main turns into exit codes, and what several commands say or read alike: help text wrapping,
// completions, --since, the model list with its flag errors, and what keeps gw serve running (LoginService).
//
// The Factory is built once per run (root.Main) and holds no global state. A command does not keep it: its
// NewCmdX hands the options struct the functions the command uses (IO, Config, ResolveBaseURL, Key, API…),
// so the options say what a command may touch and a test fakes only that. The key is found by one policy,
// Factory.Key (GW_API_KEY › the OS keychain › the insecure file while the user chose it), whose variants
// are KeyOptions.
//
// Errors: FlagError (exit 2), NoKeyError (exit 4), ErrSilent (already said), ErrCancel (exit 3),
// ExitStatusError (gw run's agent's status); ExitCodeFor decides by type only, never by an error's words,
// and maps the TUI's esc and ctrl-c. ErrorWithFix is the one rendering of a failure: its message, "fix: …"
// when it carries a remedy (said for where its base URL and key came from: WithFixFrom), and "(nothing was
// changed)" when it says so (NothingChanged). Commands build neither line by hand.
package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/tui"
)

// ExitCode is the process exit status. root.Main is the only place errors become exit codes.
type ExitCode int

const (
	ExitOK          ExitCode = 0
	ExitError       ExitCode = 1 // a failure, explained on stderr (or in the printed report)
	ExitUsage       ExitCode = 2 // bad flags or arguments
	ExitCancel      ExitCode = 3 // the user cancelled an interactive prompt (esc)
	ExitAuth        ExitCode = 4 // no API key given or stored
	ExitInterrupted ExitCode = 130
)

// ExitCodesHelp documents the codes; `gw help exit-codes` prints it.
const ExitCodesHelp = `gw exits with:

  0    success
  1    failure: the message (or the report of gw doctor) says which and what to do
  2    usage error: an unknown command or flag, or a bad flag value
  3    cancelled: esc in an interactive picker
  4    no API key: none given to gw auth login, or none stored when a command needs one
  130  interrupted: ctrl-c in an interactive picker

gw run exits with the agent's own status (128+N when signal N ended it).
`

// FlagError is a usage error: exit code 2.
type FlagError struct {
	Err error
	// Help: the error does not say what to do (an unknown flag), so the
	// command's --help is pointed at after it. Most usage errors name the
	// fix themselves, and a line more would only bury it.
	Help bool
}

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf builds a usage error.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// ErrSilent means the command already printed what went wrong (a report, a checklist): exit 1, nothing more.
var ErrSilent = errors.New("silent error")

// ErrCancel means the user declined to go on (answered no to a confirmation): exit 3, nothing more printed.
// Esc in a picker (tui.ErrCancelled) exits 3 the same way; commands return the TUI's errors as they are.
var ErrCancel = errors.New("cancelled")

// NoKeyError means there is no API key where one is needed: exit 4. Fix, when set, is the one thing to do,
// printed on a second line (FixFor).
type NoKeyError struct {
	Msg string
	Fix remedy.Remedy
}

func (e *NoKeyError) Error() string         { return e.Msg }
func (e *NoKeyError) Remedy() remedy.Remedy { return e.Fix }

// WithFixFrom is err with where the base URL (src) and the key (keySrc; "" when no stored key is involved)
// came from, so that the fix of err's remedy is said for them (FixFor): GW_BASE_URL, --base-url and
// GW_API_KEY override what gw auth login stores.
func WithFixFrom(err error, src config.Source, keySrc keychain.Source) error {
	if err == nil {
		return nil
	}
	return &sourcedError{err: err, base: src.Fix(), key: keySrc.Fix()}
}

type sourcedError struct {
	err  error
	base remedy.Source
	key  remedy.Source
}

func (e *sourcedError) Error() string { return e.err.Error() }
func (e *sourcedError) Unwrap() error { return e.err }

// ErrorWithFix is err as gw prints it: its message; the one thing to do about it on a line of its own
// ("fix: …", FixFor) when err carries a remedy; and "(nothing was changed)" last when err says so
// (NothingChanged). root.Run prints every error through it, so no command builds these lines by hand.
func ErrorWithFix(err error) string {
	s := err.Error()
	if fix := FixFor(err); fix != "" {
		s += "\nfix: " + fix
	}
	if errors.As(err, new(*unchangedError)) {
		s += "\n(nothing was changed)"
	}
	return s
}

// OneLine is err for a command whose reader shows one line of it (an agent showing what its credential
// command said): root.Run prints its message and fix on one line, "; " between them.
func OneLine(err error) error {
	if err == nil {
		return nil
	}
	return &oneLineError{err: err}
}

type oneLineError struct{ err error }

func (e *oneLineError) Error() string { return e.err.Error() }
func (e *oneLineError) Unwrap() error { return e.err }

// ErrorLine is ErrorWithFix(err) on one line when err is OneLine, as it is.
func ErrorLine(err error) string {
	s := ErrorWithFix(err)
	if errors.As(err, new(*oneLineError)) {
		s = strings.ReplaceAll(s, "\n", "; ")
	}
	return s
}

// NothingChanged is err for a command that stopped before it wrote anything: ErrorWithFix says
// "(nothing was changed)" under it (and under its fix, when err carries a remedy). Its message, exit code
// and remedy are err's.
func NothingChanged(err error) error {
	if err == nil {
		return nil
	}
	return &unchangedError{err: err}
}

type unchangedError struct{ err error }

func (e *unchangedError) Error() string { return e.err.Error() }
func (e *unchangedError) Unwrap() error { return e.err }

// FixFor is the one thing to do about err, in words for a command's "fix:" line: the remedy err carries
// (remedy.Of), said for where its base URL and key came from (WithFixFrom); "" when err carries none.
// root.Run prints it under the error.
func FixFor(err error) string {
	r, ok := remedy.Of(err)
	if !ok {
		return ""
	}
	ctx := render.Context{Where: render.Command}
	var s *sourcedError
	if errors.As(err, &s) {
		ctx.BaseURL, ctx.Key = s.base, s.key
	}
	return render.Text(r, ctx)
}

// ExitStatusError is the exit status of a program gw ran for the user (gw run): gw exits with it and
// prints nothing, the program having said what it had to.
type ExitStatusError struct{ Code ExitCode }

func (e *ExitStatusError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCodeFor maps an error to its exit code, by type only: the words of an error (a service's message may
// say "accepts" or "invalid argument") never make it a usage error.
func ExitCodeFor(err error) ExitCode {
	var fe *FlagError
	var nk *NoKeyError
	var es *ExitStatusError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &es):
		return es.Code
	case errors.As(err, &fe):
		return ExitUsage
	case errors.As(err, &nk):
		return ExitAuth
	case errors.Is(err, ErrCancel), errors.Is(err, tui.ErrCancelled):
		return ExitCancel
	case errors.Is(err, tui.ErrInterrupted):
		return ExitInterrupted
	default:
		return ExitError
	}
}
