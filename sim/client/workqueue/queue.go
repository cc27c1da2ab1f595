package workqueue

import (
	"context"
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// TypedInterface is the plain work queue (upstream TypedInterface).
type TypedInterface[T comparable] interface {
	// Add marks item as needing processing. It is dropped once the queue is shutting down.
	Add(item T)
	// Len returns the number of items waiting to be handed out (not those being processed).
	Len() int
	// Get parks the calling process (found in ctx) until an item is available and returns it,
	// marking it as being processed. shutdown is true, with the zero item, once the queue is
	// shutting down and empty. Every item returned must be passed to Done.
	Get(ctx context.Context) (item T, shutdown bool)
	// Done marks item as no longer being processed; if it was added meanwhile, it is queued
	// again.
	Done(item T)
	// ShutDown makes Add drop new items and wakes every waiting Get; items already queued are
	// still handed out.
	ShutDown()
	// ShutDownWithDrain is ShutDown that then parks the calling process until every item being
	// processed has been marked Done.
	ShutDownWithDrain(ctx context.Context)
	// ShuttingDown reports whether ShutDown has been called.
	ShuttingDown() bool
}

// Stats are the upstream workqueue metrics (util/workqueue/metrics.go) for one queue, as
// cumulative counters and instantaneous gauges on virtual time.
type Stats struct {
	Name string
	// Depth is the number of items waiting to be processed, including items added while being
	// processed (upstream workqueue_depth).
	Depth int
	// Adds counts items that entered the queue; a collapsed duplicate is not counted
	// (workqueue_adds_total).
	Adds uint64
	// Retries counts AddAfter calls, including those made by AddRateLimited
	// (workqueue_retries_total; upstream counts in AddAfter).
	Retries uint64
	// Gets and Dones count items handed out and finished.
	Gets, Dones uint64
	// QueueDurationTotal is the summed time items waited between Add and Get
	// (workqueue_queue_duration_seconds, as a sum).
	QueueDurationTotal time.Duration
	// WorkDurationTotal is the summed time between Get and Done
	// (workqueue_work_duration_seconds, as a sum).
	WorkDurationTotal time.Duration
	// UnfinishedWork is the summed age of the items being processed now
	// (workqueue_unfinished_work_seconds).
	UnfinishedWork time.Duration
	// LongestRunningProcessor is the age of the oldest item being processed now
	// (workqueue_longest_running_processor_seconds).
	LongestRunningProcessor time.Duration
	// Waiting is the number of delayed items not yet due (delaying queues only).
	Waiting int
}

// Typed is the FIFO work queue with client-go's dirty/processing semantics (queue.go). The zero
// value is not usable; call New.
type Typed[T comparable] struct {
	k    *sim.Kernel
	name string

	// ready holds the items ready to be handed out, oldest first.
	ready FIFO[T]
	// dirty holds every item that needs processing, with the time it was added (for the
	// queue-duration metric); processing holds the items handed out, with the time of Get.
	dirty      map[T]vtime.Time
	processing map[T]vtime.Time
	// burst notes that dirty held a burst, to be released once it is handed out.
	burst burst
	// reserve is the size of a burst announced by Reserve, for which the next Add makes dirty.
	reserve int

	// waiters are the processes parked in Get; drainWaiters are parked in ShutDownWithDrain.
	waiters      sim.WaitQueue
	drainWaiters []*sim.Proc

	shuttingDown bool
	drain        bool

	adds, retries, gets, dones uint64
	queueDurationTotal         time.Duration
	workDurationTotal          time.Duration
}

var _ TypedInterface[string] = (*Typed[string])(nil)

// New returns an empty queue on kernel k. name labels its stats.
func New[T comparable](k *sim.Kernel, name string) *Typed[T] {
	if k == nil {
		panic("workqueue: New needs a kernel")
	}
	return &Typed[T]{
		k:          k,
		name:       name,
		dirty:      make(map[T]vtime.Time),
		processing: make(map[T]vtime.Time),
	}
}

// Name returns the name the queue was created with.
func (q *Typed[T]) Name() string { return q.name }

// Add marks item as needing processing (upstream Add): a no-op while shutting down or while
// the item is already waiting; parked until Done while the item is being processed; otherwise
// appended to the FIFO, waking the longest-waiting Get.
func (q *Typed[T]) Add(item T) {
	if q.shuttingDown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		return
	}
	q.adds++
	if q.reserve > 0 {
		if len(q.dirty) == 0 {
			q.dirty = make(map[T]vtime.Time, q.reserve)
		}
		q.reserve = 0
	}
	q.dirty[item] = q.k.Now()
	q.burst.grew(len(q.dirty))
	if _, ok := q.processing[item]; ok {
		return
	}
	q.ready.Push(item)
	q.waiters.Signal()
}

