package chat

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// fastEvent decodes a chunk as OpenAI-compatible services send it: an
// object with the fields of a chunk, in any order, among others it skips.
// It is ParseEvent's first try, because decoding the events of every
// stream is most of what a translated stream costs gw (docs/benchmarks.md):
// it takes about two fifths of encoding/json/v2's time and a fifth of
// encoding/json's. It checks the JSON it
// reads as strictly as the decoder would, and leaves to the decoder
// (false) whatever it does not read the same way for certain: escaped or
// differently cased names, a field given twice, invalid UTF-8, numbers
// that are not plain integers, values of another type, nesting deeper than
// a chunk's. FuzzParseEvent holds its results to the decoder's.
//
// prev, if not nil, is the stream's previous event: its id is reused when
// the same, and its choices' array.
func fastEvent(data []byte, e *Event, prev *Event) bool {
	s := scanner{b: data}
	if prev == nil {
		prev = &Event{}
	}
	s.ws()
	ok := s.object(&topFields, func(f int) bool {
		switch f {
		case fID:
			if s.null() {
				return true
			}
			start := s.i
			if raw, escaped, ok := s.rawString(); ok && !escaped && string(raw) == prev.ID {
				e.ID = prev.ID
				return true
			}
			s.i = start
			return s.str(&e.ID)
		case fChoices:
			if s.null() {
				return true
			}
			e.Choices = prev.Choices[:0]
			return s.choices(&e.Choices)
		case fUsage:
			if s.null() {
				return true
			}
			raw, ok := s.value(1)
			if !ok || raw[0] != '{' {
				return false
			}
			e.Usage = new(Usage)
			return jsonv1.Unmarshal(raw, e.Usage) == nil
		case fError:
			raw, ok := s.value(1)
			e.Error = append(jsonv1.RawMessage(nil), raw...)
			return ok
		}
		return false
	})
	s.ws()
	return ok && s.i == len(s.b)
}

// The fields fastEvent reads, by object.
const (
	fID = iota
	fChoices
	fUsage
	fError
)

var topFields = fields{"id", "choices", "usage", "error"}

const (
	fIndex = iota
	fDelta
	fFinish
	fStop
)

var choiceFields = fields{"index", "delta", "finish_reason", "stop_reason"}

const (
	fRole = iota
	fContent
	fRefusal
	fReasoningContent
	fReasoning
	fToolCalls
	fReasoningDetails
	fThinkingBlocks
)

var deltaFields = fields{"role", "content", "refusal", "reasoning_content", "reasoning", "tool_calls", "reasoning_details", "thinking_blocks"}

// fields are the names of an object's fields that are read, in order of
// their numbers.
type fields []string

// maxDepth bounds the nesting of the values fastEvent skips; deeper ones
// are left to the decoder.
const maxDepth = 16

// scanner reads JSON from b at i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte after whitespace, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) byte(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) null() bool {
	if s.peek() == 'n' && bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// object reads an object whose fields named in known are read by field
