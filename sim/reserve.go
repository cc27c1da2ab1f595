package sim

import "github.com/reconsim/reconsim/vtime"

// Reserve takes the sequence number Schedule would give an event scheduled now, and schedules
// nothing: ScheduleReserved with it later puts an event exactly where Schedule would have put
// it now, among the events at its time. It lets a caller keep events that it knows fire in
// the order they were made (the API server's Event expiries, each its write time plus one
// TTL) in a queue of its own, with only the earliest in the heap, and still fire each one at
// the same place in the run's order of events as if each had been scheduled when it was made.
func (k *Kernel) Reserve() uint64 {
	k.seq++
	return k.seq
}

// ScheduleReserved is Schedule with the sequence number seq taken by Reserve (each number used
// once): h.Fire(arg) runs at at (now if earlier), before the events at that time that were
// scheduled after seq was reserved and after those scheduled before.
func (k *Kernel) ScheduleReserved(at vtime.Time, seq uint64, h Handler, arg uint64, hold bool) {
	if at < k.now {
		at = k.now
	}
	if hold {
		k.holds++
	}
	k.heap.push(event{at: at, seq: seq, h: h, arg: arg, hold: hold})
}
