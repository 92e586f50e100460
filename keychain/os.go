package keychain

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/modelgateway/gw/internal/remedy"
)

// DefaultTimeout bounds every OS keychain call.
const DefaultTimeout = 3 * time.Second

// keyringAPI is the part of go-keyring gw uses; tests substitute a fake.
type keyringAPI interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

// goKeyring calls the real OS keychain through go-keyring.
type goKeyring struct{}

func (goKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (goKeyring) Set(service, user, pw string) error       { return keyring.Set(service, user, pw) }
func (goKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }

type osStore struct {
	kr      keyringAPI
	timeout time.Duration

	// nameBackend names the backend by asking the platform (D-Bus on Linux).
	// It may hang: backendName bounds the wait.
	nameBackend func() string
	// precheck runs before every keychain call (nil: none). Its name func,
	// when not nil, runs after the call and names the backend ("" when it
	// cannot tell), so Get learns the name at no extra cost.
	precheck func() (name func() string, err error)

	mu      sync.Mutex
	backend string // "" until known
	// naming is closed when the one separate name lookup has finished; nil
	// until it has started.
	naming chan struct{}
	// stuck: a call that timed out is still running. While it is, calls give
	// up at once rather than pile goroutines and D-Bus connections on it.
	stuck bool

	inFlight chan struct{} // holds a token while a call runs: at most one at a time
}

// NewOS is the OS keychain (macOS Keychain, Windows Credential Manager,
// Secret Service on Linux) under service "gw". Every call gives up after
// timeout (DefaultTimeout when <= 0): on Linux a locked keyring or a missing
// D-Bus Secret Service can otherwise hang forever. Session makes the calls of
// one command share a single such wait.
func NewOS(timeout time.Duration) Store {
	s := newOS(goKeyring{}, timeout, osBackendName)
	s.precheck = platformPrecheck
	return s
}

func newOS(kr keyringAPI, timeout time.Duration, name func() string) *osStore {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &osStore{kr: kr, timeout: timeout, nameBackend: name, inFlight: make(chan struct{}, 1)}
}

// Backend names the OS keychain; on Linux it also names the program that
// provides the Secret Service when it can find out within the time-out. A
// name learnt during an earlier Get/Set/Delete is reused; otherwise it is
// looked up at most once per store.
func (s *osStore) Backend() string { return s.backendName(context.Background()) }

// backendName is Backend, waiting for the lookup no longer than ctx allows
// (and the store's time-out). While a timed-out call is still stuck, it does
// not ask at all: the keychain is not answering, and the plain name will do.
func (s *osStore) backendName(ctx context.Context) string {
	s.mu.Lock()
	known, stuck, naming := s.backend, s.stuck, s.naming
	if known == "" && !stuck && naming == nil && ctx.Err() == nil {
		naming = make(chan struct{})
		s.naming = naming
		go func() {
			defer close(naming)
			s.learnBackend(s.nameBackend())
		}()
	}
	s.mu.Unlock()
	if known != "" {
		return known
	}
	if naming != nil && !stuck {
		ctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		select {
		case <-naming:
		case <-ctx.Done():
		}
	}
	if b := s.knownBackend(); b != "" {
		return b
	}
	return s.plainBackend()
}

func (s *osStore) knownBackend() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backend
}

// learnBackend keeps the first non-empty name.
func (s *osStore) learnBackend(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.backend == "" {
		s.backend = name
	}
}

func (s *osStore) Get(account string) (string, error) { return s.get(context.Background(), account) }
func (s *osStore) Set(account, key string) error      { return s.set(context.Background(), account, key) }
func (s *osStore) Delete(account string) error        { return s.delete(context.Background(), account) }

func (s *osStore) get(ctx context.Context, account string) (string, error) {
	var key string
	err := s.call(ctx, "reading the key", func() error {
		var err error
		key, err = s.kr.Get(Service, account)
		return err
	})
	if err != nil {
		return "", s.wrap(err, account)
	}
	return key, nil
}

func (s *osStore) set(ctx context.Context, account, key string) error {
	if key == "" {
		return errors.New("refusing to store an empty key")
	}
	err := s.call(ctx, "storing the key", func() error { return s.kr.Set(Service, account, key) })
	return s.wrap(err, account)
}

