package keychain

import (
	"context"
	"sync"
	"time"
)

// Session returns s for the keychain calls of one command: reading, storing and deleting the key and naming
// the backend all share one deadline, the OS keychain's time-out counted from the first of them (sooner if
// ctx ends sooner). A keychain that does not answer then costs the command one wait, not one per call.
// Stores that never wait (the file, test fakes) are returned as they are.
//
// A long-running process (gw serve) that reads the key again and again uses the store itself: each of its
// reads has its own time-out.
func Session(ctx context.Context, s Store) Store {
	o, ok := s.(*osStore)
	if !ok || o == nil {
		return s
	}
	return &session{os: o, parent: ctx}
}

type session struct {
	os     *osStore
	parent context.Context

	once     sync.Once
	deadline time.Time
}

// ctx is bounded by the session's deadline, set by the first call.
func (s *session) ctx() (context.Context, context.CancelFunc) {
	s.once.Do(func() { s.deadline = time.Now().Add(s.os.timeout) })
	return context.WithDeadline(s.parent, s.deadline)
}

func (s *session) Get(account string) (string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.os.get(ctx, account)
}

func (s *session) Set(account, key string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.os.set(ctx, account, key)
}

func (s *session) Delete(account string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.os.delete(ctx, account)
}

func (s *session) Backend() string {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.os.backendName(ctx)
}
