package workqueue

import (
	"context"
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// TypedDelayingInterface is a queue that can add an item later (upstream
// TypedDelayingInterface).
type TypedDelayingInterface[T comparable] interface {
	TypedInterface[T]
	// AddAfter adds item once d of virtual time has passed. d <= 0 is Add. If the item is
	// already waiting, its ready time only ever moves earlier.
	AddAfter(item T, d time.Duration)
}

// waitFor is one delayed item (upstream waitFor): it becomes ready at readyAt; seq breaks ties
// between equal readyAt in insertion order so that the result never depends on heap layout.
type waitFor[T comparable] struct {
	item    T
	readyAt vtime.Time
	seq     uint64
	index   int
}

// Delaying is a Typed queue with AddAfter (upstream delaying_queue.go). Delayed items sit in a
// min-heap on (readyAt, insertion order) with one idle timer armed at the earliest readyAt; they
// are not holds (see the package doc).
type Delaying[T comparable] struct {
	*Typed[T]

	heap    []*waitFor[T]
	waiting map[T]*waitFor[T]
	seq     uint64
	timer   *sim.Timer
}

var _ TypedDelayingInterface[string] = (*Delaying[string])(nil)

// NewDelaying returns an empty delaying queue on kernel k.
func NewDelaying[T comparable](k *sim.Kernel, name string) *Delaying[T] {
	q := &Delaying[T]{Typed: New[T](k, name), waiting: make(map[T]*waitFor[T])}
	q.timer = k.NewIdleTimer(q.fire)
	return q
}

// AddAfter adds item after d (upstream AddAfter). It does nothing once the queue is shutting
// down; d <= 0 adds at once; an item already waiting keeps the earlier of its two ready times.
// Every call counts as a retry in Stats, as upstream.
func (q *Delaying[T]) AddAfter(item T, d time.Duration) {
	if q.shuttingDown {
		return
	}
	q.retries++
	if d <= 0 {
		q.Add(item)
		return
	}
	readyAt := q.k.Now().Add(d)
	if e, ok := q.waiting[item]; ok {
		if readyAt < e.readyAt {
			e.readyAt = readyAt
			q.up(e.index)
			q.arm()
		}
		return
	}
	q.seq++
	e := &waitFor[T]{item: item, readyAt: readyAt, seq: q.seq, index: len(q.heap)}
	q.heap = append(q.heap, e)
	q.waiting[item] = e
	q.up(e.index)
	q.arm()
}

// ShutDown shuts the queue down and drops every item still waiting for its delay, as upstream
// stops its waiting loop.
func (q *Delaying[T]) ShutDown() {
	q.dropWaiting()
	q.Typed.ShutDown()
}

// ShutDownWithDrain is ShutDown followed by waiting, parked, until no item is being processed.
func (q *Delaying[T]) ShutDownWithDrain(ctx context.Context) {
	q.dropWaiting()
	q.Typed.ShutDownWithDrain(ctx)
}

func (q *Delaying[T]) dropWaiting() {
	q.timer.Stop()
	for _, e := range q.heap {
		delete(q.waiting, e.item)
	}
	q.heap = nil
}

// Stats returns the queue's metrics, including the number of items waiting for their delay.
func (q *Delaying[T]) Stats() Stats {
	s := q.Typed.Stats()
	s.Waiting = len(q.heap)
	return s
}

// arm points the timer at the earliest ready time.
func (q *Delaying[T]) arm() {
	if len(q.heap) == 0 {
		q.timer.Stop()
		return
	}
	if at, armed := q.timer.When(); armed && at == q.heap[0].readyAt {
		return
	}
	q.timer.ResetAt(q.heap[0].readyAt)
}

// fire adds every item that is due, earliest first.
func (q *Delaying[T]) fire() {
	now := q.k.Now()
	for len(q.heap) > 0 && q.heap[0].readyAt <= now {
		e := q.popMin()
		delete(q.waiting, e.item)
		q.Add(e.item)
	}
	q.arm()
}

func (q *Delaying[T]) less(i, j int) bool {
	a, b := q.heap[i], q.heap[j]
	if a.readyAt != b.readyAt {
		return a.readyAt < b.readyAt
	}
	return a.seq < b.seq
}

func (q *Delaying[T]) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.heap[i].index = i
	q.heap[j].index = j
}

func (q *Delaying[T]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			return
		}
		q.swap(i, parent)
		i = parent
	}
}

func (q *Delaying[T]) down(i int) {
	n := len(q.heap)
	for {
		left := 2*i + 1
		if left >= n {
			return
		}
		smallest := left
		if right := left + 1; right < n && q.less(right, left) {
			smallest = right
		}
		if !q.less(smallest, i) {
			return
		}
		q.swap(i, smallest)
		i = smallest
	}
}

func (q *Delaying[T]) popMin() *waitFor[T] {
	top := q.heap[0]
	last := len(q.heap) - 1
	q.swap(0, last)
	q.heap[last] = nil
	q.heap = q.heap[:last]
	if last > 0 {
		q.down(0)
	}
	return top
}
