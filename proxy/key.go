package proxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelgateway/gw/internal/defaults"
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
// is read again in the background: long enough that the keychain is not read
// on every request. A key gw itself stores or removes (gw auth login, gw auth
// logout) reaches a running gw serve at its next request, through KeyStamp;
// without one, within 5 s (keyMaxAge).
const DefaultKeyRefresh = 3 * time.Second

// keyMaxAge is how old a cached key may be and still be served while a
// fresh read runs, when nothing says whether the key changed (no KeyStamp,
// or it cannot tell); past it a request waits for the read, so a change
// arrives within 4.5 s with DefaultKeyRefresh (plus the time the read takes).
func keyMaxAge(every time.Duration) time.Duration { return every + every/2 }

// keyReadTimeout bounds a read of the source made for no one request.
const keyReadTimeout = 30 * time.Second

// A Stamp is a fingerprint of the marker gw updates whenever it stores or
// removes the key; it is only ever compared with another.
type Stamp = [4]uint64

// KeyStamp returns the marker's current Stamp, cheaply (a stat of a file:
// microseconds, against milliseconds for a keychain read); ok is false when
// it cannot tell, and the cache then serves a key no longer than keyMaxAge.
type KeyStamp func() (s Stamp, ok bool)

// KeyCache caches the key from a KeySource. Once the value is older than the
// refresh interval the next request starts one read of the source in the
// background and is served the cached value meanwhile, so a slow keychain
// does not hold requests up. Only the first read, and a value that may be
// out of date, make requests wait; all of them wait for that one read.
//
// With a KeyStamp (NewWatchedKeyCache) a key is out of date as soon as the
// stamp differs from the one taken before it was read: the request that sees
// the marker changed waits for a read that starts after it, so gw auth login
// and gw auth logout reach the very next request. While the stamp is the
// same a key is served at any age, with a read in the background once it is
// older than the refresh interval: the first request of a coding agent's turn,
// after the user's think time, does not wait for the keychain. A key changed
// by other tools (secret-tool, Keychain Access) leaves the marker alone: it
// is found by the read in the background that the first request after the
// refresh interval starts, and used from the request after that one. Without a KeyStamp a key older than keyMaxAge is out of date. An
// error (no key stored, a keychain that failed) is never served past
// keyMaxAge: the next request waits for a read that may now succeed.
type KeyCache struct {
	src   KeyFrom
	every time.Duration
	now   func() time.Time
	stamp KeyStamp // nil: none

	// cur is what requests read: one atomic load (and the stamp) while it
	// is fresh. mu
	// guards reading, the latest read of the source under way, if any, and
	// seq, the number of reads started.
	cur     atomic.Pointer[keyRead]
	mu      sync.Mutex
	reading *keyFlight
	seq     uint64
}

// keyRead is one read of the source, never changed once stored.
type keyRead struct {
	key   string
	from  keychain.Source // "" when the source did not say
	err   error
	at    time.Time
	auth  []string  // the Authorization header value for key, made once per read
	scrub *scrubber // for key, made once per read
	// stamp is the marker's stamp taken before the read began (when
	// stamped); seq orders reads by when they began.
	stamp   Stamp
	stamped bool
	seq     uint64
}

// current reports whether r was read after the marker last changed: always,
// when the marker cannot be told (!ok).
func (r *keyRead) current(s Stamp, ok bool) bool { return !ok || r.stamped && r.stamp == s }

// keyFlight is a read of the source under way; r is set before done closes.
type keyFlight struct {
	done    chan struct{}
	r       *keyRead
	stamp   Stamp
	stamped bool
}

// NewKeyCache caches src for every (DefaultKeyRefresh when zero or negative).
func NewKeyCache(src KeySource, every time.Duration) *KeyCache {
	return NewWatchedKeyCache(func(ctx context.Context) (string, keychain.Source, error) {
		key, err := src(ctx)
		return key, "", err
	}, every, nil)
}

// NewWatchedKeyCache is NewKeyCache for a source that says where the key came
// from, watching stamp, the marker gw updates whenever it stores or removes
// the key (see KeyCache); a nil stamp watches nothing.
func NewWatchedKeyCache(src KeyFrom, every time.Duration, stamp KeyStamp) *KeyCache {
	return &KeyCache{src: src, every: defaults.Positive(every, DefaultKeyRefresh), now: time.Now, stamp: stamp}
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
	var st Stamp
	stamped := false
	if k.stamp != nil {
		st, stamped = k.stamp()
	}
	r := k.cur.Load()
	if r != nil && r.current(st, stamped) {
		age := now.Sub(r.at)
		if age < k.every {
			return r
		}
		// Unchanged as far as gw knows: served at once, read again meanwhile.
		if stamped && r.err == nil || age < keyMaxAge(k.every) {
			if fresh, _ := k.read(ctx, now, st, stamped); fresh != nil {
				return fresh
			}
			return r
		}
	}
	if err := ctx.Err(); err != nil {
		return &keyRead{err: err}
	}
	fresh, f := k.read(ctx, now, st, stamped)
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

// read starts a read of the source unless one is under way that began after
// the marker took the stamp st, and returns it; or, when a read finished
// since the caller looked at cur, returns its fresh value and no flight.
// That second look, under mu, is what makes the read single-flight: without
// it a request that saw no key, then lost the race for mu to a read that
// stored its key and cleared reading, would start a read of its own. A read
// under way that began before the marker changed is left to finish, and a
// new one started: it may have read the key gw has just replaced.
func (k *KeyCache) read(ctx context.Context, now time.Time, st Stamp, stamped bool) (*keyRead, *keyFlight) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if f := k.reading; f != nil && (!stamped || f.stamped && f.stamp == st) {
		return nil, f
	}
	if r := k.cur.Load(); r != nil && now.Sub(r.at) < k.every && r.current(st, stamped) {
		return r, nil
	}
	k.seq++
	seq := k.seq
	f := &keyFlight{done: make(chan struct{}), stamp: st, stamped: stamped}
	k.reading = f
	// Not the request's cancellation: other requests may wait for this read.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyReadTimeout)
	go func() {
		defer cancel()
		key, from, err := k.src(rctx)
		r := &keyRead{key: key, from: from, err: err, at: now, stamp: st, stamped: stamped, seq: seq}
		if err == nil && key != "" {
			r.auth = []string{"Bearer " + key}
			r.scrub = newScrubber(key)
		}
		k.mu.Lock()
		// A read that timed out is not the source's answer: try again next
		// time. One that began before another already stored is older news.
		if c := k.cur.Load(); rctx.Err() == nil && (c == nil || c.seq < seq) {
			k.cur.Store(r)
		}
		if k.reading == f {
			k.reading = nil
		}
		k.mu.Unlock()
		f.r = r
		close(f.done)
	}()
	return nil, f
}
