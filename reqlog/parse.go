package reqlog

import (
	"bytes"
	"strconv"
	"time"
)

// Parser reads lines of the request log. It keeps the few distinct texts a
// log repeats (methods, paths, agents, models) so that reading a year of
// lines does not allocate a string per field. Not safe for concurrent use.
type Parser struct {
	texts map[string]string
	zones map[int]*time.Location
}

// maxTexts bounds what a Parser keeps: a log of hostile paths allocates
// per line past it instead of growing without end.
const maxTexts = 4096

func (p *Parser) text(b []byte) string {
	if s, ok := p.texts[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.texts == nil {
		p.texts = make(map[string]string)
	}
	if len(p.texts) < maxTexts {
		p.texts[s] = s
	}
	return s
}

// Parse reads one line (without its newline) into e and reports whether it
// is a request line; other lines (gw serve's own notes, a line cut short)
// are not.
func (p *Parser) Parse(line []byte, e *Entry) bool {
	*e = Entry{}
	t, rest, ok := p.parseTime(line)
	if !ok {
		return false
	}
	e.Time = t
	var tok []byte
	var quoted bool
	if tok, quoted, rest = nextToken(rest); tok == nil {
		return false
	}
	e.Method = p.field(tok, quoted)
	if tok, quoted, rest = nextToken(rest); tok == nil {
		return false
	}
	e.Path = p.field(tok, quoted)
	var status, proto bool
	var note []byte
	for {
		var raw []byte
		raw, quoted, rest = nextToken(rest)
		if raw == nil {
			break
		}
		i := bytes.IndexByte(raw, '=')
		if i < 0 {
			if n, ok := bytes.CutPrefix(raw, times); ok {
				if c, err := strconv.Atoi(string(n)); err == nil && c > 1 {
					e.Count = c
					continue
				}
			}
			note = appendNote(note, raw)
			continue
		}
		k, v := raw[:i], raw[i+1:]
		switch string(k) {
		case "agent":
			e.Agent = p.field(v, quoted)
		case "model":
			e.Model = p.field(v, quoted)
		case "status":
			n, ok := atoi(v)
			if !ok {
				return false
			}
			e.Status, status = int(n), true
		case "condition":
			e.Condition = p.field(v, quoted)
		case "dur":
			e.Dur = parseDur(v)
		case "prompt_tokens":
			e.Input, _ = atoi(v)
			e.HasUsage = true
		case "cached_tokens":
			e.Cached, _ = atoi(v)
		case "completion_tokens":
			e.Output, _ = atoi(v)
			e.HasUsage = true
		case "reasoning_tokens":
			e.Reasoning, _ = atoi(v)
		case "proto":
			e.Proto, proto = p.text(v), true
		case "stream":
			e.Stream = string(v) == "true"
		default:
			note = appendNote(note, raw)
		}
	}
	if len(note) > 0 {
		e.Note = string(note)
	}
	return status && proto
}

var times = []byte("×")

func appendNote(note, tok []byte) []byte {
	if len(note) > 0 {
		note = append(note, ' ')
	}
	return append(note, tok...)
}

// field is a field's text: unquoted when it was written quoted.
func (p *Parser) field(b []byte, quoted bool) string {
	if !quoted {
		return p.text(b)
	}
	if i := bytes.IndexByte(b, '"'); i >= 0 {
		if s, err := strconv.Unquote(string(b[i:])); err == nil {
			return s
		}
	}
	return string(b)
}

// nextToken splits off the next space-separated token of b; a token whose
// value is a quoted string (`"a b"`, `model="a b"`) runs to its closing
// quote. It returns nil at the end of b.
func nextToken(b []byte) (tok []byte, quoted bool, rest []byte) {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	if len(b) == 0 {
		return nil, false, nil
	}
	i := 0
	for i < len(b) && b[i] != ' ' {
		if b[i] == '"' && (i == 0 || b[i-1] == '=') {
			quoted = true
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i < len(b) {
				i++
			}
			continue
		}
		i++
	}
	if i > len(b) {
		i = len(b)
	}
	return b[:i], quoted, b[i:]
}

// atoi reads a non-negative decimal number.
func atoi(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseTime reads TimeLayout at the start of line without time.Parse,
// which costs more than the rest of the line.
func (p *Parser) parseTime(line []byte) (time.Time, []byte, bool) {
	// 2006-01-02T15:04:05.000 then Z or ±hh:mm, then a space.
	const base = len("2006-01-02T15:04:05.000")
	if len(line) < base+2 || line[4] != '-' || line[7] != '-' || line[10] != 'T' ||
		line[13] != ':' || line[16] != ':' || line[19] != '.' {
		return time.Time{}, nil, false
	}
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	y, mo, d := num(line[0:4]), num(line[5:7]), num(line[8:10])
	h, mi, s, ms := num(line[11:13]), num(line[14:16]), num(line[17:19]), num(line[20:23])
	if y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60 || ms < 0 {
		return time.Time{}, nil, false
	}
	rest := line[base:]
	offset := 0
	switch {
	case rest[0] == 'Z':
		rest = rest[1:]
	case len(rest) >= 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, om := num(rest[1:3]), num(rest[4:6])
		if oh < 0 || om < 0 || oh > 23 || om > 59 {
			return time.Time{}, nil, false
		}
		offset = oh*3600 + om*60
		if rest[0] == '-' {
			offset = -offset
		}
		rest = rest[6:]
	default:
		return time.Time{}, nil, false
	}
	if len(rest) == 0 || rest[0] != ' ' {
		return time.Time{}, nil, false
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, ms*1e6, p.zone(offset)), rest, true
}

// zone is a fixed zone for an offset: lines keep the offset they were
// written with, so a day in gw usage is the writer's day.
func (p *Parser) zone(offset int) *time.Location {
	if offset == 0 {
		return time.UTC
	}
	if z, ok := p.zones[offset]; ok {
		return z
	}
	if p.zones == nil {
		p.zones = make(map[int]*time.Location)
	}
	z := time.FixedZone("", offset)
	if len(p.zones) < 64 {
		p.zones[offset] = z
	}
	return z
}

// parseDur reads a duration as Duration.String writes it (850ms, 3.2s,
// 2m5s, 1.5µs) without the allocation time.ParseDuration makes of a []byte;
// 0 when it is not one.
func parseDur(b []byte) time.Duration {
	var d time.Duration
	for len(b) > 0 {
		i := 0
		var whole, frac, scale int64 = 0, 0, 1
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			whole = whole*10 + int64(b[i]-'0')
			i++
		}
		if i < len(b) && b[i] == '.' {
			i++
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				if scale < 1e9 {
					frac, scale = frac*10+int64(b[i]-'0'), scale*10
				}
				i++
			}
		}
		if i == 0 || i > 20 {
			return 0
		}
		b = b[i:]
		var unit time.Duration
		switch {
		case len(b) >= 1 && b[0] == 'h':
			unit, b = time.Hour, b[1:]
		case len(b) >= 2 && b[0] == 'm' && b[1] == 's':
			unit, b = time.Millisecond, b[2:]
		case len(b) >= 1 && b[0] == 'm':
			unit, b = time.Minute, b[1:]
		case len(b) >= 1 && b[0] == 's':
			unit, b = time.Second, b[1:]
		case len(b) >= 2 && b[0] == 'n' && b[1] == 's':
			unit, b = time.Nanosecond, b[2:]
		case len(b) >= 2 && b[0] == 'u' && b[1] == 's':
			unit, b = time.Microsecond, b[2:]
		case len(b) >= 3 && string(b[:3]) == "µs":
			unit, b = time.Microsecond, b[3:]
		default:
			return 0
		}
		d += time.Duration(whole)*unit + time.Duration(frac)*unit/time.Duration(scale)
	}
	return d
}
