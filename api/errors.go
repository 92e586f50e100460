// Package api is the one client of the hosted Model Gateway Service: its
// HTTP transport, the model list, the built-in model catalogue and the single
// classification of every failure into the three conditions the service's
// users are told about.
package api

import (
	"fmt"
	"strings"
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
)

// Error is every failure this package reports. Its text never contains the
// API key.
type Error struct {
	Condition      Condition
	Kind           Kind
	Status         int    // HTTP status, 0 for transport failures
	Code           string // the service's error code or type, if any
	ServiceMessage string // the service's own message, trimmed, never containing the key
	Cause          string // plain words: what exactly went wrong
	Fix            string // one concrete action, a command where there is one
	Err            error  // underlying error (transport)
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

// Fixes shared by several kinds. Commands are the ones of the gw CLI.
const (
	fixWrongKey     = "create a new key on the dashboard and run: gw auth login (if the key is right, check the balance: some services refuse an empty account the same way)"
	fixNoBalance    = "top up the account's balance on the dashboard, then retry (the key itself is fine)"
	fixKeyOrBalance = "check the balance on the dashboard; if it is positive, create a new key and run: gw auth login"
	fixNotListed    = "run: gw models (and use an id exactly as listed there)"
	fixDoctor       = "retry in a moment; if it keeps failing, run: gw doctor"
)

// fixBaseURL names the canonical base URL when it is known.
func fixBaseURL(canonical string) string {
	if canonical != "" {
		return "run: gw auth login --base-url " + canonical
	}
	return "run: gw auth login --base-url <the service's address from the dashboard, ending in /v1>"
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