func (s *osStore) delete(ctx context.Context, account string) error {
	err := s.call(ctx, "deleting the key", func() error { return s.kr.Delete(Service, account) })
	return s.wrap(err, account)
}

// TimeoutError is an OS keychain that did not answer in time.
type TimeoutError struct {
	Op      string // "reading the key", …
	Backend string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s did not answer within %s while %s (is it locked or not running?)", e.Backend, e.Timeout, e.Op)
}

// Remedy is to start or unlock the keychain (or, on a machine without one, to keep the key in a file).
func (e *TimeoutError) Remedy() remedy.Remedy { return remedy.Remedy{Do: remedy.RepairKeychain} }

// call runs fn in a goroutine so a hung keychain cannot hang gw: it waits
// until ctx ends or the store's time-out passes, whichever comes first. On
// time-out the goroutine is left to finish on its own; its result is
// discarded. At most one call runs at a time: while a timed-out one is still
// running, call returns a *TimeoutError at once, so a keychain that hangs for
// good (gw serve asks every few seconds) costs one goroutine, not one per
// attempt.
func (s *osStore) call(ctx context.Context, op string, fn func() error) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	s.mu.Lock()
	stuck := s.stuck
	s.mu.Unlock()
	if stuck || ctx.Err() != nil {
		return s.gaveUp(ctx, op)
	}
	select {
	case s.inFlight <- struct{}{}:
	case <-ctx.Done():
		return s.gaveUp(ctx, op) // another call held the keychain for the whole time
	}

	done := make(chan error, 1)
	go func() {
		err := s.run(fn)
		// Under mu, so the waiter either sees the answer or marks the store
		// stuck before it is released (never stuck with nothing running).
		s.mu.Lock()
		done <- err
		s.stuck = false
		<-s.inFlight
		s.mu.Unlock()
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case err := <-done: // answered just in time
			return err
		default:
			s.stuck = true
			return s.gaveUp(ctx, op)
		}
	}
}

// gaveUp is the error of a call that did not get an answer: a *TimeoutError,
// or the cancellation when ctx was cancelled rather than timed out.
func (s *osStore) gaveUp(ctx context.Context, op string) error {
	if err := ctx.Err(); errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %s was interrupted: %w", s.plainBackend(), op, err)
	}
	return &TimeoutError{Op: op, Backend: s.plainBackend(), Timeout: s.timeout}
}

// run is one keychain call: the platform precheck, fn, and naming the backend.
func (s *osStore) run(fn func() error) error {
	var name func() string
	if s.precheck != nil {
		var err error
		if name, err = s.precheck(); err != nil {
			return err
		}
	}
	err := fn()
	if name != nil {
		// Before answering, so the caller's Backend() finds the name.
		s.learnBackend(name())
	}
	return err
}

// plainBackend names the backend without asking D-Bus (which may be what hangs).
func (s *osStore) plainBackend() string {
	return platformBackend(runtime.GOOS)
}

func (s *osStore) wrap(err error, account string) error {
	var te *TimeoutError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound), errors.Is(err, ErrNotFound):
		return fmt.Errorf("%w in %s for account %q", ErrNotFound, s.plainBackend(), account)
	case errors.As(err, &te):
		return err
	case errors.Is(err, keyring.ErrSetDataTooBig):
		return fmt.Errorf("%s: the key is too long to store", s.plainBackend())
	}
	return &UnavailableError{Backend: s.plainBackend(), Err: err}
}

// UnavailableError is an OS keychain that answered with an error other than
// "not found" (no D-Bus session, no Secret Service, access denied, …).
type UnavailableError struct {
	Backend string
	Err     error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s is not usable: %v", e.Backend, e.Err)
}

// Remedy is to make the keychain work (SetupCommand says what to install where none is), or, on a machine
// without one, to keep the key in a file.
func (e *UnavailableError) Remedy() remedy.Remedy { return remedy.Remedy{Do: remedy.RepairKeychain} }

func (e *UnavailableError) Unwrap() error { return e.Err }

func platformBackend(goos string) string {
	switch goos {
	case "darwin", "ios":
		return "macOS Keychain"
	case "windows":
		return "Windows Credential Manager"
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return "Secret Service"
	}
	return "OS keychain (unsupported on " + goos + ")"
}
