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
	// blocks hold the pending expiries in order, from blocks[0][head]; every block but the
	// last is full. Blocks of eventExpiryBlock, not one slice grown by doubling: thundering-herd
	// keeps 54,000 pending, and the doubling's copies were 3.6 MB more allocated per run.
	blocks [][]eventExpiry
	head   int
	// spare is a block whose expiries all fired, for the next block needed.
	spare []eventExpiry
}

// eventExpiryBlock is the number of expiries in a block (eventExpiries.blocks).
const eventExpiryBlock = 256

// expireEvent schedules the removal of the Event at key written now at revision rv.
func (s *Store) expireEvent(ks *kindStore, key objKey, rv uint64) {
	q := &s.expiries
	q.s, q.ks = s, ks
	if n := len(q.blocks); n == 0 || len(q.blocks[n-1]) == eventExpiryBlock {
		b := q.spare
		if b == nil {
			b = make([]eventExpiry, 0, eventExpiryBlock)
		}
		q.spare = nil
		q.blocks = append(q.blocks, b)
	}
	e := eventExpiry{key: key, rv: rv, at: s.k.Now().Add(s.cfg.EventTTL), seq: s.k.Reserve()}
	last := &q.blocks[len(q.blocks)-1]
	*last = append(*last, e)
	if len(q.blocks) == 1 && len(*last)-q.head == 1 {
		s.k.ScheduleReserved(e.at, e.seq, q, 0, false)
	}
}

// Fire implements sim.Handler: the first expiry fires, and the next one goes into the heap.
// The fired expiry lets go of the key it names.
func (q *eventExpiries) Fire(uint64) {
	first := q.blocks[0]
	e := first[q.head]
	first[q.head] = eventExpiry{}
	q.head++
	if q.head == len(first) {
		// The first block is done: it is full, or it is the last and the queue is empty.
		q.spare = first[:0]
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head = 0
	}
	if len(q.blocks) > 0 {
		next := &q.blocks[0][q.head]
		q.s.k.ScheduleReserved(next.at, next.seq, q, 0, false)
	}
	cur := q.ks.objects[e.key]
	if cur == nil || cur.Meta().ResourceVersion != e.rv {
		return
	}
	q.s.commitDelete(q.ks, e.key, cur, "event-ttl")
}
