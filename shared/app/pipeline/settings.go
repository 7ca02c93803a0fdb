package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// SettingsTTL is how long an instance keeps a partner's settings (rate
// card, beta features) before reading them again. A change an operator
// makes therefore reaches every request of that partner within SettingsTTL
// (well inside the promised 60 s), whichever key or instance serves it:
// settings live on the partner record only, never copied onto keys, so a
// key created during a change cannot keep a stale copy.
const SettingsTTL = 30 * time.Second

// settingsCache is a per-instance cache of partner settings.
type settingsCache struct {
	load func(context.Context, string) (partner.Partner, error)
	ttl  time.Duration
	mu   sync.Mutex
	m    map[string]cachedPartner
}

type cachedPartner struct {
	p       partner.Partner
	fetched time.Time
}

func newSettingsCache(load func(context.Context, string) (partner.Partner, error), ttl time.Duration) *settingsCache {
	return &settingsCache{load: load, ttl: ttl, m: map[string]cachedPartner{}}
}

// get returns partner id's settings as of at most ttl before now. A failed
// read is not cached. Concurrent misses may read twice; that is cheaper
// than holding a lock across a network call.
func (s *settingsCache) get(ctx context.Context, id string, now time.Time) (partner.Partner, error) {
	s.mu.Lock()
	c, ok := s.m[id]
	s.mu.Unlock()
	if ok && now.Sub(c.fetched) < s.ttl && !now.Before(c.fetched) {
		return c.p, nil
	}
	p, err := s.load(ctx, id)
	if err != nil {
		return partner.Partner{}, err
	}
	s.mu.Lock()
	s.m[id] = cachedPartner{p: p, fetched: now}
	s.mu.Unlock()
	return p, nil
}
