package proxy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

// fakeKeychain stands for the OS keychain (a mock: the real one is
// exercised by cmd/root's script-realkeychain/serve_key_change.txtar). Each
// read takes the key stored when it begins, then blocks until the test
// releases it, so a test can tell a request that waited for the keychain
// from one that did not by the order things happen in.
type fakeKeychain struct {
	mu    sync.Mutex
	key   string
	reads chan *fakeRead // each read as it begins
}

type fakeRead struct {
	key     string
	release chan struct{}
}

func newFakeKeychain(key string) *fakeKeychain {
	return &fakeKeychain{key: key, reads: make(chan *fakeRead, 16)}
}

func (f *fakeKeychain) set(key string) { f.mu.Lock(); f.key = key; f.mu.Unlock() }

func (f *fakeKeychain) source(ctx context.Context) (string, error) {
	f.mu.Lock()
	r := &fakeRead{key: f.key, release: make(chan struct{})}
	f.mu.Unlock()
	f.reads <- r
	select {
	case <-r.release:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if r.key == "" {
		return "", fmt.Errorf("%w: fake keychain", keychain.ErrNotFound)
	}
	return r.key, nil
}

// next is the next read of the keychain, once it has begun.
func (f *fakeKeychain) next(t *testing.T) *fakeRead {
	t.Helper()
	select {
	case r := <-f.reads:
		return r
	case <-waitCtx(t).Done():
		t.Fatal("the keychain was never read")
		return nil
	}
}

// noRead fails when a read of the keychain has begun and not been taken.
func (f *fakeKeychain) noRead(t *testing.T, when string) {
	t.Helper()
	select {
	case r := <-f.reads:
		close(r.release)
		t.Errorf("%s: the keychain was read", when)
	default:
	}
}

// answer releases the next read (once it has begun).
func (f *fakeKeychain) answer(t *testing.T) { t.Helper(); close(f.next(t).release) }

// fakeMarker stands for the key-changed file: gw auth login and gw auth
// logout bump it after they change the stored key.
type fakeMarker struct {
	n       atomic.Uint64
	unknown atomic.Bool // the file cannot be looked at
}

func (m *fakeMarker) bump() { m.n.Add(1) }

func (m *fakeMarker) stamp() (Stamp, bool) {
	if m.unknown.Load() {
		return Stamp{}, false
	}
	return Stamp{m.n.Load()}, true
}

// async runs a request through gw serve in the background; its status and
// body arrive on the channel.
func (r *rig) async(ctx context.Context) <-chan string {
	got := make(chan string, 1)
	go func() {
		res := r.do(ctx, "GET", "/v1/models", "", nil)
		got <- fmt.Sprintf("%d %s", res.StatusCode, readAll(r.t, res))
	}()
	return got
}

func (r *rig) lastKey() string {
	s := r.up.Seen()
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1].Key
}

// The first request of a coding agent's turn, long after the last one (the
// user read and thought), goes out at once with the cached key while the
// keychain is read in the background: it is answered while that read is
// still blocked. Without the marker (as before it existed) the same request
// waits for the keychain.
func TestFakeKeychainBlockedDoesNotHoldUpATurnWhileTheMarkerIsUnchanged(t *testing.T) {
	kc := newFakeKeychain(standin.DemoKeyPartial)
	m := &fakeMarker{}
	r := newRig(t, rigOpts{key: kc.source, stamp: m.stamp})
	clock := time.Unix(1000, 0)
	r.keys.now = func() time.Time { return clock }
	first := r.async(waitCtx(t))
	kc.answer(t)
	if got := <-first; !strings.HasPrefix(got, "200 ") {
		t.Fatalf("first request: %s", got)
	}

	clock = clock.Add(10 * time.Minute)
	turn := r.async(waitCtx(t))
	read := kc.next(t) // the refresh in the background has begun, and blocks
	select {
	case got := <-turn:
		if !strings.HasPrefix(got, "200 ") || r.lastKey() != standin.DemoKeyPartial {
			t.Errorf("while the keychain is read: %s, key %q", got, r.lastKey())
		}
	case <-waitCtx(t).Done():
		t.Fatal("the first request of a turn waited for the keychain although the key had not changed")
	}
	close(read.release)

	t.Run("without a marker the request waits", func(t *testing.T) {
		kc := newFakeKeychain(standin.DemoKeyPartial)
		r := newRig(t, rigOpts{key: kc.source})
		clock := time.Unix(1000, 0)
		r.keys.now = func() time.Time { return clock }
		first := r.async(waitCtx(t))
		kc.answer(t)
		<-first
		clock = clock.Add(10 * time.Minute)
		turn := r.async(waitCtx(t))
		read := kc.next(t)
		n := len(r.up.Seen())
		select {
		case got := <-turn:
			t.Errorf("answered (%s) before the keychain was", got)
		default:
		}
		close(read.release)
		if got := <-turn; !strings.HasPrefix(got, "200 ") || len(r.up.Seen()) != n+1 {
			t.Errorf("after the keychain answered: %s", got)
		}
	})
}

