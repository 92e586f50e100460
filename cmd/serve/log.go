package serve

import (
	"fmt"
	"io"
	"sync"
)

// maxPendingLog bounds the request log lines waiting to be written: about
// 10,000 lines, far more than a burst of requests produces while a terminal
// or disk is merely slow.
const maxPendingLog = 1 << 20

// asyncLog writes request log lines to w on a goroutine of its own, so that
// writing to a terminal or a file happens after the answer has gone out and
// never holds up a request (a terminal paused with ctrl-s would otherwise
// stop every request at its log line). Lines that arrive while earlier ones
// are being written are written together. When maxPending bytes are waiting
// (the output is stuck), further lines are dropped and the number dropped
// is written once the output moves again. Close writes every line still
// waiting.
type asyncLog struct {
	w          io.Writer
	maxPending int

	mu      sync.Mutex
	pending []byte
	dropped int
	closed  bool
	wake    chan struct{} // one slot: "there is something to write"
	done    chan struct{} // closed when the writing goroutine has finished
}

func newAsyncLog(w io.Writer, maxPending int) *asyncLog {
	l := &asyncLog{w: w, maxPending: maxPending, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go l.run()
	return l
}

// Write queues p, one or more whole lines, and returns at once.
func (l *asyncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		// A request that outlived gw serve's shutdown: write it directly
		// rather than lose it.
		l.mu.Unlock()
		return l.w.Write(p)
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

// Close writes what is still waiting and stops the writing goroutine.
func (l *asyncLog) Close() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.wake)
	}
	l.mu.Unlock()
	<-l.done
	return nil
}

func (l *asyncLog) run() {
	defer close(l.done)
	var out []byte
	for {
		_, open := <-l.wake
		l.mu.Lock()
		// Swap buffers: requests append to the other one while this one
		// is written.
		out, l.pending = l.pending, out[:0]
		dropped := l.dropped
		l.dropped = 0
		l.mu.Unlock()
		if len(out) > 0 {
			_, _ = l.w.Write(out)
		}
		if cap(out) > 64<<10 {
			out = nil // a burst is over: do not keep its buffer
		}
		if dropped > 0 {
			fmt.Fprintf(l.w, "gw serve: %d request log lines dropped: the log output did not keep up\n", dropped)
		}
		if !open {
			return
		}
	}
}
