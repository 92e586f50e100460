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
	mu  sync.Mutex
	w   io.Writer
	buf []byte // the line being written, reused: Write must not keep it
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
	b := appendTimestamp(l.buf[:0], end)
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
	b = appendDuration(b, end.Sub(e.start).Round(time.Microsecond))
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
	b = append(b, '\n')
	l.buf = b
	_, _ = l.w.Write(b)
}

// appendTimestamp appends t as "2006-01-02T15:04:05.000Z07:00", what
// t.AppendFormat writes with that layout, without parsing the layout on
// every request.
func appendTimestamp(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	}
	b = append4(b, year)
	b = append(b, '-')
	b = append2(b, int(month))
	b = append(b, '-')
	b = append2(b, day)
	b = append(b, 'T')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, minute)
	b = append(b, ':')
	b = append2(b, sec)
	ms := t.Nanosecond() / 1e6
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	_, offset := t.Zone()
	if offset == 0 {
		return append(b, 'Z')
	}
	sign := byte('+')
	if offset < 0 {
		sign, offset = '-', -offset
	}
	b = append(b, sign)
	b = append2(b, offset/3600)
	b = append(b, ':')
	return append2(b, offset/60%60)
}

func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

func append4(b []byte, n int) []byte {
	return append(b, byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10))
}

// appendDuration appends d as d.String() writes it, without allocating for
// the sub-second durations most requests take.
func appendDuration(b []byte, d time.Duration) []byte {
	if d <= 0 || d >= time.Second || d%time.Microsecond != 0 {
		return append(b, d.String()...)
	}
	if d < time.Millisecond {
		b = strconv.AppendInt(b, int64(d/time.Microsecond), 10)
		return append(b, "µs"...)
	}
	b = strconv.AppendInt(b, int64(d/time.Millisecond), 10)
	if frac := int(d % time.Millisecond / time.Microsecond); frac != 0 {
		digits := 3
		for frac%10 == 0 {
			frac /= 10
			digits--
		}
		b = append(b, '.')
		for i := digits - 1; i >= 0; i-- {
			p := 1
			for range i {
				p *= 10
			}
			b = append(b, byte('0'+frac/p%10))
		}
	}
	return append(b, "ms"...)
}

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
