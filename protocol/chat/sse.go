package chat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// MaxEventSize bounds one server-sent event of the service's stream; a
// longer line is an error, not an allocation without end.
const MaxEventSize = 4 << 20

// ErrEventTooLarge is returned by Reader.Next for an event over MaxEventSize.
var ErrEventTooLarge = errors.New("an event of the service's stream is larger than 4 MiB")

// Reader reads the data lines of the service's server-sent-event stream of
// chat chunks (what an Assembler reads; a translator writes the client's
// stream, a translate.Stream).
// It reads ahead, as much as the network has: the events of one read are
// returned without waiting, and BeforeWait runs before it waits for more.
type Reader struct {
	r    *bufio.Reader
	data []byte // the current event's data; reused
	long []byte // a line longer than r's buffer; reused
	done bool

	// BeforeWait, if set, is called whenever Next is about to read from
	// the network, which may wait: every whole event received so far has
	// been returned. A translator flushes there, so that the events that
	// arrived together leave together, and none waits for the network.
	BeforeWait func()
}

// NewReader reads r. Release gives its buffer back when the stream is
// done with.
func NewReader(r io.Reader) *Reader {
	s := &Reader{}
	if br, ok := readers.Get().(*bufio.Reader); ok {
		br.Reset(waiter{r, s})
		s.r = br
	} else {
		s.r = bufio.NewReaderSize(waiter{r, s}, 32<<10)
	}
	return s
}

// readers are the read buffers of streams that were released: one stream
// after another reuses them, rather than each allocating 32 KiB.
var readers sync.Pool

// Release gives the stream's read buffer back for another stream; the
// stream is not used after it.
func (s *Reader) Release() {
	if s.r != nil {
		s.r.Reset(nil)
		readers.Put(s.r)
		s.r = nil
	}
}

// waiter calls the reader's BeforeWait before each read of the network.
type waiter struct {
	r io.Reader
	s *Reader
}

func (w waiter) Read(p []byte) (int, error) {
	if w.s.BeforeWait != nil {
		w.s.BeforeWait()
	}
	return w.r.Read(p)
}

// Next returns the next event's data: a chunk's JSON, valid until the next
// call. It returns io.EOF after "data: [DONE]", and io.ErrUnexpectedEOF
// when the stream ends without it. Comment lines, event:/id:/retry: fields
// and blank lines are skipped; the data of an event split over several
// data: lines is joined with newlines. Lines end with LF or CRLF.
func (s *Reader) Next() ([]byte, error) {
	if s.done {
		return nil, io.EOF
	}
	s.data = s.data[:0]
	have := false
	for {
		line, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) && have {
				break // the last event, without its blank line
			}
			if errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(line) == 0 {
			if have {
				break
			}
			continue
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if !found || len(field) == 0 || string(field) != "data" {
			continue // a comment (":…"), another field, or a line without one
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if have {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > MaxEventSize {
			return nil, ErrEventTooLarge
		}
		s.data = append(s.data, value...)
		have = true
	}
	if bytes.Equal(bytes.TrimSpace(s.data), []byte("[DONE]")) {
		s.done = true
		return nil, io.EOF
	}
	return s.data, nil
}

// line returns the next line without its line ending, valid until the next
// read. A last line without a line ending is returned with a nil error;
// io.EOF comes after it.
func (s *Reader) line() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = s.r.ReadSlice('\n')
			s.long = append(s.long, line...)
			if len(s.long) > MaxEventSize+2 {
				return nil, ErrEventTooLarge
			}
		}
		line = s.long
	}
	if err != nil && (!errors.Is(err, io.EOF) || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// Drain reads what is left of the service's answer after "data: [DONE]"
// (Next returned io.EOF), at most 64 KiB and for at most a quarter second,
// after which it closes body. A body closed before its end closes its
// connection too, and a new connection to the service for every translated
// request would cost a TLS handshake each; read to its end, the connection
// goes back to the transport's pool.
func (s *Reader) Drain(body io.Closer) {
	s.BeforeWait = nil
	t := time.AfterFunc(250*time.Millisecond, func() { body.Close() })
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, s.r, 64<<10)
}

// String is for debugging.
func (s *Reader) String() string { return fmt.Sprintf("chat.Reader{done:%v}", s.done) }
