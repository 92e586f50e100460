package proxy

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

// keyStore stands for the keychain: the key it holds can change while gw
// serve runs, as with `gw auth login` or `gw auth logout` in another terminal.
type keyStore struct {
	mu    sync.Mutex
	key   string
	reads int
}

func (s *keyStore) set(k string) { s.mu.Lock(); s.key = k; s.mu.Unlock() }

func (s *keyStore) source(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	if s.key == "" {
		return "", fmt.Errorf("%w: keychain", keychain.ErrNotFound)
	}
	return s.key, nil
}

func TestKeyChangesReachARunningProxy(t *testing.T) {
	store := &keyStore{key: standin.DemoKeyPartial}
	r := newRig(t, rigOpts{key: store.source})
	clock := time.Unix(1000, 0)
	r.keys.now = func() time.Time { return clock }

	call := func() (int, string) {
		res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
		return res.StatusCode, readAll(t, res)
	}
	lastKey := func() string { s := r.up.Seen(); return s[len(s)-1].Key }

	for range 5 {
		if st, body := call(); st != 200 {
			t.Fatalf("status %d: %s", st, body)
		}
	}
	if store.reads != 1 {
		t.Errorf("the key source was read %d times for 5 requests within the refresh interval, want 1", store.reads)
	}

	store.set(realKey) // gw auth login with another key
	call()
	if lastKey() != standin.DemoKeyPartial {
		t.Fatal("key re-read before the refresh interval passed")
	}
	clock = clock.Add(DefaultKeyRefresh)
	call() // served the cached key while the keychain is read again
	settle(r.keys)
	call()
	if lastKey() != realKey {
		t.Errorf("after the refresh interval the old key is still used")
	}

	store.set("") // gw auth logout
	clock = clock.Add(keyMaxAge(DefaultKeyRefresh))
	st, body := call()
	if st != 401 || !strings.Contains(body, "no key stored — run gw auth login") {
		t.Errorf("after logout: %d %s", st, body)
	}
	if keyMaxAge(DefaultKeyRefresh) > 5*time.Second {
		t.Errorf("a key may be served %s after it was read, more than the promised 5 s", keyMaxAge(DefaultKeyRefresh))
	}
}

// settle waits for k's read of its source, if one is under way.
func settle(k *KeyCache) {
	k.mu.Lock()
	f := k.reading
	k.mu.Unlock()
	if f != nil {
		<-f.done
	}
}

func TestSlowKeychainDoesNotHoldUpRequestsWithACachedKey(t *testing.T) {
	store := &keyStore{key: standin.DemoKeyPartial}
	release := make(chan struct{})
	reads := 0
	k := NewKeyCache(func(ctx context.Context) (string, error) {
		reads++ // one read at a time: KeyCache never starts a second
		if reads > 1 {
			<-release // a keychain that hangs, say on an unlock prompt
		}
		return store.source(ctx)
	}, time.Hour)
	clock := time.Unix(1000, 0)
	k.now = func() time.Time { return clock }
	if got, _ := k.Get(context.Background()); got != standin.DemoKeyPartial {
		t.Fatalf("first read: %q", got)
	}
	store.set(realKey)
	clock = clock.Add(time.Hour) // stale, not yet too old to serve

	got := make(chan string, 1)
	go func() { key, _ := k.Get(context.Background()); got <- key }()
	select {
	case key := <-got:
		if key != standin.DemoKeyPartial {
			t.Errorf("while the keychain hangs got %q, want the cached key", key)
		}
	case <-waitCtx(t).Done():
		t.Fatal("a request waited for a hanging keychain although a key was cached")
	}
	close(release)
	settle(k)
	if key, err := k.Get(context.Background()); key != realKey || err != nil {
		t.Errorf("after the keychain answered: %q, %v", key, err)
	}
}

func TestKeyCacheReadsOnceForConcurrentRequests(t *testing.T) {
	store := &keyStore{key: realKey}
	k := NewKeyCache(store.source, time.Hour)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if got, err := k.Get(context.Background()); got != realKey || err != nil {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
	wg.Wait()
	if store.reads != 1 {
		t.Errorf("50 concurrent requests read the keychain %d times, want 1", store.reads)
	}
}

func TestKeyReadCutShortByTheRequestIsNotCached(t *testing.T) {
	store := &keyStore{key: realKey}
	k := NewKeyCache(func(ctx context.Context) (string, error) {
		if ctx.Err() != nil {
			return "", ctx.Err() // the keychain call gave up with the request
		}
		return store.source(ctx)
	}, time.Hour)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.Get(gone); err == nil {
		t.Fatal("a read for a departed request succeeded")
	}
	if got, err := k.Get(context.Background()); got != realKey || err != nil {
		t.Errorf("the next request got %q, %v: the failed read was cached", got, err)
	}
	settle(k)
}
