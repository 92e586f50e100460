package proxy

import (
	"context"
	"sync"
	"time"
)

// modelListTTL is how long gw serve reuses the account's model ids to
// suggest the closest one after an unknown-model error.
const modelListTTL = time.Minute

// modelList remembers the account's model ids for a while, for the key they
// were listed with, so that an agent retrying a misspelled id does not cost
// a GET /models each time. Callers arriving during a listing wait for it and
// share its answer. Failed listings are not remembered.
type modelList struct {
	fetch func(ctx context.Context, key string) ([]string, error)
	ttl   time.Duration
	now   func() time.Time

	mu  sync.Mutex
	key string // the key ids were listed with
	ids []string
	at  time.Time
}

func newModelList(fetch func(ctx context.Context, key string) ([]string, error)) *modelList {
	return &modelList{fetch: fetch, ttl: modelListTTL, now: time.Now}
}

func (m *modelList) get(ctx context.Context, key string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ids != nil && m.key == key && m.now().Sub(m.at) < m.ttl {
		return m.ids, nil
	}
	ids, err := m.fetch(ctx, key)
	if err != nil {
		return ids, err
	}
	m.key, m.ids, m.at = key, ids, m.now()
	return ids, nil
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
