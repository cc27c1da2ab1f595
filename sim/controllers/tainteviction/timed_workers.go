package tainteviction

import (
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// timedWorker is one scheduled pod deletion (upstream TimedWorker). While it waits, its timer
// is a hold: a pending eviction is pending work and keeps the run from being quiescent.
type timedWorker struct {
	namespace, name string
	createdAt       vtime.Time
	fireAt          vtime.Time
	// timer is nil for work that started at once (upstream keeps a nil entry then).
	timer *sim.Timer
	// started is set when the deletion process has been spawned; cancelling no longer stops
	// it then, as upstream (its cancelled flag is only read before the work starts).
	started bool
}

// timedWorkerQueue is upstream TimedWorkerQueue on virtual time: at most one worker per pod
// key; a worker runs work once fireAt is reached, in its own process, like upstream's
// goroutine per firing.
type timedWorkerQueue struct {
	k       *sim.Kernel
	workers map[string]*timedWorker
	work    func(w *timedWorker)
}

func newTimedWorkerQueue(k *sim.Kernel, work func(w *timedWorker)) *timedWorkerQueue {
	return &timedWorkerQueue{k: k, workers: make(map[string]*timedWorker), work: work}
}

// addWork is upstream AddWork: an existing worker for key is kept untouched; otherwise a worker
// is created that runs fireAt-createdAt from now, or at once when that is not positive.
func (q *timedWorkerQueue) addWork(key, namespace, name string, createdAt, fireAt vtime.Time) {
	if _, ok := q.workers[key]; ok {
		return
	}
	w := &timedWorker{namespace: namespace, name: name, createdAt: createdAt, fireAt: fireAt}
	q.workers[key] = w
	if fireAt <= createdAt {
		q.start(w)
		return
	}
	w.timer = q.k.NewTimer(func() { q.start(w) })
	// Upstream arms its timer for fireAt-createdAt from now (createWorker); every caller
	// passes createdAt = now except when it re-adds work created at this same instant, so
	// this is fireAt in practice.
	w.timer.Reset(fireAt.Sub(createdAt))
}

func (q *timedWorkerQueue) start(w *timedWorker) {
	w.started = true
	q.work(w)
}

// finish drops key after its work has run (upstream getWrappedWorkerFunc deletes the entry).
// Unlike upstream it leaves a newer worker for the same key alone: a cancel-and-reschedule
// while the old deletion was still running must not lose the new timer.
func (q *timedWorkerQueue) finish(key string, w *timedWorker) {
	if q.workers[key] == w {
		delete(q.workers, key)
	}
}

// cancelWork is upstream CancelWork: it drops key's worker, stopping its timer, and reports
// true when there was a worker with a timer (a deletion that started at once has no timer
// and reports false, as upstream's nil entry does).
func (q *timedWorkerQueue) cancelWork(key string) bool {
	w, ok := q.workers[key]
	if !ok {
		return false
	}
	delete(q.workers, key)
	if w.timer == nil {
		return false
	}
	w.timer.Stop()
	return true
}

// get is upstream GetWorkerUnsafe.
func (q *timedWorkerQueue) get(key string) *timedWorker { return q.workers[key] }

// cancelAll stops every timer (controller stop, upstream CancelAndWait without the wait: the
// deletion processes already running are killed by the controller).
func (q *timedWorkerQueue) cancelAll() {
	//detlint:ordered stopping timers is commutative; nothing is emitted
	for _, w := range q.workers {
		if w.timer != nil {
			w.timer.Stop()
		}
	}
	q.workers = make(map[string]*timedWorker)
}

// pending returns the number of workers whose timer has not fired yet.
func (q *timedWorkerQueue) pending() int {
	n := 0
	//detlint:ordered counting is commutative
	for _, w := range q.workers {
		if !w.started {
			n++
		}
	}
	return n
}
