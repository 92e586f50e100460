package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
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
// held back: every Read returns what the upstream sent.
type usageReader struct {
	io.ReadCloser
	sse     bool
	line    []byte
	over    bool
	onUsage func(Usage)
}

func (u *usageReader) Read(p []byte) (int, error) {
	n, err := u.ReadCloser.Read(p)
	if n > 0 {
		u.feed(p[:n])
	}
	if err == io.EOF && !u.sse {
		u.inspect(u.line)
		u.line = u.line[:0]
	}
	return n, err
}

func (u *usageReader) feed(p []byte) {
	if !u.sse {
		u.add(p)
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			u.add(p)
			return
		}
		u.add(p[:i])
		if !u.over {
			u.inspect(bytes.TrimSuffix(u.line, []byte{'\r'}))
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
	var v struct {
		Usage *struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(line, &v) != nil || v.Usage == nil {
		return
	}
	u.onUsage(Usage{PromptTokens: v.Usage.PromptTokens, CompletionTokens: v.Usage.CompletionTokens})
}

// hasUsageObject is a cheap pre-check so only the chunk that carries usage
// (not the many with "usage":null) is decoded.
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

// modelScanner finds the top-level "model" string of a JSON request body as
// the transport reads the body, so the body is neither buffered nor delayed.
// It is fed by the transport's goroutine and read by the handler's.
type modelScanner struct {
	mu    sync.Mutex
	model string

	// State below is only touched by the feeding goroutine.
	done     bool
	depth    int
	inStr    bool
	esc      bool
	role     int // of the current string: 0 other, 1 top-level key, 2 the model value
	buf      []byte
	over     bool
	wantKey  bool
	lastKey  string
	valModel bool
}

const (
	roleOther = iota
	roleKey
	roleModel
	maxModelLen = 256
)

func (s *modelScanner) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

func (s *modelScanner) feed(p []byte) {
	for _, c := range p {
		if s.done {
			return
		}
		if s.inStr {
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
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
			s.inStr, s.buf, s.over, s.role = true, s.buf[:0], false, roleOther
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
				s.valModel = s.lastKey == "model"
			}
		}
	}
}

func (s *modelScanner) endString() {
	switch s.role {
	case roleKey:
		s.wantKey = false
		s.lastKey = ""
		if !s.over {
			s.lastKey = string(s.buf)
		}
	case roleModel:
		s.done = true
		var m string
		quoted := append(append([]byte{'"'}, s.buf...), '"')
		if !s.over && json.Unmarshal(quoted, &m) == nil {
			s.mu.Lock()
			s.model = m
			s.mu.Unlock()
		}
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
