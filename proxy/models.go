package proxy

import (
	"context"
	"sync"
	"time"
)

// modelListTTL is how long gw serve reuses the account's model ids to
// suggest the closest one after an unknown-model error.
const modelListTTL = time.Minute

// modelListTimeout bounds one listing, which no one request owns.
const modelListTimeout = 30 * time.Second

// modelList remembers the account's model ids for a while, for the key they
// were listed with, so that an agent retrying a misspelled id does not cost
// a GET /models each time. Callers arriving during a listing for the same
// key share it (one GET, whatever it answers) and each stops waiting when
// its own request ends; the listing is no one request's, so one agent
// hanging up does not fail it for the others. Failed listings are not
// remembered.
type modelList struct {
	fetch func(ctx context.Context, key string) ([]string, error)
	ttl   time.Duration
	now   func() time.Time

	mu      sync.Mutex
	key     string // the key ids were listed with
	ids     []string
	at      time.Time
	flights map[string]*modelFlight // listings under way, by key
}

// modelFlight is a listing under way; ids and err are set before done
// closes.
type modelFlight struct {
	done chan struct{}
	ids  []string
	err  error
}

func newModelList(fetch func(ctx context.Context, key string) ([]string, error)) *modelList {
	return &modelList{fetch: fetch, ttl: modelListTTL, now: time.Now, flights: map[string]*modelFlight{}}
}

func (m *modelList) get(ctx context.Context, key string) ([]string, error) {
	m.mu.Lock()
	if m.ids != nil && m.key == key && m.now().Sub(m.at) < m.ttl {
		ids := m.ids
		m.mu.Unlock()
		return ids, nil
	}
	f := m.flights[key]
	if f == nil {
		f = &modelFlight{done: make(chan struct{})}
		m.flights[key] = f
		go m.list(context.WithoutCancel(ctx), key, f)
	}
	m.mu.Unlock()
	select {
	case <-f.done:
		return f.ids, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (m *modelList) list(ctx context.Context, key string, f *modelFlight) {
	ctx, cancel := context.WithTimeout(ctx, modelListTimeout)
	ids, err := m.fetch(ctx, key)
	cancel()
	m.mu.Lock()
	delete(m.flights, key)
	if err == nil {
		m.key, m.ids, m.at = key, ids, m.now()
	}
	m.mu.Unlock()
	f.ids, f.err = ids, err
	close(f.done)
}

// modelIDs is Options.ModelIDs for gw serve: the account's ids listed with
// the current key, remembered per key.
func (m *modelList) modelIDs(keys *KeyCache) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		key, err := keys.Get(ctx)
		if err != nil {
			return nil, err
		}
		return m.get(ctx, key)
	}
}
