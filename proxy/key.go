package proxy

import (
	"context"
	"sync"
	"time"
)

// KeySource reads the real API key (environment, keychain or file). It
// returns an error wrapping keychain.ErrNotFound when no key is stored.
type KeySource func(ctx context.Context) (string, error)

// DefaultKeyRefresh is how long a key read from the source is used before it
// is read again: short enough that `gw auth login` or `gw auth logout` reaches
// a running gw serve within 5 s, long enough that the keychain is not read on
// every request.
const DefaultKeyRefresh = 3 * time.Second

// Keys caches the key from a KeySource for a refresh interval. When the value
// is stale the next request reads the source again, so a change is seen
// within one interval of it without a background goroutine. Concurrent
// requests wait for that one read rather than each reading the keychain.
type Keys struct {
	src   KeySource
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	key     string
	err     error
	readAt  time.Time
	hasRead bool
}

// NewKeys caches src for every (DefaultKeyRefresh when zero or negative).
func NewKeys(src KeySource, every time.Duration) *Keys {
	if every <= 0 {
		every = DefaultKeyRefresh
	}
	return &Keys{src: src, every: every, now: time.Now}
}

// Get returns the current key, reading the source when the cached value is
// older than the refresh interval. Errors are cached like keys, so a missing
// key does not turn every request into a keychain read.
func (k *Keys) Get(ctx context.Context) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.hasRead || k.now().Sub(k.readAt) >= k.every {
		k.key, k.err = k.src(ctx)
		k.readAt, k.hasRead = k.now(), true
		if ctx.Err() != nil {
			// The read was cut short by this request going away, not by the
			// source: let the next request try again.
			k.hasRead = false
		}
	}
	return k.key, k.err
}
