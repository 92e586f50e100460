package api

import (
	"fmt"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
)

// Condition is one of the failure conditions of the service's error table,
// or "" for failures the table does not name (rate limits, server errors…).
type Condition string

const (
	KeyRejected        Condition = "key rejected"
	ServiceUnreachable Condition = "service unreachable"
	UnknownModel       Condition = "unknown model"
)

// Message is the client-visible message of the condition, exactly as the
// service's interface specification writes it.
func (c Condition) Message() string {
	switch c {
	case KeyRejected:
		return "API key invalid or unauthorized"
	case ServiceUnreachable:
		return "unable to connect to API"
	case UnknownModel:
		return "model not found / invalid model"
	}
	return ""
}

// Kind is the specific cause behind a failure.
type Kind string

const (
	// Key rejected.
	KindWrongKey     Kind = "wrong_key"
	KindNoBalance    Kind = "no_balance"
	KindKeyOrBalance Kind = "key_or_balance" // refused without saying which
	// Service unreachable.
	KindDNS         Kind = "dns"
	KindRefused     Kind = "refused"
	KindNetwork     Kind = "network" // no route: not connected
	KindTimeout     Kind = "timeout"
	KindTLS         Kind = "tls"
	KindReset       Kind = "reset"
	KindProxy       Kind = "proxy" // the HTTP(S) proxy in between failed
	KindBaseURL     Kind = "base_url"
	KindBadResponse Kind = "bad_response" // an answer that is not the service's
	// Unknown model.
	KindMisspelled    Kind = "misspelled"
	KindNotSubscribed Kind = "not_subscribed"
	// None of the spec's conditions.
	KindServerError Kind = "server_error"
	KindRateLimited Kind = "rate_limited"
	KindCanceled    Kind = "canceled"
	KindOther       Kind = "other"
	// KindContextOverflow: the conversation is longer than the model's
	// context window (Error.Tokens and Error.Limit say by how much, when known).
	KindContextOverflow Kind = "context_overflow"
)

// Error is every failure this package reports. Its text never contains the
// API key.
type Error struct {
	Condition      Condition
	Kind           Kind
	Status         int           // HTTP status, 0 for transport failures
	Code           string        // the service's error code or type, if any
	ServiceMessage string        // the service's own message, trimmed, never containing the key
	Cause          string        // plain words: what exactly went wrong
	Fix            remedy.Remedy // the one thing to do, as data: render.Text says it for where the reader is
	Err            error         // underlying error (transport)

	// A context overflow's counts, 0 when unknown: the tokens the request
	// needed (the service's count; a caller may set its own estimate when the
	// service gave none) and the model's context window.
	Tokens, Limit int
}

// Error returns "<condition message>: <cause>", or only the cause when the
// failure is none of the spec's conditions.
func (e *Error) Error() string {
	if m := e.Condition.Message(); m != "" {
		if e.Cause == "" {
			return m
		}
		return m + ": " + e.Cause
	}
	if e.Cause == "" {
		return string(e.Kind)
	}
	return e.Cause
}

func (e *Error) Unwrap() error { return e.Err }

// Remedy is e.Fix (remedy.Of finds it in a chain of errors).
func (e *Error) Remedy() remedy.Remedy { return e.Fix }

// ExplainedByBaseURL reports whether a wrong base URL explains the failure: nothing at the address, no such
// host, no TLS or another certificate there, an answer that is not the service's. When the base URL in use is
// not the service's published one, the remedy is to go back to that one.
func (e *Error) ExplainedByBaseURL() bool {
	if e.Condition != ServiceUnreachable {
		return false
	}
	switch e.Kind {
	case KindBaseURL, KindBadResponse, KindDNS, KindRefused, KindTLS:
		return true
	}
	return false
}

// clip shortens s to n runes for messages.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n])) + "…"
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }
