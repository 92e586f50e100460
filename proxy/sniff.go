package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"sync/atomic"
)

// maxSniffLine bounds the copy kept of one SSE line (or of a whole JSON
// body). Usage chunks are a few hundred bytes; longer lines are content and
// are passed on without being inspected.
const maxSniffLine = 64 << 10

// Usage is the token count a response reported.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
}

// usageReader passes a response body through unchanged and, on the side,
// looks for the OpenAI usage object: in SSE mode in each "data:" line as it
// goes by, otherwise in the whole (small) JSON body at its end. Nothing is
// held back: every Read returns what the upstream sent. Lines and bodies
// that arrive whole in one Read, the common case, are inspected where they
// lie, without a copy.
type usageReader struct {
	io.ReadCloser
	sse  bool
	e    *entry // receives the usage
	want int64  // JSON: the body's length, -1 when not known
	line []byte // SSE: the start of a line split across reads; JSON: the body so far
	over bool   // line outgrew maxSniffLine: not inspected
	done bool   // JSON: inspected already
}

func (u *usageReader) Read(p []byte) (int, error) {
	n, err := u.ReadCloser.Read(p)
	if n > 0 {
		if u.sse {
			u.feedLines(p[:n])
		} else {
			u.feedBody(p[:n])
		}
	}
	if err == io.EOF && !u.sse && !u.done {
		u.done = true
		if !u.over {
			u.inspect(u.line)
		}
		u.line = nil
	}
	return n, err
}

func (u *usageReader) feedBody(p []byte) {
	if u.done {
		return
	}
	if len(u.line) == 0 && !u.over && u.want == int64(len(p)) {
		u.done = true
		u.inspect(p)
		return
	}
	if u.line == nil && u.want > 0 && u.want <= maxSniffLine {
		u.line = make([]byte, 0, u.want)
	}
	u.add(p)
}

func (u *usageReader) feedLines(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			u.add(p)
			return
		}
		line := p[:i]
		if len(u.line) > 0 || u.over {
			u.add(line)
			line = u.line
		}
		if !u.over {
			u.inspect(bytes.TrimSuffix(line, []byte{'\r'}))
		}
		u.line, u.over = u.line[:0], false
		p = p[i+1:]
	}
}

func (u *usageReader) add(p []byte) {
	if u.over {
		return
	}
	if len(u.line)+len(p) > maxSniffLine {
		u.over = true
		u.line = u.line[:0]
		return
	}
	u.line = append(u.line, p...)
}

var (
	dataPrefix = []byte("data:")
	usageKey   = []byte(`"usage"`)
)

func (u *usageReader) inspect(line []byte) {
	if u.sse {
		rest, ok := bytes.CutPrefix(line, dataPrefix)
		if !ok {
			return
		}
		line = rest
	}
	if !hasUsageObject(line) {
		return
	}
	obj := member(line, "usage")
	if len(obj) == 0 || obj[0] != '{' {
		return
	}
	pt, ok1 := count(member(obj, "prompt_tokens"))
	ct, ok2 := count(member(obj, "completion_tokens"))
	if !ok1 || !ok2 {
		// Not plain whole numbers: let encoding/json decide.
		var v struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
		}
		if json.Unmarshal(obj, &v) != nil {
			return
		}
		pt, ct = v.PromptTokens, v.CompletionTokens
	}
	u.e.usage = Usage{PromptTokens: pt, CompletionTokens: ct}
	u.e.hasUsage = true
}

// count reads a token count: absent is 0, digits are the number; anything
// else is not ok.
func count(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if len(b) > 18 {
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

// hasUsageObject is a cheap pre-check so only the chunk that carries usage
// (not the many with "usage":null) is looked at further.
func hasUsageObject(b []byte) bool {
	for {
		i := bytes.Index(b, usageKey)
		if i < 0 {
			return false
		}
		b = bytes.TrimLeft(b[i+len(usageKey):], " \t\r\n")
		if len(b) > 0 && b[0] == ':' {
			b = bytes.TrimLeft(b[1:], " \t\r\n")
			if len(b) > 0 && b[0] == '{' {
				return true
			}
		}
	}
}

// member returns the raw value of the member key of the top-level JSON
// object in b (nil when there is none), so that only that value is looked at
// and not the whole answer. A key nested deeper, or inside a string, does not
// count. b need not be valid beyond the member.
func member(b []byte, key string) []byte {
	var (
		depth      int
		inStr, esc bool
		wantKey    bool // at depth 1, the next string is a key
		colon      bool // at depth 1, past the current member's ':'
		match      bool // at depth 1, the current member's key is key
		keyStart   = -1
		start      = -1
	)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if keyStart >= 0 {
					match = string(b[keyStart:i]) == key
					keyStart = -1
				}
			}
			continue
		}
		if depth == 1 && (c == ',' || c == '}') {
			if start >= 0 {
				return bytes.TrimRight(b[start:i], " \t\r\n")
			}
			wantKey, colon, match = c == ',', false, false
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case ':':
			if depth == 1 {
				colon = true
				continue
			}
		}
		if depth == 1 && colon && match && start < 0 {
			start = i
		}
		switch c {
		case '"':
			inStr = true
			if depth == 1 && wantKey {
				keyStart, wantKey = i+1, false
			}
		case '{', '[':
			depth++
			if depth == 1 {
				wantKey = c == '{'
			}
		case '}', ']':
			depth--
			if depth <= 0 {
				return nil
			}
		}
	}
	return nil
}

