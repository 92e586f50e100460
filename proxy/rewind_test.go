package proxy

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// The body read again starts at its first byte and ends with the rest of
// the agent's body, whatever the first reader had taken of it.
func TestRewindBody_ReadAgainWhole(t *testing.T) {
	body := strings.Repeat("0123456789", 400)
	first, again := newRewindBody(strings.NewReader(body), int64(len(body)))
	buf := make([]byte, 3000)
	if _, err := io.ReadFull(first, buf); err != nil {
		t.Fatal(err)
	}
	first.Close()
	second, err := again()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(second)
	if err != nil || string(got) != body {
		t.Fatalf("read again: %d bytes (%v), want the %d of the body", len(got), err, len(body))
	}
	if _, err := first.Read(buf); err == nil {
		t.Error("a closed reader still reads")
	}
}

// A body read beyond what is kept cannot be sent again: GetBody says so,
// and the transport then returns the first error instead of sending a
// request that may have reached the service twice.
func TestRewindBody_TooFarIsNotSentAgain(t *testing.T) {
	body := strings.Repeat("x", rewindLimit+1)
	first, again := newRewindBody(strings.NewReader(body), int64(len(body)))
	got, err := io.ReadAll(first)
	if err != nil || len(got) != len(body) {
		t.Fatalf("first read: %d bytes (%v)", len(got), err)
	}
	if _, err := again(); !errors.Is(err, errNoRewind) {
		t.Errorf("GetBody after %d bytes: %v, want errNoRewind", len(body), err)
	}
}

// Closing a reader never waits for an agent slow to send its body: the
// transport closes the body to end a request whose answer came first.
func TestRewindBody_CloseDoesNotWaitForTheAgent(t *testing.T) {
	pr, pw := io.Pipe()
	first, _ := newRewindBody(pr, -1)
	read := make(chan error, 1)
	go func() {
		_, err := first.Read(make([]byte, 10))
		read <- err
	}()
	// Whether or not the read has reached the pipe yet, Close returns.
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	pw.Close() // the agent hangs up
	<-read
}
