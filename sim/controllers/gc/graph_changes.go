package gc

import (
	"context"

	"github.com/reconsim/reconsim/sim"
)

// eventQueue is the graph builder's queue of events (upstream graphChanges). Upstream uses a
// work queue, but every event is queued once, as a new pointer, so the queue's deduplication
// (dirty and processing sets) never applies and Done has nothing to do: what remains is a
// FIFO that hands events out in the order they were added and wakes a parked Get exactly when
// the work queue does. Skipping the sets saves four map operations per event, and the graph
// builder sees every Lease renewal.
type eventQueue struct {
	// queue holds the events not handed out yet, oldest first, from index head on.
	queue []*event
	head  int
	// waiters are the processes parked in Get.
	waiters      sim.WaitQueue
	shuttingDown bool
}

// Add queues ev and wakes the longest-waiting Get; it does nothing after ShutDown.
func (q *eventQueue) Add(ev *event) {
	if q.shuttingDown {
		return
	}
	if q.head > 0 && q.head >= len(q.queue)/2 && len(q.queue) == cap(q.queue) {
		n := copy(q.queue, q.queue[q.head:])
		clear(q.queue[n:])
		q.queue = q.queue[:n]
		q.head = 0
	}
	q.queue = append(q.queue, ev)
	q.waiters.Signal()
}

// Len returns the number of events waiting.
func (q *eventQueue) Len() int { return len(q.queue) - q.head }

// Get parks the calling process until an event is queued or the queue shuts down. Events
// still queued at shutdown are handed out before Get reports shutdown. It panics if ctx
// carries no simulated process (a programming error).
func (q *eventQueue) Get(ctx context.Context) (ev *event, shutdown bool) {
	p := sim.ProcFromContext(ctx)
	for q.Len() == 0 && !q.shuttingDown {
		q.waiters.Wait(p, q)
	}
	if q.Len() == 0 {
		return nil, true
	}
	ev = q.queue[q.head]
	q.queue[q.head] = nil
	q.head++
	if q.head == len(q.queue) {
		q.queue = q.queue[:0]
		q.head = 0
	}
	return ev, false
}

// ShutDown stops the queue accepting events and wakes every process parked in Get.
func (q *eventQueue) ShutDown() {
	q.shuttingDown = true
	q.waiters.Broadcast()
}
