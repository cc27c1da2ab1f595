package apiserver

import "github.com/reconsim/reconsim/vtime"

// eventExpiry is the removal of one Event when its TTL runs out, unless it was written again
// since (upstream: each create or update of an Event replaces its etcd lease of --event-ttl,
// so an Event lives EventTTL after its last write; pkg/registry/core/event/storage/storage.go
// TTLFunc).
type eventExpiry struct {
	key objKey
	rv  uint64
	at  vtime.Time
	// seq is the kernel's place for the expiry, taken at the write (sim.Kernel.Reserve).
	seq uint64
}

// eventExpiries are the pending expiries of one store's Events, in the order they fire. Every
// expiry is its write's time plus the one EventTTL, and writes come in time order, so the
// order of the writes is the order of (time, sequence number) the kernel fires events in: the
// queue's first expiry is its earliest, and only that one is in the kernel's heap, scheduled at
// the place it took at its write (sim.Kernel.ScheduleReserved). Each expiry is still one
// kernel event, fired at the same time and in the same place among the run's events as a
// kernel event scheduled at the write; the heap no longer holds one event per Event written in
// the last hour (about 54,000 of thundering-herd's 56,000 pending events at its end), which
// every push and pop of the run had to sift past. A kernel event without a hold: expiries are
// not pending work.
type eventExpiries struct {
	s  *Store
	ks *kindStore
	// queue[head:] are the pending expiries, the first one in the kernel's heap.
	queue []eventExpiry
	head  int
}

// expireEvent schedules the removal of the Event at key written now at revision rv.
func (s *Store) expireEvent(ks *kindStore, key objKey, rv uint64) {
	q := &s.expiries
	q.s, q.ks = s, ks
	if q.head == len(q.queue) {
		q.queue, q.head = q.queue[:0], 0
	} else if q.head >= len(q.queue)/2 && len(q.queue) == cap(q.queue) {
		// Full, and half of it fired: move the pending down rather than grow.
		n := copy(q.queue, q.queue[q.head:])
		clear(q.queue[n:])
		q.queue, q.head = q.queue[:n], 0
	}
	e := eventExpiry{key: key, rv: rv, at: s.k.Now().Add(s.cfg.EventTTL), seq: s.k.Reserve()}
	q.queue = append(q.queue, e)
	if len(q.queue)-q.head == 1 {
		s.k.ScheduleReserved(e.at, e.seq, q, 0, false)
	}
}

// Fire implements sim.Handler: the first expiry fires, and the next one goes into the heap.
// The fired expiry lets go of the key it names.
func (q *eventExpiries) Fire(uint64) {
	e := q.queue[q.head]
	q.queue[q.head] = eventExpiry{}
	q.head++
	if q.head < len(q.queue) {
		next := &q.queue[q.head]
		q.s.k.ScheduleReserved(next.at, next.seq, q, 0, false)
	}
	cur := q.ks.objects[e.key]
	if cur == nil || cur.Meta().ResourceVersion != e.rv {
		return
	}
	q.s.commitDelete(q.ks, e.key, cur, "event-ttl")
}
