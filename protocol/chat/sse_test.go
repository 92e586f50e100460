package chat

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// readAllEvents hands each event of s to got until [DONE].
func readAllEvents(t *testing.T, s *Reader, got func([]byte)) {
	t.Helper()
	for {
		d, err := s.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got(d)
	}
}

func TestStreamReadsEventsUntilDone(t *testing.T) {
	in := ": keep-alive\n\nevent: x\ndata: {\"a\":1}\n\ndata:{\"b\":\ndata: 2}\n\ndata: [DONE]\n\ndata: {\"after\":1}\n\n"
	var got []string
	readAllEvents(t, NewReader(strings.NewReader(in)), func(d []byte) { got = append(got, string(d)) })
	if strings.Join(got, "|") != `{"a":1}|{"b":`+"\n"+`2}` {
		t.Fatalf("events %q", got)
	}
}

func TestStreamCutBeforeDoneIsUnexpectedEOF(t *testing.T) {
	s := NewReader(strings.NewReader("data: {\"a\":1}\n\n"))
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v, want unexpected EOF", err)
	}
}

func TestStreamRefusesHugeEvent(t *testing.T) {
	s := NewReader(io.MultiReader(strings.NewReader("data: "), strings.NewReader(strings.Repeat("x", MaxEventSize+10))))
	if _, err := s.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err %v, want ErrEventTooLarge", err)
	}
}

// chunked is a network that hands out one piece per read.
type chunked struct {
	pieces []string
	reads  int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.pieces) == 0 {
		return 0, io.EOF
	}
	c.reads++
	n := copy(p, c.pieces[0])
	c.pieces[0] = c.pieces[0][n:]
	if c.pieces[0] == "" {
		c.pieces = c.pieces[1:]
	}
	return n, nil
}

// TestStreamBeforeWaitOncePerRead: the events that arrived in one read are
// returned without calling BeforeWait between them, and BeforeWait runs
// before every read of the network, so a translator that flushes there
// sends what arrived together in one write and never holds an event back
// while it waits.
func TestStreamBeforeWaitOncePerRead(t *testing.T) {
	net := &chunked{pieces: []string{
		"data: 1\n\ndata: 2\n\n: comment\n\ndata: 3\n\n", // three events in one read
		"data: 4\n",        // an event cut in two
		"\n",               //
		"data: [DONE]\n\n", //
	}}
	s := NewReader(net)
	var log []string
	s.BeforeWait = func() { log = append(log, fmt.Sprintf("wait(reads=%d)", net.reads)) }
	readAllEvents(t, s, func(d []byte) { log = append(log, string(d)) })
	want := "wait(reads=0) 1 2 3 wait(reads=1) wait(reads=2) 4 wait(reads=3)"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("events and waits:\n got %s\nwant %s", got, want)
	}
}

func TestStreamLineEndingsAndLongLines(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the read buffer
	in := "data: a\r\n\r\ndata: " + long + "\n\ndata: last"
	s := NewReader(strings.NewReader(in))
	for _, want := range []string{"a", long, "last"} {
		d, err := s.Next()
		if err != nil || string(d) != want {
			t.Fatalf("event %.20q… (%d bytes), %v; want %.20q… (%d bytes)", d, len(d), err, want, len(want))
		}
	}
	if _, err := s.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("after a last event without [DONE]: %v, want unexpected EOF", err)
	}
}

// TestDrainGivesUpOnAServiceThatNeverEnds: after [DONE], a service that
// keeps its answer open is not waited for without end: Drain closes it.
func TestDrainGivesUpOnAServiceThatNeverEnds(t *testing.T) {
	pr, pw := io.Pipe()
	go func() { _, _ = io.WriteString(pw, "data: {}\n\ndata: [DONE]\n\n") }() // and nothing more, ever
	s := NewReader(pr)
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after [DONE]: %v", err)
	}
	s.Drain(pr)
	if _, err := pw.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("the answer is still open after Drain: %v", err)
	}
}
