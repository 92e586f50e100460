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
	start  time.Time
	method string
	path   string
	status int
	note   string // why gw answered itself, or how the stream ended
	model  *modelScanner
	usage  *Usage
}

// logger writes one line per request; concurrent requests never interleave
// within a line.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) write(e *entry, end time.Time) {
	if l == nil || l.w == nil {
		return
	}
	b := make([]byte, 0, 192)
	b = end.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, ' ')
	b = appendField(b, e.method)
	b = append(b, ' ')
	b = appendField(b, e.path)
	if e.model != nil {
		if m := e.model.Model(); m != "" {
			b = append(b, " model="...)
			b = appendField(b, m)
		}
	}
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, " dur="...)
	b = append(b, end.Sub(e.start).Round(time.Microsecond).String()...)
	if e.usage != nil {
		b = append(b, " prompt_tokens="...)
		b = strconv.AppendInt(b, e.usage.PromptTokens, 10)
		b = append(b, " completion_tokens="...)
		b = strconv.AppendInt(b, e.usage.CompletionTokens, 10)
	}
	if e.note != "" {
		b = append(b, ' ')
		b = append(b, e.note...)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(b)
}

// appendField writes client-provided text so it cannot forge a log line:
// quoted when it holds spaces, quotes or control characters, and bounded.
func appendField(b []byte, s string) []byte {
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' || r == '='
	}) < 0 {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}