// gw auth login with another key, then gw auth logout, each bump the marker:
// the very next request waits for the keychain (within the refresh interval
// too) and goes out with the new key; after logout gw serve refuses it and
// sends nothing to the service, not the removed key.
func TestFakeKeychainMarkerChangeReachesTheNextRequest(t *testing.T) {
	kc := newFakeKeychain(standin.DemoKeyPartial)
	m := &fakeMarker{}
	r := newRig(t, rigOpts{key: kc.source, stamp: m.stamp})
	clock := time.Unix(1000, 0)
	r.keys.now = func() time.Time { return clock }
	first := r.async(waitCtx(t))
	kc.answer(t)
	if got := <-first; !strings.HasPrefix(got, "200 ") || r.lastKey() != standin.DemoKeyPartial {
		t.Fatalf("first request: %s", got)
	}

	// gw auth login, a second later: well within the refresh interval.
	clock = clock.Add(time.Second)
	kc.set(realKey)
	m.bump()
	sent := len(r.up.Seen())
	next := r.async(waitCtx(t))
	read := kc.next(t)
	if n := len(r.up.Seen()); n != sent {
		t.Errorf("%d requests reached the service before the new key was read", n-sent)
	}
	close(read.release)
	if got := <-next; !strings.HasPrefix(got, "200 ") || r.lastKey() != realKey {
		t.Errorf("the request after gw auth login: %s, with key %q", got, r.lastKey())
	}
	kc.noRead(t, "the request after that")
	if got := <-r.async(waitCtx(t)); !strings.HasPrefix(got, "200 ") || r.lastKey() != realKey {
		t.Errorf("the request after that: %s, key %q", got, r.lastKey())
	}

	// gw auth logout.
	kc.set("")
	m.bump()
	sent = len(r.up.Seen())
	next = r.async(waitCtx(t))
	kc.answer(t)
	if got := <-next; !strings.HasPrefix(got, "401 ") || !strings.Contains(got, "no key stored — run gw auth login") {
		t.Errorf("the request after gw auth logout: %s", got)
	}
	if n := len(r.up.Seen()); n != sent {
		t.Errorf("after gw auth logout %d requests went to the service", n-sent)
	}
}

// A read of the keychain under way when gw auth login stores a new key may
// return the old one: the request after the login waits for a read begun
// after it, and the old read, finishing last, does not bring the old key back.
func TestFakeKeychainReadBegunBeforeALoginIsNotTrusted(t *testing.T) {
	kc := newFakeKeychain(standin.DemoKeyPartial)
	m := &fakeMarker{}
	k := NewWatchedKeyCache(func(ctx context.Context) (string, keychain.Source, error) {
		key, err := kc.source(ctx)
		return key, keychain.SourceKeychain, err
	}, time.Minute, m.stamp)
	clock := time.Unix(1000, 0)
	k.now = func() time.Time { return clock }
	go kc.answer(t)
	if key, err := k.Get(waitCtx(t)); key != standin.DemoKeyPartial || err != nil {
		t.Fatalf("first read: %q, %v", key, err)
	}

	clock = clock.Add(time.Hour)
	if key, _ := k.Get(waitCtx(t)); key != standin.DemoKeyPartial {
		t.Fatalf("stale, marker unchanged: %q", key)
	}
	old := kc.next(t) // the background read, holding the old key, blocks
	k.mu.Lock()
	oldFlight := k.reading
	k.mu.Unlock()

	kc.set(realKey) // gw auth login
	m.bump()
	got := make(chan string, 1)
	go func() { key, _ := k.Get(waitCtx(t)); got <- key }()
	fresh := kc.next(t)
	if fresh.key != realKey {
		t.Fatalf("the new read got %q", fresh.key)
	}
	close(fresh.release)
	if key := <-got; key != realKey {
		t.Errorf("the request after gw auth login got %q, want the new key", key)
	}
	close(old.release)
	<-oldFlight.done
	if key, _ := k.Get(waitCtx(t)); key != realKey {
		t.Errorf("after the older read finished: %q, want the new key", key)
	}
}

