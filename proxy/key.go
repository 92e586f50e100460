package proxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelgateway/gw/keychain"
)

// KeySource reads the real API key (environment, keychain or file). It
// returns an error wrapping keychain.ErrNotFound when no key is stored.
type KeySource func(ctx context.Context) (string, error)

// KeyFrom is a KeySource that also says where the key came from, so that gw
// serve can tell the user which key the service refused ("sk-…abcd, from
// the keychain").
type KeyFrom func(ctx context.Context) (string, keychain.Source, error)

// DefaultKeyRefresh is how long a key read from the source is used before it
// is read again: short enough that `gw auth login` or `gw auth logout` reaches
// a running gw serve within 5 s (keyMaxAge), long enough that the keychain is
// not read on every request.
const DefaultKeyRefresh = 3 * time.Second

// keyMaxAge is how old a cached key may be and still be served while a
// fresh read runs; past it a request waits for the read, so a change always
// arrives within 4.5 s with DefaultKeyRefresh (plus the time the read takes).
func keyMaxAge(every time.Duration) time.Duration { return every + every/2 }

// keyReadTimeout bounds a read of the source made for no one request.
const keyReadTimeout = 30 * time.Second

// KeyCache caches the key from a KeySource. Once the value is older than the
// refresh interval the next request starts one read of the source in the
// background and is served the cached value meanwhile, so a slow keychain
// does not hold requests up. Only the first read, and a value too old to
// serve (keyMaxAge), make requests wait; all of them wait for that one read.
type KeyCache struct {
	src   KeyFrom
	every time.Duration
	now   func() time.Time

	// cur is what requests read: one atomic load while it is fresh. mu
	// guards reading, the read of the source under way, if any.
	cur     atomic.Pointer[keyRead]
	mu      sync.Mutex
	reading *keyFlight
}

// keyRead is one read of the source, never changed once stored.
type keyRead struct {
	key   string
	from  keychain.Source // "" when the source did not say
	err   error
	at    time.Time
	auth  []string  // the Authorization header value for key, made once per read
	scrub *scrubber // for key, made once per read
}

// keyFlight is a read of the source under way; r is set before done closes.
type keyFlight struct {
	done chan struct{}
	r    *keyRead
}

// NewKeyCache caches src for every (DefaultKeyRefresh when zero or negative).
func NewKeyCache(src KeySource, every time.Duration) *KeyCache {
	return NewKeyCacheFrom(func(ctx context.Context) (string, keychain.Source, error) {
		key, err := src(ctx)
		return key, "", err
	}, every)
}

// NewKeyCacheFrom is NewKeyCache for a source that says where the key came
// from.
func NewKeyCacheFrom(src KeyFrom, every time.Duration) *KeyCache {
	if every <= 0 {
		every = DefaultKeyRefresh
	}
	return &KeyCache{src: src, every: every, now: time.Now}
}

// Get returns the current key (see KeyCache for when the source is read).
// Errors are cached like keys, so a missing key does not turn every request
// into a keychain read.
func (k *KeyCache) Get(ctx context.Context) (string, error) {
	r := k.get(ctx)
	return r.key, r.err
}

func (k *KeyCache) get(ctx context.Context) *keyRead {
	now := k.now()
	r := k.cur.Load()
	if r != nil && now.Sub(r.at) < k.every {
		return r
	}
	if r != nil && now.Sub(r.at) < keyMaxAge(k.every) {
		if fresh, _ := k.read(ctx, now); fresh != nil {
			return fresh
		}
		return r
	}
	if err := ctx.Err(); err != nil {
		return &keyRead{err: err}
	}
	fresh, f := k.read(ctx, now)
	if fresh != nil {
		return fresh
	}
	select {
	case <-f.done:
		return f.r
	case <-ctx.Done():
		// The request went away; the read carries on for the next ones.
		return &keyRead{err: ctx.Err()}
	}
}

// read starts a read of the source unless one is under way, and returns it;
// or, when a read finished since the caller looked at cur, returns its fresh
// value and no flight. That second look, under mu, is what makes the read
// single-flight: without it a request that saw no key, then lost the race
// for mu to a read that stored its key and cleared reading, would start a
// read of its own.
func (k *KeyCache) read(ctx context.Context, now time.Time) (*keyRead, *keyFlight) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.reading != nil {
		return nil, k.reading
	}
	if r := k.cur.Load(); r != nil && now.Sub(r.at) < k.every {
		return r, nil
	}
	f := &keyFlight{done: make(chan struct{})}
	k.reading = f
	// Not the request's cancellation: other requests may wait for this read.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyReadTimeout)
	go func() {
		defer cancel()
		key, from, err := k.src(rctx)
		r := &keyRead{key: key, from: from, err: err, at: now}
		if err == nil && key != "" {
			r.auth = []string{"Bearer " + key}
			r.scrub = newScrubber(key)
		}
		k.mu.Lock()
		if rctx.Err() == nil {
			k.cur.Store(r)
		} // else the read timed out, not the source's answer: try again next time
		k.reading = nil
		k.mu.Unlock()
		f.r = r
		close(f.done)
	}()
	return nil, f
}
