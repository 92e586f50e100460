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
// general-purpose decoder. Every value that comes from outside (a path, a
// model, an agent, a note's value) is written as data: quoted, its control
// characters escaped, so that it can forge neither a line nor a field.
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
		b = appendNotes(b, e.Note)
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

// Note is one word of a line's notes, key=value, its value written as
// AppendField writes a field: whatever the value (a tool's type, a field the
// service refused), it stays one word of one line.
func Note(key, value string) string {
	return key + "=" + string(AppendField(nil, value))
}

// lineKeys are the fields of a line, which no note may spell.
var lineKeys = map[string]bool{"agent": true, "model": true, "status": true, "condition": true, "dur": true,
	"prompt_tokens": true, "cached_tokens": true, "completion_tokens": true, "reasoning_tokens": true,
	"proto": true, "stream": true}

// appendNotes appends the words of note. A word that is not gw's own shape
// (a key of lower-case letters and '_', not one of the line's fields, then
// '=' and a value as AppendField writes it; or such a key alone) is written
// quoted whole, so that nothing a note carries can forge a field, a line
// or a control sequence, however it reached the note.
func appendNotes(b []byte, note string) []byte {
	for rest := []byte(note); ; {
		var tok []byte
		if tok, _, rest = nextToken(rest); tok == nil {
			return b
		}
		b = append(b, ' ')
		if noteWord(string(tok)) {
			b = append(b, tok...)
		} else {
			b = strconv.AppendQuote(b, string(tok))
		}
	}
}

func noteWord(w string) bool {
	k, v, eq := strings.Cut(w, "=")
	if k == "" || lineKeys[k] {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	switch {
	case !eq:
		return true
	case plainField(v):
		return true
	case len(v) >= 2 && v[0] == '"':
		u, err := strconv.Unquote(v)
		return err == nil && strconv.Quote(u) == v
	}
	return false
}
