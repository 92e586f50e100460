package proxy

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelgateway/gw/reqlog"
)

// LogName is the request log's file in gw's state directory (see reqlog).
const LogName = reqlog.Name

// Bounds of the request log lines waiting to be written. The terminal's is
// about 2,500 lines, far more than a burst of requests produces while a
// terminal is merely slow; past it lines are not shown there (serve.log has
// them). The file's is larger: it is the record, and a disk is rarely stuck.
const (
	maxPendingTerm = 256 << 10
	maxPendingFile = 8 << 20
)

// termFlushWait bounds how long gw serve, stopping, waits for a terminal
// that does not take its last lines (paused, or a pipe nobody reads).
const termFlushWait = 2 * time.Second

// asyncLog writes lines to w on a goroutine of its own, so that writing to
// a terminal or a file happens after the answer has gone out and never
// holds up a request (a terminal paused with ctrl-s would otherwise stop
// every request at its log line). Lines that arrive while earlier ones are
// being written are written together. When maxPending bytes are waiting
// (the output is stuck), further lines are dropped and the number dropped
// is written once the output moves again. After a failed write (a closed
// pipe or terminal) nothing more is written to w: failed is called once
// with the error. Close writes every line still waiting.
type asyncLog struct {
	w          io.Writer
	maxPending int
	dropNote   string // fmt format for the number of dropped lines
	failed     func(error)

	mu      sync.Mutex
	pending []byte
	dropped int
	closed  bool
	flushed []chan struct{} // closed once the lines queued before them are written
	wake    chan struct{}   // one slot: "there is something to write"
	done    chan struct{}   // closed when the writing goroutine has finished
}

func newAsyncLog(w io.Writer, maxPending int, dropNote string, failed func(error)) *asyncLog {
	l := &asyncLog{w: w, maxPending: maxPending, dropNote: dropNote, failed: failed,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go l.run()
	return l
}

// Write queues p, one or more whole lines, and returns at once.
func (l *asyncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		select {
		case <-l.done:
			// A request that outlived gw serve's shutdown: write it
			// directly rather than lose it.
			return l.w.Write(p)
		default:
			// The output was stuck when gw serve stopped: writing now
			// would hang the caller too.
			return len(p), nil
		}
	}
	defer l.mu.Unlock()
	if len(l.pending)+len(p) > l.maxPending {
		l.dropped++
		return len(p), nil
	}
	l.pending = append(l.pending, p...)
	select {
	case l.wake <- struct{}{}:
	default: // already woken: the lines go out with the ones before
	}
	return len(p), nil
}

// Flush waits at most d for the lines queued so far to be written.
func (l *asyncLog) Flush(d time.Duration) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	l.flushed = append(l.flushed, ch)
	select {
	case l.wake <- struct{}{}:
	default:
	}
	l.mu.Unlock()
	waitFor(ch, d)
}

// Close writes what is still waiting and stops the writing goroutine.
func (l *asyncLog) Close() error {
	l.CloseWithin(-1)
	return nil
}

// CloseWithin is Close that waits at most d (d < 0: as long as it takes) for
// the output to take the lines still waiting, and reports whether it did.
func (l *asyncLog) CloseWithin(d time.Duration) bool {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.wake)
	}
	l.mu.Unlock()
	if d < 0 {
		<-l.done
		return true
	}
	return waitFor(l.done, d)
}

func (l *asyncLog) run() {
	defer close(l.done)
	var out []byte
	broken := false
	for {
		_, open := <-l.wake
		l.mu.Lock()
		// Swap buffers: requests append to the other one while this one
		// is written.
		out, l.pending = l.pending, out[:0]
		dropped := l.dropped
		l.dropped = 0
		flushed := l.flushed
		l.flushed = nil
		l.mu.Unlock()
		if dropped > 0 && !broken {
			out = fmt.Appendf(out, l.dropNote+"\n", dropped)
		}
		if len(out) > 0 && !broken {
			if _, err := l.w.Write(out); err != nil {
				broken = true
				if l.failed != nil {
					l.failed(err)
				}
			}
		}
		for _, ch := range flushed {
			close(ch)
		}
		if cap(out) > 64<<10 {
			out = nil // a burst is over: do not keep its buffer
		}
		if !open {
			return
		}
	}
}

// tee writes each line to every log; none of them can hold up the others.
type tee []io.Writer

func (t tee) Write(p []byte) (int, error) {
	for _, w := range t {
		_, _ = w.Write(p)
	}
	return len(p), nil
}
