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

// Fire implements sim.Handler. A fired expiry lets go of what it names, as its block lives
// on while the block's other expiries are pending.
func (e *eventExpiry) Fire(uint64) {
	s, ks, key, rv := e.s, e.ks, e.key, e.rv
	*e = eventExpiry{}
	cur := ks.objects[key]
	if cur == nil || cur.Meta().ResourceVersion != rv {
		return
	}
	s.commitDelete(ks, key, cur, "event-ttl")
}

// eventExpiryBlock is the number of expiries allocated at once (Store.expiries): every Event
// write schedules one, and one allocation each was 1% of thundering-herd's.
const eventExpiryBlock = 256

// expireEvent schedules the removal of the Event at key written at revision rv.
func (s *Store) expireEvent(ks *kindStore, key objKey, rv uint64) {
	if len(s.expiries) == 0 {
		s.expiries = make([]eventExpiry, eventExpiryBlock)
	}
	e := &s.expiries[0]
	s.expiries = s.expiries[1:]
	*e = eventExpiry{s: s, ks: ks, key: key, rv: rv}
	s.k.Schedule(s.k.Now().Add(s.cfg.EventTTL), e, 0, false)
}
