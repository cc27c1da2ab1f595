package apiserver

// eventExpiry removes one Event when its TTL runs out, unless it was written again since
// (upstream: each create or update of an Event replaces its etcd lease of --event-ttl, so an
// Event lives EventTTL after its last write; pkg/registry/core/event/storage/storage.go
// TTLFunc). It is a kernel event without a hold: expiries are not pending work.
type eventExpiry struct {
	s   *Store
	ks  *kindStore
	key objKey
	rv  uint64
}

// Fire implements sim.Handler.
func (e *eventExpiry) Fire(uint64) {
	cur := e.ks.objects[e.key]
	if cur == nil || cur.Meta().ResourceVersion != e.rv {
		return
	}
	e.s.commitDelete(e.ks, e.key, cur, "event-ttl")
}

// expireEvent schedules the removal of the Event at key written at revision rv.
func (s *Store) expireEvent(ks *kindStore, key objKey, rv uint64) {
	s.k.Schedule(s.k.Now().Add(s.cfg.EventTTL), &eventExpiry{s: s, ks: ks, key: key, rv: rv}, 0, false)
}
