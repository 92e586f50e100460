package proxy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

func TestAsyncLogKeepsEveryLineInOrder(t *testing.T) {
	var out testutil.SyncBuffer
	l := newAsyncLog(&out, maxPendingFile, "%d dropped", nil)
	var want strings.Builder
	for i := range 1000 {
		line := fmt.Sprintf("line %d\n", i)
		want.WriteString(line)
		if n, err := l.Write([]byte(line)); n != len(line) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Errorf("lines lost or reordered: got %d bytes, want %d", len(out.String()), want.Len())
	}
	// A request that outlives the shutdown is still logged.
	_, _ = l.Write([]byte("late\n"))
	if !strings.HasSuffix(out.String(), "line 999\nlate\n") {
		t.Errorf("late line lost: %q", out.String()[max(0, len(out.String())-30):])
	}
}

// stuckWriter blocks every Write until released, like a terminal paused with
// ctrl-s.
type stuckWriter struct {
	started chan struct{}
	release chan struct{}
	out     testutil.SyncBuffer
	once    sync.Once
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.started) })
	<-w.release
	return w.out.Write(p)
}

func TestAsyncLogNeverBlocksARequestOnAStuckOutput(t *testing.T) {
	w := &stuckWriter{started: make(chan struct{}), release: make(chan struct{})}
	l := newAsyncLog(w, 100, "gw serve: %d request log lines dropped", nil)
	_, _ = l.Write([]byte("first line, being written\n"))
	<-w.started // the writer is now stuck inside Write
	// These return although nothing can be written (a blocking Write would
	// hang the test here); what does not fit in 100 bytes is dropped.
	for i := range 20 {
		_, _ = l.Write([]byte(fmt.Sprintf("queued %02d\n", i)))
	}
	close(w.release)
	_ = l.Close()
	got := w.out.String()
	if !strings.HasPrefix(got, "first line, being written\nqueued 00\n") {
		t.Errorf("queued lines lost:\n%s", got)
	}
	queued := strings.Count(got, "queued ")
	if queued == 0 || queued == 20 {
		t.Errorf("%d of 20 queued lines written; want those that fit in the bound", queued)
	}
	if want := fmt.Sprintf("gw serve: %d request log lines dropped", 20-queued); !strings.Contains(got, want) {
		t.Errorf("no %q in:\n%s", want, got)
	}
}

// failingWriter fails every write after the first n, like a pipe whose
// reader has gone.
type failingWriter struct {
	n   int
	out testutil.SyncBuffer
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, syscall.EPIPE
	}
	w.n--
	return w.out.Write(p)
}

func TestAsyncLogStopsWritingAfterAFailure(t *testing.T) {
	w := &failingWriter{n: 1}
	var failed []error
	l := newAsyncLog(w, maxPendingTerm, "%d dropped", func(err error) { failed = append(failed, err) })
	_, _ = l.Write([]byte("one\n"))
	l.Flush(10 * time.Second)
	for range 5 {
		_, _ = l.Write([]byte("more\n"))
		l.Flush(10 * time.Second)
	}
	l.Close()
	if got := w.out.String(); got != "one\n" {
		t.Errorf("written: %q", got)
	}
	if len(failed) != 1 || !errors.Is(failed[0], syscall.EPIPE) {
		t.Errorf("failed called with %v, want once with EPIPE", failed)
	}
}

func TestAsyncLogCloseWithinGivesUpOnAStuckOutput(t *testing.T) {
	w := &stuckWriter{started: make(chan struct{}), release: make(chan struct{})}
	defer close(w.release)
	l := newAsyncLog(w, 100, "%d dropped", nil)
	_, _ = l.Write([]byte("stuck\n"))
	<-w.started
	if l.CloseWithin(10 * time.Millisecond) {
		t.Error("CloseWithin reported the lines written while the output was stuck")
	}
	// Later lines neither hang nor are written past the stuck one.
	if n, err := l.Write([]byte("late\n")); n != 5 || err != nil {
		t.Errorf("Write after close: %d, %v", n, err)
	}
}
