package chat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxEventSize bounds one server-sent event of the service's stream; a
// longer line is an error, not an allocation without end.
const MaxEventSize = 4 << 20

// ErrEventTooLarge is returned by Stream.Next for an event over MaxEventSize.
var ErrEventTooLarge = errors.New("an event of the service's stream is larger than 4 MiB")

// Stream reads the data lines of a server-sent-event stream of chat chunks.
type Stream struct {
	sc   *bufio.Scanner
	done bool
}

// NewStream reads r.
func NewStream(r io.Reader) *Stream {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxEventSize)
	return &Stream{sc: sc}
}

// Next returns the next event's data: a chunk's JSON. It returns io.EOF after
// "data: [DONE]", and io.ErrUnexpectedEOF when the stream ends without it.
// Comment lines, event:/id:/retry: fields and blank lines are skipped; the
// data of an event split over several data: lines is joined with newlines.
func (s *Stream) Next() ([]byte, error) {
	if s.done {
		return nil, io.EOF
	}
	var data []byte
	have := false
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if len(line) == 0 {
			if have {
				break
			}
			continue
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if !found || len(field) == 0 {
			continue // a comment (":…") or a line without a field
		}
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if have {
			data = append(data, '\n')
		}
		data = append(data, value...)
		have = true
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, ErrEventTooLarge
		}
		return nil, err
	}
	if !have {
		return nil, io.ErrUnexpectedEOF
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
		s.done = true
		return nil, io.EOF
	}
	return data, nil
}

// String is for debugging.
func (s *Stream) String() string { return fmt.Sprintf("chat.Stream{done:%v}", s.done) }
