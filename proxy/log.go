package proxy

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// entry is what the request log says about one request. It never holds the
// key, the local token, a query string or a body.
type entry struct {
	start    time.Time
	method   string
	path     string
	status   int
	note     string // why gw answered itself, or how the stream ended
	peer     string // the client's address (host:port), for counting refusals
	model    *modelScanner
	modelID  string // the model of a translated request (model is nil then)
	proto    proto  // the client's protocol
	stream   bool   // answered as a stream
	usage    Usage
	hasUsage bool
}

// logger writes one line per request, in one Write; concurrent requests
// never interleave within a line.
type logger struct {
	mu       sync.Mutex
	w        io.Writer
	buf      []byte      // the line being written, reused: Write must not keep it
	refusals refusalRuns // repeated refusals, counted instead of written
}

func (l *logger) write(e *entry, end time.Time) {
	if l == nil || l.w == nil {
		return
	}
	model := e.modelID
	if e.model != nil {
		model = e.model.Model()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	count := 1
	if refused(e) {
		if l.refusals == nil {
			l.refusals = refusalRuns{}
		}
		var ok bool
		if count, ok = l.refusals.admit(e, end); !ok {
			return
		}
	}
	if len(l.refusals) > 0 {
		l.refusals.due(end, false, l.writeSummary)
	}
	l.writeLine(e, end, model, count)
}

// flush writes the counts of refusals not yet written (gw serve stops).
func (l *logger) flush() {
	if l == nil || l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refusals.due(time.Time{}, true, l.writeSummary)
}

func (l *logger) writeSummary(e *entry, end time.Time, count int) { l.writeLine(e, end, "", count) }

// writeLine writes e's line, which stands for count requests; l.mu is held.
func (l *logger) writeLine(e *entry, end time.Time, model string, count int) {
	b := end.AppendFormat(l.buf[:0], timeLayout)
	b = append(b, ' ')
	b = appendField(b, e.method)
	b = append(b, ' ')
	b = appendField(b, e.path)
	if model != "" {
		b = append(b, " model="...)
		b = appendField(b, model)
	}
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, " dur="...)
	b = append(b, end.Sub(e.start).Round(time.Microsecond).String()...)
	if e.hasUsage {
		b = append(b, " prompt_tokens="...)
		b = strconv.AppendInt(b, e.usage.PromptTokens, 10)
		b = append(b, " completion_tokens="...)
		b = strconv.AppendInt(b, e.usage.CompletionTokens, 10)
	}
	b = append(b, " proto="...)
	b = append(b, e.proto.String()...)
	b = append(b, " stream="...)
	b = strconv.AppendBool(b, e.stream)
	if e.note != "" {
		b = append(b, ' ')
		b = append(b, e.note...)
	}
	b = appendCount(b, count)
	b = append(b, '\n')
	l.buf = b
	_, _ = l.w.Write(b)
}

// timeLayout is the request log's time: RFC 3339 with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// appendField writes client-provided text so it cannot forge a log line:
// quoted when it holds spaces, quotes or control characters, and bounded.
func appendField(b []byte, s string) []byte {
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
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
