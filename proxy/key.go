package proxy

import (
	"context"
	"sync"
	"sync/atomic"
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

	// cur is what requests read: one atomic load while it is fresh. mu
	// serialises the reads of the source when it is not.
	cur atomic.Pointer[keyRead]
	mu  sync.Mutex
}

// keyRead is one read of the source, never changed once stored.
type keyRead struct {
	key  string
	err  error
	at   time.Time
	auth []string // the Authorization header value for key, made once per read
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
	r := k.get(ctx)
	return r.key, r.err
}

func (k *Keys) get(ctx context.Context) *keyRead {
	if r := k.cur.Load(); r != nil && k.now().Sub(r.at) < k.every {
		return r
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	// Another request may have read the source while this one waited.
	if r := k.cur.Load(); r != nil && k.now().Sub(r.at) < k.every {
		return r
	}
	key, err := k.src(ctx)
	r := &keyRead{key: key, err: err, at: k.now()}
	if err == nil && key != "" {
		r.auth = []string{"Bearer " + key}
	}
	if ctx.Err() == nil {
		k.cur.Store(r)
	} else {
		// The read was cut short by this request going away, not by the
		// source: let the next request try again.
		k.cur.Store(nil)
	}
	return r
}
