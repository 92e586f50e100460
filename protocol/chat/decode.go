package chat

import (
	"bytes"
	"strconv"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Event is one event of the service's stream: a chunk, or an error object
// a service sends mid-stream (Error set, not null).
type Event struct {
	Chunk
	Error jsonv1.RawMessage `json:"error"`
}

// IsError reports whether the event is the service's error rather than a
// chunk.
func (e *Event) IsError() bool {
	return len(e.Error) > 0 && !bytes.Equal(e.Error, []byte("null"))
}

// ParseEvent decodes one event's data (Reader.Next) into e, which it resets
// first, as encoding/json decodes it (TestParseEventAsEncodingJSON), with
// encoding/json/v2's implementation (the github.com/go-json-experiment
// module, which becomes the standard library's in Go 1.27) under
// encoding/json's v1 rules. It runs for every event of every translated
// stream. A hand-written scanner for the chunks services send, which read
// them in two fifths of this time, was removed: it saved nothing a user
// would notice (docs/benchmarks.md, "Translation after one loop").
func ParseEvent(data []byte, e *Event) error {
	*e = Event{}
	return jsonv1.Unmarshal(data, e)
}

// FieldPath names the field a JSON decoding error points at (the Field of
// an UnmarshalTypeError: names and array indices separated by dots,
// "input.0.content") under parent, the way gw's errors name fields:
// "input[0].content". Either may be empty.
func FieldPath(parent, field string) string {
	var b strings.Builder
	b.WriteString(parent)
	for _, seg := range strings.Split(field, ".") {
		if seg == "" {
			continue
		}
		if _, err := strconv.Atoi(seg); err == nil {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// MaxDepth is how deeply the JSON decoder lets arrays and objects nest, in
// a client's request as in the service's answers: deeper input is an error
// (TooDeep), never a recursion without end.
const MaxDepth = 10000

// TooDeep reports whether a decoding error is the decoder's refusal of
// input nested deeper than MaxDepth.
func TooDeep(err error) bool {
	return err != nil && strings.Contains(err.Error(), "exceeded max depth")
}
