package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/workqueue"
)

// Request names the object to reconcile. It carries no event type and no object: reconcile is
// level-based.
type Request struct {
	Namespace, Name string
}

// String returns "namespace/name", or "name" for a cluster-scoped object.
func (r Request) String() string { return model.KeyOf(r.Namespace, r.Name) }

// RequestFor returns the Request for obj.
func RequestFor(obj model.Object) Request {
	m := obj.Meta()
	return Request{Namespace: m.Namespace, Name: m.Name}
}

// Result says whether and when to reconcile the same Request again after a success.
type Result struct {
	// Requeue asks for another reconcile after the rate limiter's delay (AddRateLimited).
	Requeue bool
	// RequeueAfter, when positive, asks for another reconcile after exactly this delay
	// (Forget, then AddAfter). It takes precedence over Requeue.
	RequeueAfter time.Duration
}

// IsZero reports whether r asks for nothing.
func (r Result) IsZero() bool { return !r.Requeue && r.RequeueAfter == 0 }

// terminalError marks an error that must not be retried (controller-runtime
// pkg/reconcile/reconcile.go TerminalError, v0.25.2).
type terminalError struct{ err error }

func (e *terminalError) Error() string {
	if e.err == nil {
		return "terminal error: nil"
	}
	return "terminal error: " + e.err.Error()
}

func (e *terminalError) Unwrap() error { return e.err }

// Is makes errors.Is(err, TerminalError(nil)) true for every terminal error, as upstream.
func (e *terminalError) Is(target error) bool {
	_, ok := target.(*terminalError)
	return ok
}

// TerminalError wraps err so that the controller does not requeue the Request (the error is
// still counted). errors.Is(x, TerminalError(nil)) reports whether x is one.
func TerminalError(err error) error { return &terminalError{err: err} }

// IsTerminal reports whether err is, or wraps, a TerminalError.
func IsTerminal(err error) bool { return errors.Is(err, TerminalError(nil)) }

// Reconciler drives the actual state of one object towards its desired state.
//
// Reconcile is level-based: it compares the desired state with the actual state (read from
// informer caches or the API) and acts on the difference; it must not depend on which event
// caused the call, and a call with nothing to do is normal. After Reconcile returns:
//
//   - a non-nil error means the Request is requeued through the rate limiter
//     (AddRateLimited, so exponential backoff per Request) and the Result is ignored, unless
//     the error is a TerminalError, which is counted and not requeued (nor forgotten);
//   - otherwise Result.RequeueAfter > 0 means Forget (reset the backoff) and
//     AddAfter(RequeueAfter);
//   - otherwise Result.Requeue means AddRateLimited (the backoff keeps growing);
//   - otherwise Forget: the Request is done until something enqueues it again.
//
// A Request is never reconciled by two workers at once; if it is enqueued while being
// reconciled it is reconciled once more afterwards. Reconcile runs in a simulated process (ctx
// carries it) and may block on API calls, sleeps and other blocking simulator calls. A panic is
// not recovered: it ends the run.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// Func adapts a function to Reconciler.
type Func func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f Func) Reconcile(ctx context.Context, req Request) (Result, error) { return f(ctx, req) }

// Stats are a controller's reconcile counters, cumulative over restarts, plus the metrics of
// its current work queue.
type Stats struct {
	Name string
	// Reconciles counts finished Reconcile calls; Errors those that returned an error;
	// Terminals those errors that were TerminalErrors (not requeued); Requeues those that asked
	// for Requeue; RequeueAfters those that asked for RequeueAfter.
	Reconciles, Errors, Terminals, Requeues, RequeueAfters uint64
	// ReconcileDurationTotal is the summed virtual time spent inside Reconcile.
	ReconcileDurationTotal time.Duration
	// Queue is the current work queue's metrics (zero while the controller is not running).
	Queue workqueue.Stats
}

// Controller runs a Reconciler with Workers worker processes over a rate-limited queue.
type Controller struct {
	// Name labels the workers ("<Name>-worker-<i>"), the queue, trace lines and stats.
	Name string
	// Workers is the number of concurrent reconciles (the --concurrent-*-syncs flags).
	Workers int
	// Reconciler is called for every Request handed out by the queue.
	Reconciler Reconciler
	// Quiet leaves out the per-reconcile trace line, for a built-in controller whose upstream
	// counterpart logs nothing per pass (its own trace lines say what it did).
	Quiet bool
	// Limiter spaces retries. It is kept across Stop and Start, so backoff state survives a
	// restart unless the caller installs a fresh limiter before Start.
	Limiter workqueue.RateLimiter[Request]

	k       *sim.Kernel
	queue   *workqueue.RateLimiting[Request]
	workers []*sim.Proc

	reconciles, errors, terminals, requeues, requeueAfters uint64
	reconcileDurationTotal                                 time.Duration
}

// New returns a stopped controller. workers below 1 means 1; a nil limiter means
// workqueue.DefaultControllerRateLimiter.
func New(name string, workers int, r Reconciler, limiter workqueue.RateLimiter[Request]) *Controller {
	if workers < 1 {
		workers = 1
	}
	if limiter == nil {
		limiter = workqueue.DefaultControllerRateLimiter[Request]()
	}
	return &Controller{Name: name, Workers: workers, Reconciler: r, Limiter: limiter}
}

