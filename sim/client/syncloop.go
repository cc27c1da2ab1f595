package client

import (
	"context"
	"fmt"
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/workqueue"
)

// SyncLoop is the worker machinery of a key-based controller, the client-go controller
// pattern as upstream controllers write it (k8s.io/kubernetes pkg/controller/replicaset
// replica_set.go Run, worker, processNextWorkItem; the same shape in the deployment,
// statefulset, daemon, disruption and endpointslice controllers):
//
//   - Start spawns one process named after the component. It waits for the given informers
//     to sync, in order, emits "<component> started", and spawns the workers
//     ("<component>/worker-<i>", i from 0, in order). Start after Start or after Stop does
//     nothing: a restarted controller is a new controller.
//   - Each worker takes keys from the queue until it shuts down. For each key it calls the sync
//     function, counts the sync and the virtual time it took, and calls Done. A nil error
//     forgets the key's backoff (Forget). An error counts as a sync error and, by default, emits
//     "<component> sync-error <kind> <key>" with the error text and requeues the key through
//     the rate limiter (AddRateLimited); HandleError replaces that default.
//   - Stop shuts the queue down and kills the main process and then the workers in spawn order
//     (a controller-manager restart); a sync in progress is abandoned where it blocks.
//
// A controller whose loop has more than this (several queues, periodic work started with the
// workers) keeps the difference in its own code, with StartFunc, Spawn and Worker. The queue
// belongs to the controller, which enqueues into it; the loop only drains it.
type SyncLoop struct {
	k         *sim.Kernel
	component string
	kind      string
	queue     *workqueue.RateLimiting[string]

	// Sync is the sync function the workers call for each key. It is a field so that a
	// controller's tests can observe or replace it: upstream's syncHandler test seam, kept
	// here once for every controller built on a SyncLoop.
	Sync func(ctx context.Context, key string) error

	// HandleError, when set, is called instead of the default retry (emit "sync-error",
	// AddRateLimited) for a sync that failed, after the failure is counted: for controllers
	// with upstream's handleErr that drops a key after a number of retries. It must either
	// requeue or Forget the key.
	HandleError func(key string, err error)

	main    *sim.Proc
	workers []*sim.Proc
	stopped bool
	stats   SyncStats
}

// SyncStats are a SyncLoop's counters since NewSyncLoop, plus its queue's metrics.
type SyncStats struct {
	// Syncs counts finished sync calls; SyncErrors those that returned an error.
	Syncs, SyncErrors uint64
	// SyncDurationTotal is the virtual time spent in sync calls.
	SyncDurationTotal time.Duration
	// Queue is the work queue's metrics.
	Queue workqueue.Stats
}

// NewSyncLoop returns a loop, not started, that drains queue with sync for component (the
// process names and the trace component); kind names the queued objects in its trace lines
// ("ReplicaSet", ...).
func NewSyncLoop(k *sim.Kernel, component, kind string, queue *workqueue.RateLimiting[string], sync func(ctx context.Context, key string) error) *SyncLoop {
	return &SyncLoop{k: k, component: component, kind: kind, queue: queue, Sync: sync}
}

// Start is upstream Run with workers workers: see SyncLoop. It emits "started" with detail
// "workers=<workers>".
func (l *SyncLoop) Start(workers int, informers ...*Informer) {
	l.StartFunc(informers, fmt.Sprintf("workers=%d", workers), func() { l.SpawnWorkers(workers) })
}

// StartFunc is Start for a controller that starts its own processes: once informers have
// synced it emits "started" with detail and calls spawn in the main process, which starts the
// workers with SpawnWorkers or Spawn, and anything else the controller runs.
func (l *SyncLoop) StartFunc(informers []*Informer, detail string, spawn func()) {
	if l.main != nil || l.stopped {
		return
	}
	l.main = l.k.Spawn(l.component, func(p *sim.Proc) {
		for _, inf := range informers {
			inf.WaitForSync(p)
		}
		l.k.Emit(l.component, "started", "", 0, detail)
		spawn()
	})
}

// SpawnWorkers spawns n workers, "<component>/worker-<i>" for i from 0, each running Worker.
func (l *SyncLoop) SpawnWorkers(n int) {
	for i := range n {
		l.Spawn(fmt.Sprintf("%s/worker-%d", l.component, i), l.Worker)
	}
}

// Spawn starts a process that Stop kills (after the processes spawned before it).
func (l *SyncLoop) Spawn(name string, body func(p *sim.Proc)) {
	l.workers = append(l.workers, l.k.Spawn(name, body))
}

// Stop shuts the queue down and kills the main process and the workers. It does nothing the
// second time.
func (l *SyncLoop) Stop() {
	if l.stopped {
		return
	}
	l.stopped = true
	l.queue.ShutDown()
	if l.main != nil {
		l.main.Kill()
	}
	for _, w := range l.workers {
		w.Kill()
	}
}

// Stopped reports whether Stop has been called.
func (l *SyncLoop) Stopped() bool { return l.stopped }

// Procs returns the main process (nil before Start) and the processes spawned by it so far.
func (l *SyncLoop) Procs() (main *sim.Proc, workers []*sim.Proc) { return l.main, l.workers }

// Stats returns the counters now and the queue's metrics.
func (l *SyncLoop) Stats() SyncStats {
	s := l.stats
	s.Queue = l.queue.Stats()
	return s
}

// Worker is upstream worker: it processes keys until the queue shuts down.
func (l *SyncLoop) Worker(p *sim.Proc) {
	for l.processNextWorkItem(p) {
	}
}

// processNextWorkItem is upstream processNextWorkItem (with its handleErr): it reports false
// once the queue has shut down.
func (l *SyncLoop) processNextWorkItem(ctx context.Context) bool {
	key, quit := l.queue.Get(ctx)
	if quit {
		return false
	}
	defer l.queue.Done(key)
	start := l.k.Now()
	err := l.Sync(ctx, key)
	l.stats.Syncs++
	l.stats.SyncDurationTotal += l.k.Now().Sub(start)
	if err == nil {
		l.queue.Forget(key)
		return true
	}
	l.stats.SyncErrors++
	if l.HandleError != nil {
		l.HandleError(key, err)
		return true
	}
	l.k.Emit(l.component, "sync-error", l.kind+" "+key, 0, err.Error())
	l.queue.AddRateLimited(key)
	return true
}
