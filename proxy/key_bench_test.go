package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/keychain/keychaintest"
	"github.com/modelgateway/gw/standin"
)

// BenchmarkFirstRequestAfterIdle_RealKeychain is the first request of a
// coding agent's turn: a request through gw serve's handler to the stand-in
// on loopback, timed to its response's first byte, after the user's think
// time, with the key in the real OS keychain (a throwaway gnome-keyring over
// D-Bus). The idle gap is a step of the key cache's clock (5 s, past
// keyMaxAge), not a wait; the keychain and the network are real.
//
//   - fresh: the key was read a moment ago (no idle): the floor.
//   - timer: the key cache without a marker, as before key-changed existed:
//     the request waits for a keychain read.
//   - marker: the key cache watching the key-changed file, unchanged: the
//     request goes out with the cached key, the keychain is read beside it.
//
// Compare timer and marker with fresh of the same run (ratios, not times):
//
//	scripts/with-keyring.sh go test ./proxy -run '^$' -bench FirstRequestAfterIdle -count 5
//
// gw serve's own key source also reads config.json (the key policy), which
// this one leaves out: the timer case there waits a little longer still.
func BenchmarkFirstRequestAfterIdle_RealKeychain(b *testing.B) {
	if !keychaintest.Isolated() {
		b.Skip("needs the throwaway keychain: run under scripts/with-keyring.sh")
	}
	store := keychain.NewOS(keychain.DefaultTimeout)
	if err := store.Set(keychain.DefaultAccount, realKey); err != nil {
		b.Fatalf("storing the key in the keychain: %v", err)
	}
	b.Cleanup(func() { _ = store.Delete(keychain.DefaultAccount) })
	src := func(context.Context) (string, keychain.Source, error) {
		r, err := keychain.Resolve(func(string) string { return "" }, store, nil, keychain.DefaultAccount)
		return r.Key, r.Source, err
	}
	marker := filepath.Join(b.TempDir(), "key-changed")
	if err := config.MarkKeyChanged(marker); err != nil {
		b.Fatal(err)
	}
	stamp := func() (Stamp, bool) { s, err := config.KeyChangedStamp(marker); return s, err == nil }

	for _, c := range []struct {
		name  string
		stamp KeyStamp
		idle  time.Duration
	}{{"fresh", nil, 0}, {"timer", nil, 5 * time.Second}, {"marker", stamp, 5 * time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			keys := NewWatchedKeyCache(src, 0, c.stamp)
			var mu sync.Mutex
			clock := time.Unix(1000, 0)
			keys.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
			get := benchRig(b, keys)
			get() // the first read, at start
			b.ResetTimer()
			for b.Loop() {
				mu.Lock()
				clock = clock.Add(c.idle)
				mu.Unlock()
				get()
			}
			b.StopTimer()
			settleAll(keys)
		})
	}
}

// benchRig serves gw serve's handler with keys in front of the stand-in, both
// on loopback, and returns a request to it timed to the first byte of the
// answer (the body is read afterwards, off the clock).
func benchRig(b *testing.B, keys *KeyCache) func() {
	up := httptest.NewServer(standin.New(standin.Options{}))
	u, _ := url.Parse(up.URL + "/v1")
	tr := api.NewTransport(api.TransportOptions{})
	h, err := New(Options{Upstream: u, Transport: tr, Key: keys, LocalToken: testToken, Log: io.Discard, Warm: WarmOptions{Off: true}})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	ctr := &http.Transport{Proxy: nil}
	client := &http.Client{Transport: ctr}
	b.Cleanup(func() {
		ctr.CloseIdleConnections()
		srv.Close()
		h.Close()
		tr.CloseIdleConnections()
		up.Close()
	})
	return func() {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/models", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
		b.StartTimer()
	}
}

// settleAll waits for every read of k's source under way.
func settleAll(k *KeyCache) {
	for {
		k.mu.Lock()
		f := k.reading
		k.mu.Unlock()
		if f == nil {
			return
		}
		<-f.done
	}
}

// BenchmarkKeyCacheGetWatched is what watching the key-changed file adds to
// every request's key lookup (one lstat), against the lookup without it
// (BenchmarkKeyCacheGet's, from one goroutine) in the same run.
func BenchmarkKeyCacheGetWatched(b *testing.B) {
	marker := filepath.Join(b.TempDir(), "key-changed")
	if err := config.MarkKeyChanged(marker); err != nil {
		b.Fatal(err)
	}
	stamp := func() (Stamp, bool) { s, err := config.KeyChangedStamp(marker); return s, err == nil }
	for _, c := range []struct {
		name  string
		stamp KeyStamp
	}{{"unwatched", nil}, {"watched", stamp}} {
		b.Run(c.name, func(b *testing.B) {
			k := NewWatchedKeyCache(func(context.Context) (string, keychain.Source, error) { return realKey, "", nil }, time.Hour, c.stamp)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if key, err := k.Get(ctx); key != realKey || err != nil {
					b.Fatalf("got %q, %v", key, err)
				}
			}
		})
	}
}