// Start builds a fresh work queue on k and spawns the worker processes "<Name>-worker-<i>",
// i from 0. It panics if the controller is already running or has no Reconciler (programming
// errors).
func (c *Controller) Start(k *sim.Kernel) {
	if c.queue != nil {
		panic("reconcile: controller " + c.Name + " started twice")
	}
	if c.Reconciler == nil {
		panic("reconcile: controller " + c.Name + " has no Reconciler")
	}
	c.k = k
	c.queue = workqueue.NewRateLimiting[Request](k, c.Name, c.Limiter)
	c.workers = c.workers[:0]
	for i := range max(c.Workers, 1) {
		c.workers = append(c.workers, k.Spawn(fmt.Sprintf("%s-worker-%d", c.Name, i), c.worker))
	}
}

// Stop shuts the queue down and kills the workers (the controller-restart fault): a reconcile
// in progress is abandoned at its current blocking point, and queued Requests are dropped. A
// stopped controller can be started again. Stop on a stopped controller does nothing.
func (c *Controller) Stop() {
	if c.queue == nil {
		return
	}
	c.queue.ShutDown()
	c.queue = nil
	var self *sim.Proc
	for _, w := range c.workers {
		if w == c.k.Running() {
			self = w
			continue
		}
		w.Kill()
	}
	c.workers = c.workers[:0]
	if self != nil {
		self.Kill() // does not return
	}
}

// Running reports whether the controller has been started and not stopped.
func (c *Controller) Running() bool { return c.queue != nil }

// Queue returns the current work queue, or nil while the controller is not running.
func (c *Controller) Queue() *workqueue.RateLimiting[Request] { return c.queue }

// Enqueue adds req to the queue. While the controller is not running the request is dropped,
// as a shut-down queue drops it; a restarted controller catches up from its informers'
// initial list.
func (c *Controller) Enqueue(req Request) {
	if c.queue != nil {
		c.queue.Add(req)
	}
}

// EnqueueAfter adds req after d (AddAfter); dropped while not running.
func (c *Controller) EnqueueAfter(req Request, d time.Duration) {
	if c.queue != nil {
		c.queue.AddAfter(req, d)
	}
}

// EnqueueRateLimited adds req after its rate-limiter delay; dropped while not running.
func (c *Controller) EnqueueRateLimited(req Request) {
	if c.queue != nil {
		c.queue.AddRateLimited(req)
	}
}

// EnqueueObject enqueues the Request for obj.
func (c *Controller) EnqueueObject(obj model.Object) { c.Enqueue(RequestFor(obj)) }

// Stats returns the controller's counters and its current queue's metrics.
func (c *Controller) Stats() Stats {
	s := Stats{
		Name:                   c.Name,
		Reconciles:             c.reconciles,
		Errors:                 c.errors,
		Terminals:              c.terminals,
		Requeues:               c.requeues,
		RequeueAfters:          c.requeueAfters,
		ReconcileDurationTotal: c.reconcileDurationTotal,
	}
	if c.queue != nil {
		s.Queue = c.queue.Stats()
	}
	return s
}

// worker is upstream's worker: processNextWorkItem until the queue shuts down.
func (c *Controller) worker(p *sim.Proc) {
	q := c.queue
	for c.processNextWorkItem(p, q) {
	}
}

// processNextWorkItem takes one Request, reconciles it and files the outcome with the queue
// (controller-runtime reconcileHandler). It returns false once the queue has shut down.
func (c *Controller) processNextWorkItem(p *sim.Proc, q *workqueue.RateLimiting[Request]) bool {
	req, shutdown := q.Get(p)
	if shutdown {
		return false
	}
	defer q.Done(req)

	start := c.k.Now()
	result, err := c.Reconciler.Reconcile(p, req)
	c.reconciles++
	c.reconcileDurationTotal += c.k.Now().Sub(start)

	var outcome string
	switch {
	case err != nil && IsTerminal(err):
		// controller-runtime v0.25.2 pkg/internal/controller/controller.go reconcileHandler:
		// a terminal error is neither requeued nor forgotten.
		c.errors++
		c.terminals++
		outcome = "terminal-error: " + err.Error()
	case err != nil:
		c.errors++
		delay := q.RateLimiter().When(req)
		q.AddAfter(req, delay) // AddRateLimited, keeping the delay for the trace
		outcome = fmt.Sprintf("error backoff=%s: %v", delay, err)
	case result.RequeueAfter > 0:
		c.requeueAfters++
		q.Forget(req)
		q.AddAfter(req, result.RequeueAfter)
		outcome = "requeue-after=" + result.RequeueAfter.String()
	case result.Requeue:
		c.requeues++
		delay := q.RateLimiter().When(req)
		q.AddAfter(req, delay)
		outcome = "requeue backoff=" + delay.String()
	default:
		q.Forget(req)
		outcome = "ok"
	}
	if !c.Quiet {
		c.k.Emit(c.Name, "reconcile", req.String(), 0, outcome)
	}
	return true
}
