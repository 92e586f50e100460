package keychain

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// within fails the test unless fn returns before the bound: a generous limit on a wait that must end, not a
// measurement.
func within(t *testing.T, bound time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatalf("%s did not return within %s", what, bound)
	}
}

// blockingName is a backend-name lookup that hangs until released, like a D-Bus that never answers; it
// counts the lookups started.
type blockingName struct {
	release chan struct{}
	started atomic.Int32
}

func (b *blockingName) name() string {
	b.started.Add(1)
	<-b.release
	return "Secret Service (late)"
}

// After a call of the session timed out (the keychain is stuck), naming the backend asks nothing more and
// waits for nothing: the command gets the plain name at once.
func TestSession_NoSecondWaitAfterATimeOut_FakeBlockingKeyring(t *testing.T) {
	kr := blockingKeyring{release: make(chan struct{})}
	name := &blockingName{release: make(chan struct{})}
	t.Cleanup(func() { close(kr.release); close(name.release) })
	s := newOS(kr, 50*time.Millisecond, name.name)
	sess := Session(context.Background(), s)

	var te *TimeoutError
	if err := sess.Set("default", "sk-secretvalue"); !errors.As(err, &te) {
		t.Fatalf("Set: %v, want *TimeoutError", err)
	}
	var b string
	within(t, 10*time.Second, "Backend after a time-out", func() { b = sess.Backend() })
	if b != "Secret Service" {
		t.Errorf("Backend() = %q, want the plain name", b)
	}
	if n := name.started.Load(); n != 0 {
		t.Errorf("%d name lookups started on a keychain that is not answering, want 0", n)
	}
}

// Every call of a session, the name lookup included, ends by the session's one deadline: here the
// parent's, long before the store's own (an hour, which no wait in this test may reach).
func TestSession_OneDeadlineForEveryCall_FakeBlockingKeyring(t *testing.T) {
	name := &blockingName{release: make(chan struct{})}
	t.Cleanup(func() { close(name.release) })
	s := newOS(&mapKeyring{m: map[string]string{}}, time.Hour, name.name)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	sess := Session(ctx, s)

	if _, err := sess.Get("default"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get: %v, want not found", err)
	}
	var b string
	within(t, 10*time.Second, "Backend with a hung name lookup", func() { b = sess.Backend() })
	if b != "Secret Service" {
		t.Errorf("Backend() = %q, want the plain name", b)
	}
	// The deadline has passed: a later call gives up at once, as a time-out, without asking the keychain.
	var err error
	within(t, 10*time.Second, "Delete after the deadline", func() { err = sess.Delete("default") })
	var te *TimeoutError
	if !errors.As(err, &te) || te.Backend != "Secret Service" {
		t.Errorf("Delete after the deadline: %v, want *TimeoutError", err)
	}

	// The store itself (gw serve's) is not bound by a session that ended: its name lookup, still running,
	// names the backend once it answers.
	name.release <- struct{}{}
	for range 1000 {
		if b := s.knownBackend(); b != "" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if b := s.Backend(); b != "Secret Service (late)" {
		t.Errorf("the store's Backend() = %q once the lookup answered", b)
	}
	if n := name.started.Load(); n != 1 {
		t.Errorf("%d name lookups, want 1", n)
	}
}

// The deadline counts from the session's first call, not from its creation: a command that spends time
// before touching the keychain (gw auth login checks the key first) still gets the whole time-out.
func TestSession_DeadlineStartsAtTheFirstCall_FakeKeyring(t *testing.T) {
	s := newOS(&mapKeyring{m: map[string]string{}}, 150*time.Millisecond, func() string { return "Secret Service (x)" })
	sess := Session(context.Background(), s)
	time.Sleep(200 * time.Millisecond) // longer than the time-out, before any call
	if err := sess.Set("default", "sk-1"); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if got, err := sess.Get("default"); err != nil || got != "sk-1" {
		t.Fatalf("Get = %q, %v", got, err)
	}
}

// A cancelled command (ctrl-c) is not reported as a keychain that did not answer.
func TestSession_CancelledIsNotATimeOut_FakeBlockingKeyring(t *testing.T) {
	kr := blockingKeyring{release: make(chan struct{})}
	t.Cleanup(func() { close(kr.release) })
	s := newOS(kr, time.Hour, func() string { return "Secret Service" })
	ctx, cancel := context.WithCancel(context.Background())
	sess := Session(ctx, s)
	time.AfterFunc(20*time.Millisecond, cancel)
	var err error
	within(t, 10*time.Second, "Get on a cancelled session", func() { _, err = sess.Get("default") })
	var te *TimeoutError
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) || errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want the cancellation", err)
	}
}

// Stores that never wait are not wrapped.
func TestSession_OtherStoresUnchanged(t *testing.T) {
	f := NewFile(filepath.Join(t.TempDir(), "c.json"))
	if Session(context.Background(), f) != f {
		t.Error("the file store was wrapped")
	}
	var nilOS *osStore
	if s := Session(context.Background(), nilOS); !isNil(s) {
		t.Error("a nil OS store became a usable one")
	}
}