// (given the name's number) and the others skipped.
func (s *scanner) object(known *fields, field func(f int) bool) bool {
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	var seen uint32
	for {
		name, escaped, ok := s.rawString()
		if !ok || escaped || !s.byte(':') {
			return false
		}
		f := known.find(name)
		switch {
		case f >= 0:
			if seen&(1<<f) != 0 {
				return false // given twice: the decoder takes the last
			}
			seen |= 1 << f
			if !field(f) {
				return false
			}
		case f == -2:
			return false // might be one of known to the decoder
		default:
			if _, ok := s.value(1); !ok {
				return false
			}
		}
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// find is the number of name (as it stands, unquoted and unescaped) in
// fs; -1 for a name not among them, -2 for one encoding/json might match
// with one of them (it matches names regardless of case).
func (fs *fields) find(name []byte) int {
	folds := false
	for i, f := range *fs {
		if len(f) != len(name) {
			continue
		}
		if string(name) == f {
			return i
		}
		folds = folds || strings.EqualFold(string(name), f)
	}
	if folds {
		return -2
	}
	for _, c := range name {
		if c >= utf8.RuneSelf {
			return -2 // a name of other letters might fold to one of fs
		}
	}
	return -1
}

// rawString reads a string and returns what stands between its quotes;
// escaped says it holds escapes (its text is then jsontext.AppendUnquote's,
// which checks them).
func (s *scanner) rawString() (raw []byte, escaped, ok bool) {
	if s.peek() != '"' {
		return nil, false, false
	}
	start := s.i + 1
	end := start
	for {
		j := bytes.IndexByte(s.b[end:], '"')
		if j < 0 {
			return nil, false, false
		}
		end += j
		n := 0 // backslashes before the quote: an odd number escapes it
		for k := end - 1; k >= start && s.b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			break
		}
		end++
	}
	raw = s.b[start:end]
	s.i = end + 1
	ascii := true
	for _, c := range raw {
		if c < 0x20 {
			return nil, false, false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return raw, bytes.IndexByte(raw, '\\') >= 0, ascii || utf8.Valid(raw)
}

// str reads a string into *v, or null (which leaves *v as it is).
func (s *scanner) str(v *string) bool {
	if s.null() {
		return true
	}
	start := s.i
	raw, escaped, ok := s.rawString()
	if !ok {
		return false
	}
	if !escaped {
		*v = string(raw)
		return true
	}
	u, err := jsontext.AppendUnquote(nil, s.b[start:s.i])
	*v = string(u)
	return err == nil
}

// strPtr reads a string into a new string, or null (nil).
func (s *scanner) strPtr(v **string) bool {
	if s.null() {
		*v = nil
		return true
	}
	var t string
	if !s.str(&t) {
		return false
	}
	*v = &t
	return true
}

// int64 reads a plain integer, or null (which leaves *v as it is).
func (s *scanner) int64(v *int64) bool {
	if s.null() {
		return true
	}
	raw, ok := s.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return false // a fraction, an exponent or too large: the decoder says what
	}
	*v = n
	return true
}

func (s *scanner) int(v *int) bool {
	var n int64
	if !s.int64(&n) || int64(int(n)) != n {
		return false
	}
	*v = int(n)
	return true
}

// number reads a number as JSON writes one.
func (s *scanner) number() ([]byte, bool) {
	s.ws()
	start, b, i := s.i, s.b, s.i
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	s.i = i
	return b[start:i], true
}

// value reads any value, checking it, and returns it as it stands.
func (s *scanner) value(depth int) ([]byte, bool) {
	if depth > maxDepth {
		return nil, false
	}
	start := s.i
	if s.peek() == 0 {
		return nil, false
	}
	start = s.i
	switch c := s.b[s.i]; c {
	case '"':
		raw, escaped, ok := s.rawString()
		if ok && escaped {
			_, err := jsontext.AppendUnquote(nil, s.b[start:s.i])
			ok = err == nil
		}
		_ = raw
		if !ok {
			return nil, false
		}
	case '{':
		s.i++
		if !s.byte('}') {
			for {
				if _, escaped, ok := s.rawString(); !ok || escaped || !s.byte(':') {
					return nil, false
				}
				if _, ok := s.value(depth + 1); !ok {
					return nil, false
				}
				if s.byte('}') {
					break
				}
				if !s.byte(',') {
					return nil, false
				}
			}
		}
	case '[':
		s.i++
		if !s.byte(']') {
			for {
				if _, ok := s.value(depth + 1); !ok {
					return nil, false
				}
				if s.byte(']') {
					break
				}
				if !s.byte(',') {
					return nil, false
				}
			}
		}
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return s.b[start:s.i], true
			}
		}
		return nil, false
	default:
		if _, ok := s.number(); !ok {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

func (s *scanner) choices(cs *[]ChunkChoice) bool {
	if s.null() {
		return true
	}
	if !s.byte('[') {
		return false
	}
	if *cs == nil {
		*cs = make([]ChunkChoice, 0, 1)
	}
	if s.byte(']') {
		return true
	}
	for {
		*cs = append(*cs, ChunkChoice{})
		c := &(*cs)[len(*cs)-1]
		if !s.object(&choiceFields, func(f int) bool {
			switch f {
			case fIndex:
				return s.int(&c.Index)
			case fDelta:
				return s.delta(&c.Delta)
			case fFinish:
				return s.strPtr(&c.FinishReason)
			case fStop:
				raw, ok := s.value(1)
				return ok && jsonv1.Unmarshal(raw, &c.StopReason) == nil
			}
			return false
		}) {
			return false
		}
		if s.byte(']') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

func (s *scanner) delta(d *Delta) bool {
	return s.object(&deltaFields, func(f int) bool {
		switch f {
		case fRole:
			return s.str(&d.Role)
		case fContent:
			return s.strPtr(&d.Content)
		case fRefusal:
			return s.strPtr(&d.Refusal)
		case fReasoningContent:
			return s.strPtr(&d.ReasoningContent)
		case fReasoning:
			return s.strPtr(&d.Reasoning)
		case fToolCalls:
			if s.null() {
				return true
			}
			raw, ok := s.value(1)
			return ok && raw[0] == '[' && jsonv1.Unmarshal(raw, &d.ToolCalls) == nil
		case fReasoningDetails:
			if s.null() {
				return true
			}
			raw, ok := s.value(1)
			return ok && raw[0] == '[' && jsonv1.Unmarshal(raw, &d.ReasoningDetails) == nil
		case fThinkingBlocks:
			if s.null() {
				return true
			}
			raw, ok := s.value(1)
			return ok && raw[0] == '[' && jsonv1.Unmarshal(raw, &d.ThinkingBlocks) == nil
		}
		return false
	})
}
