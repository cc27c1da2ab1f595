package gc

import (
	"context"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/workqueue"
)

// eventQueue is the graph builder's queue of events (upstream graphChanges). Upstream uses a
// work queue, but every event is queued once, as a new pointer, so the queue's deduplication
// (dirty and processing sets) never applies and Done has nothing to do: what remains is a
// FIFO that hands events out in the order they were added and wakes a parked Get exactly when
// the work queue does. Skipping the sets saves four map operations per event, and the graph
// builder sees every Lease renewal. The events are held by value in a workqueue.FIFO's
// blocks: a first list queues an event per object at once (150,000 pods in scale-5k, 17.5 MiB
// as one allocation each), and the blocks are reused as they are handed out.
type eventQueue struct {
	// queue holds the events not handed out yet, oldest first.
	queue workqueue.FIFO[event]
	// waiters are the processes parked in Get.
	waiters      sim.WaitQueue
	shuttingDown bool
}

// Add queues ev and wakes the longest-waiting Get; it does nothing after ShutDown.
func (q *eventQueue) Add(ev event) {
	if q.shuttingDown {
		return
	}
	q.queue.Push(ev)
	q.waiters.Signal()
}

// Len returns the number of events waiting.
func (q *eventQueue) Len() int { return q.queue.Len() }

// Get parks the calling process until an event is queued or the queue shuts down. Events
// still queued at shutdown are handed out before Get reports shutdown. It panics if ctx
// carries no simulated process (a programming error).
func (q *eventQueue) Get(ctx context.Context) (ev event, shutdown bool) {
	p := sim.ProcFromContext(ctx)
	for q.Len() == 0 && !q.shuttingDown {
		q.waiters.Wait(p, q)
	}
	if q.Len() == 0 {
		return event{}, true
	}
	return q.queue.Pop(), false
}

// ShutDown stops the queue accepting events and wakes every process parked in Get.
func (q *eventQueue) ShutDown() {
	q.shuttingDown = true
	q.waiters.Broadcast()
}
