// Package reqlog is gw serve's request log: the line it writes for each
// request, the file those lines go to (rotated, the older files
// gzip-compressed, bounded on disk, shared by every gw serve of the user),
// and the reader gw logs, gw usage and gw statusline use, which reads the
// compressed files as they are decompressed. A line
// never holds the key, the local token, a query string or a body.
//
// A line is the time the answer ended, the method and path, then key=value
// fields and gw's notes:
//
//	2026-11-21T06:05:40.998+01:00 POST /v1/messages agent=claude-code model=vendor-a/model-a-sonnet-4.5 status=200 dur=3s prompt_tokens=5 cached_tokens=2 completion_tokens=6 proto=messages stream=true
//
// It stays readable on gw serve's terminal and is parsed without a
// general-purpose decoder.
package reqlog

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Name is the request log's file in gw's state directory.
const Name = "serve.log"

// TimeLayout is a line's time: RFC 3339 with milliseconds, the writer's zone.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Conditions of a failed request, as the service's error table names them.
const (
	KeyRejected        = "key_rejected"
	ServiceUnreachable = "service_unreachable"
	UnknownModel       = "unknown_model"
)

// Entry is one line of the request log.
type Entry struct {
	Time   time.Time
	Method string
	Path   string
	Agent  string // claude-code, codex, …; "" when not known
	Model  string
	Status int
	// Condition is the service's failure condition (KeyRejected,
	// ServiceUnreachable, UnknownModel), "" for any other outcome.
	Condition string
	Dur       time.Duration
	// Tokens as the service reported them; HasUsage is false when it did not.
	HasUsage  bool
	Input     int64 // prompt tokens, cached ones included
	Cached    int64 // prompt tokens read from the service's cache
	Output    int64 // completion tokens, reasoning ones included
	Reasoning int64
	Proto     string // chat, messages, responses, gemini
	Stream    bool
	Note      string // gw's notes: refused=…, rejected=…, aborted=…
	Count     int    // requests the line stands for (repeated refusals); 0 or 1: one
}

// Requests is the number of requests the line stands for.
func (e *Entry) Requests() int {
	if e.Count > 1 {
		return e.Count
	}
	return 1
}

// IsProbePath reports whether path is one a client asks, without a token,
// to learn whether anything answers at its base URL (Claude Code sends
// HEAD /api/hello at start): /api/hello, /health or /healthz. gw serve
// answers a GET or HEAD of one itself, and the line is a probe (Entry.Probe).
func IsProbePath(path string) bool {
	switch path {
	case "/api/hello", "/health", "/healthz":
		return true
	}
	return false
}

// Probe reports whether the line is a probe rather than a request for the
// service: gw's own check of a gw serve (note probe or hello), or a
// client's check that something answers (a GET or HEAD of a path
// IsProbePath names, which earlier versions of gw serve refused for want of
// a token: those lines are probes too, other refusals are not). Probes are
// not counted in gw usage, and gw logs shows them only when asked.
func (e *Entry) Probe() bool {
	switch e.Note {
	case "probe", "hello":
		return true
	case "", "refused=local_token_missing":
		return (e.Method == "HEAD" || e.Method == "GET") && e.Model == "" && IsProbePath(e.Path)
	}
	return false
}

// maxField bounds a field that comes from a client (path, model, agent).
const maxField = 200

// Append appends e's line, newline included, to b.
func Append(b []byte, e *Entry) []byte {
	b = e.Time.AppendFormat(b, TimeLayout)
	b = append(b, ' ')
	b = AppendField(b, e.Method)
	b = append(b, ' ')
	b = AppendField(b, e.Path)
	if e.Agent != "" {
		b = append(b, " agent="...)
		b = AppendField(b, e.Agent)
	}
	if e.Model != "" {
		b = append(b, " model="...)
		b = AppendField(b, e.Model)
	}
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	if e.Condition != "" {
		b = append(b, " condition="...)
		b = AppendField(b, e.Condition)
	}
	b = append(b, " dur="...)
	b = append(b, e.Dur.Round(time.Microsecond).String()...)
	if e.HasUsage {
		b = append(b, " prompt_tokens="...)
		b = strconv.AppendInt(b, e.Input, 10)
		if e.Cached > 0 {
			b = append(b, " cached_tokens="...)
			b = strconv.AppendInt(b, e.Cached, 10)
		}
		b = append(b, " completion_tokens="...)
		b = strconv.AppendInt(b, e.Output, 10)
		if e.Reasoning > 0 {
			b = append(b, " reasoning_tokens="...)
			b = strconv.AppendInt(b, e.Reasoning, 10)
		}
	}
	b = append(b, " proto="...)
	b = append(b, e.Proto...)
	b = append(b, " stream="...)
	b = strconv.AppendBool(b, e.Stream)
	if e.Note != "" {
		b = append(b, ' ')
		b = append(b, e.Note...)
	}
	if e.Count > 1 {
		b = append(b, " ×"...)
		b = strconv.AppendInt(b, int64(e.Count), 10)
	}
	return append(b, '\n')
}

// AppendField writes client-provided text so it cannot forge a line or a
// field: quoted when it holds spaces, quotes, '=' or control characters,
// and bounded.
func AppendField(b []byte, s string) []byte {
	if len(s) > maxField {
		s = s[:maxField] + "…"
	}
	if s != "" && plainField(s) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

// plainField reports whether s can be logged unquoted: printable, without
// spaces, quotes or '='. ASCII is checked byte by byte, the rest by rune.
func plainField(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return strings.IndexFunc(s[i:], func(r rune) bool {
				return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' || r == '='
			}) < 0
		}
		if c <= ' ' || c == 0x7f || c == '"' || c == '=' {
			return false
		}
	}
	return true
}