// Reserve tells an empty queue that about n items are about to be added at once (an
// informer's first list queues every object it lists): the next Add makes the map of waiting
// items for n, instead of the map growing item by item. Small n, or a queue with items
// waiting, are ignored; nothing is allocated until an item comes.
func (q *Typed[T]) Reserve(n int) {
	if n > burstItems && len(q.dirty) == 0 {
		q.reserve = n
	}
}

// Len returns the number of items ready to be handed out.
func (q *Typed[T]) Len() int { return q.ready.Len() }

// Get parks the calling process until an item is ready or the queue shuts down (upstream Get).
// Items still queued at shutdown are handed out before Get reports shutdown. It panics if ctx
// carries no simulated process (a programming error).
func (q *Typed[T]) Get(ctx context.Context) (item T, shutdown bool) {
	p := sim.ProcFromContext(ctx)
	for q.Len() == 0 && !q.shuttingDown {
		q.waiters.Wait(p, q)
	}
	if q.Len() == 0 {
		var zero T
		return zero, true
	}
	item = q.ready.Pop()
	now := q.k.Now()
	q.gets++
	q.queueDurationTotal += now.Sub(q.dirty[item])
	q.processing[item] = now
	delete(q.dirty, item)
	if q.burst.drained(len(q.dirty)) {
		q.dirty, q.ready = make(map[T]vtime.Time), FIFO[T]{}
	}
	return item, false
}

// Done marks item as processed (upstream Done). If it was added while being processed it is
// queued again now. Done for an item that is not being processed does nothing.
func (q *Typed[T]) Done(item T) {
	start, ok := q.processing[item]
	if !ok {
		return
	}
	q.dones++
	q.workDurationTotal += q.k.Now().Sub(start)
	delete(q.processing, item)
	if _, ok := q.dirty[item]; ok {
		q.ready.Push(item)
		q.waiters.Signal()
	}
	if len(q.processing) == 0 && len(q.drainWaiters) > 0 {
		q.wakeDrainers()
	}
}

// ShutDown stops the queue accepting items and wakes every process parked in Get.
func (q *Typed[T]) ShutDown() {
	q.shuttingDown = true
	q.waiters.Broadcast()
}

// ShutDownWithDrain shuts the queue down and parks the calling process until no item is being
// processed (upstream ShutDownWithDrain). Workers must keep calling Done for it to return.
func (q *Typed[T]) ShutDownWithDrain(ctx context.Context) {
	p := sim.ProcFromContext(ctx)
	q.drain = true
	q.ShutDown()
	for len(q.processing) > 0 && q.drain {
		q.drainWaiters = append(q.drainWaiters, p)
		p.Park()
	}
}

func (q *Typed[T]) wakeDrainers() {
	ws := q.drainWaiters
	q.drainWaiters = nil
	for _, p := range ws {
		p.Unpark()
	}
}

// ShuttingDown reports whether ShutDown has been called.
func (q *Typed[T]) ShuttingDown() bool { return q.shuttingDown }

// Stats returns the queue's metrics now.
func (q *Typed[T]) Stats() Stats {
	now := q.k.Now()
	s := Stats{
		Name:               q.name,
		Depth:              len(q.dirty),
		Adds:               q.adds,
		Retries:            q.retries,
		Gets:               q.gets,
		Dones:              q.dones,
		QueueDurationTotal: q.queueDurationTotal,
		WorkDurationTotal:  q.workDurationTotal,
	}
	for _, start := range q.processing { //detlint:ordered a sum and a maximum do not depend on order
		age := now.Sub(start)
		s.UnfinishedWork += age
		if age > s.LongestRunningProcessor {
			s.LongestRunningProcessor = age
		}
	}
	return s
}