// A key changed by other tools (secret-tool by hand) leaves the marker
// alone: the request that finds the key older than the refresh interval
// still gets the old one, and the one after it the new one.
func TestFakeKeychainChangedByOtherToolsIsUsedFromTheRequestAfterTheNext(t *testing.T) {
	store := &keyStore{key: standin.DemoKeyPartial}
	m := &fakeMarker{}
	r := newRig(t, rigOpts{key: store.source, stamp: m.stamp})
	clock := time.Unix(1000, 0)
	r.keys.now = func() time.Time { return clock }
	call := func() string { return <-r.async(waitCtx(t)) }
	call()
	store.set(realKey)
	clock = clock.Add(10 * time.Minute)
	call()
	if r.lastKey() != standin.DemoKeyPartial {
		t.Errorf("the next request got the new key; the documented bound is the request after it")
	}
	settle(r.keys)
	call()
	if r.lastKey() != realKey {
		t.Errorf("the request after the next still went out with the old key")
	}
}

// No key, or a keychain that failed, is not served from the cache after
// idle even with the marker unchanged: a key stored meanwhile by other
// tools, or a keychain unlocked since, is used by the next request.
func TestFakeKeychainErrorIsReadAgainAfterIdle(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	store := &keyStore{key: realKey}
	m := &fakeMarker{}
	k := NewWatchedKeyCache(func(ctx context.Context) (string, keychain.Source, error) {
		if fail.Load() {
			return "", "", errors.New("the keychain is locked")
		}
		key, err := store.source(ctx)
		return key, keychain.SourceKeychain, err
	}, 0, m.stamp)
	clock := time.Unix(1000, 0)
	k.now = func() time.Time { return clock }
	if _, err := k.Get(context.Background()); err == nil {
		t.Fatal("the failing keychain gave a key")
	}
	fail.Store(false)
	clock = clock.Add(10 * time.Minute)
	if key, err := k.Get(context.Background()); key != realKey || err != nil {
		t.Errorf("after the keychain was unlocked: %q, %v", key, err)
	}
}

// When the marker cannot be looked at, the cache keeps the bound it has
// without one: a key older than keyMaxAge makes the request wait.
func TestFakeKeychainMarkerUnreadableKeepsTheMaxAge(t *testing.T) {
	store := &keyStore{key: standin.DemoKeyPartial}
	m := &fakeMarker{}
	k := NewWatchedKeyCache(func(ctx context.Context) (string, keychain.Source, error) {
		key, err := store.source(ctx)
		return key, keychain.SourceKeychain, err
	}, 0, m.stamp)
	clock := time.Unix(1000, 0)
	k.now = func() time.Time { return clock }
	k.Get(context.Background())
	store.set(realKey)
	m.unknown.Store(true)
	clock = clock.Add(keyMaxAge(DefaultKeyRefresh))
	if key, _ := k.Get(context.Background()); key != realKey {
		t.Errorf("a key %s old was served with the marker unreadable: %q", keyMaxAge(DefaultKeyRefresh), key)
	}
}

// Many requests at once right after gw auth login read the keychain once,
// and all get the new key; so do many at once after idle with the marker
// unchanged (one read, in the background).
func TestFakeKeychainConcurrentRequestsAfterALoginReadOnce(t *testing.T) {
	store := &keyStore{key: standin.DemoKeyPartial}
	m := &fakeMarker{}
	k := NewWatchedKeyCache(func(ctx context.Context) (string, keychain.Source, error) {
		key, err := store.source(ctx)
		return key, keychain.SourceKeychain, err
	}, time.Hour, m.stamp)
	k.Get(context.Background())
	store.set(realKey)
	m.bump()
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if got, err := k.Get(context.Background()); got != realKey || err != nil {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
	wg.Wait()
	store.mu.Lock()
	reads := store.reads
	store.mu.Unlock()
	if reads != 2 {
		t.Errorf("50 concurrent requests after a login read the keychain %d times, want once", reads-1)
	}
}
