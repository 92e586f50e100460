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
// body is the agent's, read once, so rewindBody keeps what the transport read
// of it (as much as it can hold of a body whose first write failed, bounded
// by rewindLimit) and GetBody gives that, then the rest. A request written in
// part, or whose answer was cut, is never sent again by the transport unless
// its method is idempotent: what may have reached the service is not sent
// twice.

// rewindLimit is the most of a body kept to send it again. The transport's
// first write carries at most its write buffer (4 KiB by default).
const rewindLimit = 64 << 10

var errNoRewind = errors.New("the request body was read too far to be sent again")

// rewindBody is the agent's request body, readable again from its start
// while no more than rewindLimit of it was read.
type rewindBody struct {
	mu      sync.Mutex
	src     io.Reader
	kept    []byte
	read    int  // bytes read from src
	over    bool // more than rewindLimit was read: kept is gone
	reading bool // a reader is in src.Read
}

// newRewindBody wraps src; the transport reads the first reader, GetBody
// makes the next. Closing a reader does not close src: the handler closes
// the agent's body once the request is done.
func newRewindBody(src io.Reader) (first io.ReadCloser, getBody func() (io.ReadCloser, error)) {
	b := &rewindBody{src: src}
	return &rewindReader{b: b}, b.again
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
		if b.read > rewindLimit {
			b.over, b.kept = true, nil
		} else {
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