// modelScanner finds the top-level "model" string of a JSON request body as
// the transport reads the body, so the body is neither buffered nor delayed.
// It is fed by the transport's goroutine and read by the handler's.
type modelScanner struct {
	model atomic.Pointer[string]

	// State below is only touched by the feeding goroutine.
	done     bool
	depth    int
	inStr    bool
	esc      bool
	escaped  bool // the current string has an escape: decode it with encoding/json
	role     int  // of the current string: 0 other, 1 top-level key, 2 the model value
	buf      []byte
	arr      [64]byte // buf's first backing array: most keys and ids fit
	over     bool
	wantKey  bool
	keyModel bool // the last top-level key was "model"
	valModel bool
}

const (
	roleOther = iota
	roleKey
	roleModel
	maxModelLen = 256
)

func (s *modelScanner) Model() string {
	if m := s.model.Load(); m != nil {
		return *m
	}
	return ""
}

func (s *modelScanner) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		if s.done {
			return
		}
		c := p[i]
		if s.inStr {
			switch {
			case s.esc:
				s.esc = false
			case s.role == roleOther:
				// Jump to the quote that ends the string: most of a body is
				// message text, which needs no look at each byte.
				end, ok := stringEnd(p, i)
				if !ok {
					s.esc = end == len(p)+1
					return
				}
				i = end
				s.inStr = false
				continue
			case c == '\\':
				s.esc, s.escaped = true, true
			case c == '"':
				s.inStr = false
				s.endString()
				continue
			}
			if s.role != roleOther {
				if len(s.buf) < maxModelLen {
					s.buf = append(s.buf, c)
				} else {
					s.over = true
				}
			}
			continue
		}
		switch c {
		case '"':
			if s.buf == nil {
				s.buf = s.arr[:0]
			}
			s.inStr, s.buf, s.over, s.escaped, s.role = true, s.buf[:0], false, false, roleOther
			if s.depth == 1 {
				if s.wantKey {
					s.role = roleKey
				} else if s.valModel {
					s.role = roleModel
				}
			}
		case '{', '[':
			s.depth++
			s.wantKey = s.depth == 1 && c == '{'
			s.valModel = false
		case '}', ']':
			s.depth--
			if s.depth <= 0 {
				s.done = true
			}
		case ',':
			if s.depth == 1 {
				s.wantKey, s.valModel = true, false
			}
		case ':':
			if s.depth == 1 {
				s.valModel = s.keyModel
			}
		}
	}
}

// stringEnd finds the quote that ends the JSON string p[i:] is inside of,
// when p[i] is not escaped. Without one, it returns ok false and len(p)+1
// when p ends in an unpaired backslash (the next byte is escaped).
func stringEnd(p []byte, i int) (end int, ok bool) {
	for {
		q := bytes.IndexByte(p[i:], '"')
		if q < 0 {
			if backslashesBefore(p, len(p), i)%2 == 1 {
				return len(p) + 1, false
			}
			return len(p), false
		}
		q += i
		if backslashesBefore(p, q, i)%2 == 0 {
			return q, true
		}
		i = q + 1
	}
}

// backslashesBefore counts the backslashes right before p[j], looking no
// further back than p[from].
func backslashesBefore(p []byte, j, from int) int {
	n := 0
	for j-1-n >= from && p[j-1-n] == '\\' {
		n++
	}
	return n
}

func (s *modelScanner) endString() {
	switch s.role {
	case roleKey:
		s.wantKey = false
		s.keyModel = !s.over && !s.escaped && string(s.buf) == "model"
	case roleModel:
		s.done = true
		if s.over {
			return
		}
		m := string(s.buf)
		if s.escaped {
			quoted := append(append([]byte{'"'}, s.buf...), '"')
			if json.Unmarshal(quoted, &m) != nil {
				return
			}
		}
		s.model.Store(&m)
	}
}

// scanBody feeds a request body to a modelScanner as it is read.
type scanBody struct {
	io.ReadCloser
	s *modelScanner
}

func (b *scanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.s.done {
		b.s.feed(p[:n])
	}
	return n, err
}
