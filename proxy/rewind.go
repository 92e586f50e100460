package proxy

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// An agent's request that the transport sends on a kept connection which the
// service (or a middlebox) has just closed fails before any byte of it is
// written. The transport sends such a request again on a new connection, but
// only if it can read its body again: Request.GetBody. A forwarded request's
// body is the agent's, read once, so rewindBody keeps the first rewindLimit
// bytes the transport read of it and GetBody gives those, then the rest. (An
// HTTP/1.1 transport writes the header of a body it reads from a stream
// before it reads any of the body, so that failure leaves the body unread; an
// HTTP/2 one may have read some of it when the service refuses a stream it
// did not process.) A request written in part, or whose answer was cut, is
// never sent again by the transport unless its method is idempotent: what may
// have reached the service is not sent twice.

// rewindLimit is the most of a body kept to send it again.
const rewindLimit = 4 << 10

var errNoRewind = errors.New("the request body was read too far to be sent again")

// rewindBody is the agent's request body, readable again from its start
// while no more than rewindLimit of it was read.
type rewindBody struct {
	mu      sync.Mutex
	src     io.Reader
	size    int64 // the body's length, -1 when unknown
	kept    []byte
	read    int  // bytes read from src
	over    bool // more than rewindLimit was read: kept is gone
	reading bool // a reader is in src.Read
	first   rewindReader
}

// newRewindBody wraps src, of size bytes (-1: unknown); the transport reads
// the first reader, GetBody makes the next. Closing a reader does not close
// src: the handler closes the agent's body once the request is done.
func newRewindBody(src io.Reader, size int64) (first io.ReadCloser, getBody func() (io.ReadCloser, error)) {
	b := &rewindBody{src: src, size: size}
	b.first.b = b
	return &b.first, b.again
}

func (b *rewindBody) again() (io.ReadCloser, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over {
		return nil, errNoRewind
	}
	return &rewindReader{b: b}, nil
}

var errBodyClosed = errors.New("read of a closed request body")

// rewindReader reads what was kept, then the rest of src. The transport
// reads one at a time (it asks for the next once the last one's write
// ended); one that would read src while another does fails instead. The
// lock is not held while src is read, so Close never waits for an agent
// that is slow to send its body.
type rewindReader struct {
	b      *rewindBody
	off    int
	closed atomic.Bool
}

func (r *rewindReader) Read(p []byte) (int, error) {
	if r.closed.Load() {
		return 0, errBodyClosed
	}
	b := r.b
	b.mu.Lock()
	if r.off < len(b.kept) {
		n := copy(p, b.kept[r.off:])
		r.off += n
		b.mu.Unlock()
		return n, nil
	}
	if r.off != b.read || b.reading {
		b.mu.Unlock()
		return 0, errNoRewind // what it missed is no longer kept, or another reader has src
	}
	b.reading = true
	b.mu.Unlock()

	n, err := b.src.Read(p)

	b.mu.Lock()
	b.reading = false
	b.read += n
	r.off += n
	if n > 0 && !b.over {
		switch {
		case b.read > rewindLimit:
			b.over, b.kept = true, nil
		default:
			if b.kept == nil {
				c := int64(rewindLimit)
				if b.size >= 0 && b.size < c {
					c = b.size
				}
				b.kept = make([]byte, 0, max(c, int64(n)))
			}
			b.kept = append(b.kept, p[:n]...)
		}
	}
	b.mu.Unlock()
	return n, err
}

func (r *rewindReader) Close() error {
	r.closed.Store(true)
	return nil
}
