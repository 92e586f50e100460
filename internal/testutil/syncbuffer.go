// Package testutil holds small helpers shared by tests across packages: a concurrency-safe buffer, a
// squatter on gw serve's port that records what it is sent, and
// what the hostile-directory tests plant (named pipes, huge files, links, files of another user) with a
// deadline around what must not hang. Only tests import it.
package testutil

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for concurrent writes and reads: the destination of a log or of a
// process's output that a test reads while it is still being written.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
