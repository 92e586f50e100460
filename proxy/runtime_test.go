package proxy

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Listening beyond loopback is not exercised here (tests stay on loopback);
// what decides the warning is (config.IsLoopbackHost, tested there) and the hosts accepted.
func TestListenHosts(t *testing.T) {
	if got := listenHosts("192.168.1.2"); len(got) != 1 || got[0] != "192.168.1.2" {
		t.Errorf("listenHosts: %v", got)
	}
}

// An agent retrying a misspelled id costs one listing per key and minute;
// a failed listing is tried again at the next error.
func TestModelListIsReusedPerKeyForAMinute(t *testing.T) {
	var listed []string
	fail := false
	m := newModelList(func(_ context.Context, key string) ([]string, error) {
		listed = append(listed, key)
		if fail {
			return nil, errors.New("service unreachable")
		}
		return []string{"model-of-" + key}, nil
	})
	clock := time.Unix(1000, 0)
	m.now = func() time.Time { return clock }
	ctx := context.Background()

	for range 3 {
		if ids, err := m.get(ctx, "k1"); err != nil || len(ids) != 1 || ids[0] != "model-of-k1" {
			t.Fatalf("got %v, %v", ids, err)
		}
	}
	clock = clock.Add(modelListTTL - time.Second)
	_, _ = m.get(ctx, "k1")
	if len(listed) != 1 {
		t.Errorf("listed %d times within the minute, want once: %v", len(listed), listed)
	}
	_, _ = m.get(ctx, "k2") // gw auth login with another account
	clock = clock.Add(modelListTTL)
	fail = true
	if _, err := m.get(ctx, "k2"); err == nil {
		t.Error("a failed listing after the minute was answered from the cache")
	}
	fail = false
	if ids, _ := m.get(ctx, "k2"); len(ids) != 1 || ids[0] != "model-of-k2" {
		t.Errorf("after a failed listing: %v", ids)
	}
	if want := []string{"k1", "k2", "k2", "k2"}; len(listed) != len(want) {
		t.Errorf("listings %v, want %v", listed, want)
	}
}
