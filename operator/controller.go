package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoworkqueue "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/go-logr/logr"

	"github.com/reconsim/reconsim/model"
	simclient "github.com/reconsim/reconsim/sim/client"
	simreconcile "github.com/reconsim/reconsim/sim/client/reconcile"
	"github.com/reconsim/reconsim/sim/client/workqueue"
)

// controller-runtime's default rate limiter with the priority queue, the default since
// v0.23 (pkg/controller/controller.go NewTypedUnmanaged, v0.25.2): per-item exponential
// backoff from 5ms to 1000s, no overall bucket.
const (
	defaultBaseDelay = 5 * time.Millisecond
	defaultMaxDelay  = 1000 * time.Second
)

// controller is one built controller: its watches feed a simulator work queue whose workers
// (sim/client/reconcile, the loop the built-in controllers share) call the Reconciler.
type ctrl struct {
	m    *manager
	name string
	rc   *simreconcile.Controller
	// pending are watches of kinds the API server did not serve when setup ran: a kind of the
	// scenario's CustomResourceDefinitions, which are created after the controllers are
	// built. start registers them, as controller-runtime's sources start with the manager.
	pending []watchInput
}

func newController(m *manager, name string, r reconcile.Reconciler, opts controller.Options, watches []watchInput) (*ctrl, error) {
	c := &ctrl{m: m, name: name}
	var limiter workqueue.RateLimiter[simreconcile.Request]
	if opts.RateLimiter != nil {
		limiter = userLimiter{opts.RateLimiter}
	} else {
		limiter = workqueue.NewItemExponentialFailureRateLimiter[simreconcile.Request](defaultBaseDelay, defaultMaxDelay)
	}
	workers := opts.MaxConcurrentReconciles
	if workers < 1 {
		workers = 1 // controller-runtime's default
	}
	log := m.log.WithValues("controller", name)
	c.rc = simreconcile.New(name, workers, simreconcile.Func(func(ctx context.Context, req simreconcile.Request) (simreconcile.Result, error) {
		res, err := r.Reconcile(withGoroutine(logr.NewContext(ctx, log)), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: req.Namespace, Name: req.Name}})
		if err != nil {
			if errors.Is(err, reconcile.TerminalError(nil)) {
				return simreconcile.Result{}, simreconcile.TerminalError(err)
			}
			return simreconcile.Result{}, err
		}
		//lint:ignore SA1019 Requeue is deprecated upstream but still honoured (reconcileHandler).
		return simreconcile.Result{Requeue: res.Requeue, RequeueAfter: res.RequeueAfter}, nil //nolint:staticcheck
	}), limiter)
	for _, w := range watches {
		if err := c.watch(w); err != nil {
			if !meta.IsNoMatchError(err) {
				return nil, err
			}
			c.pending = append(c.pending, w)
		}
	}
	return c, nil
}

func (c *ctrl) start() {
	c.rc.Name = c.m.queueName(c)
	for _, w := range c.pending {
		if err := c.watch(w); err != nil {
			// controller-runtime fails the manager's start the same way ("if kind is a CRD,
			// it should be installed before calling Start").
			c.m.env.Kernel.Emit(c.rc.Name, "error", "watch", 0, err.Error())
		}
	}
	c.pending = nil
	c.rc.Start(c.m.env.Kernel)
}

// watch registers w's handler on the informer of w's kind.
func (c *ctrl) watch(w watchInput) error {
	gvk, err := gvkForObject(w.obj, c.m.scheme)
	if err != nil {
		return err
	}
	ki, ok := c.m.kindFor(gvk)
	if !ok {
		return fmt.Errorf("watch of %s: %w", gvk, noKind(gvk))
	}
	inf := c.m.env.Factory.For(ki.Kind)
	inf.AddEventHandler(&eventAdapter{c: c, gvk: gvk, w: w, q: &queueAdapter{c: c}})
	return nil
}

// eventAdapter turns the informer's model events into controller-runtime events on typed
// objects, filters them through the predicates and hands them to the handler.
type eventAdapter struct {
	c   *ctrl
	gvk schema.GroupVersionKind
	w   watchInput
	q   *queueAdapter
}

func (e *eventAdapter) object(mo model.Object) client.Object {
	obj := forObject(e.gvk, e.c.m)
	if err := e.c.m.fromModel(mo, obj, e.gvk); err != nil {
		// The model's own objects always convert; a failure is a bug in the converter.
		panic(fmt.Sprintf("operator: converting %s for %s: %v", model.Ref(mo), e.c.name, err))
	}
	obj.GetObjectKind().SetGroupVersionKind(e.gvk)
	return obj
}

func (e *eventAdapter) OnAdd(mo model.Object, initial bool) {
	ev := event.CreateEvent{Object: e.object(mo), IsInInitialList: initial}
	for _, p := range e.w.preds {
		if !p.Create(ev) {
			return
		}
	}
	e.w.handler.Create(context.Background(), ev, e.q)
}

func (e *eventAdapter) OnUpdate(oldObj, newObj model.Object) {
	ev := event.UpdateEvent{ObjectOld: e.object(oldObj), ObjectNew: e.object(newObj)}
	for _, p := range e.w.preds {
		if !p.Update(ev) {
			return
		}
	}
	e.w.handler.Update(context.Background(), ev, e.q)
}

func (e *eventAdapter) OnDelete(obj any) {
	mo, ok := simclient.ObjectOf(obj)
	if !ok {
		return
	}
	_, unknown := obj.(simclient.DeletedFinalStateUnknown)
	ev := event.DeleteEvent{Object: e.object(mo), DeleteStateUnknown: unknown}
	for _, p := range e.w.preds {
		if !p.Delete(ev) {
			return
		}
	}
	e.w.handler.Delete(context.Background(), ev, e.q)
}

var _ predicate.Predicate = predicate.Funcs{}
var _ handler.EventHandler = &handler.EnqueueRequestForObject{}

// queueAdapter is the client-go work queue a controller-runtime handler adds to; it forwards
// to the simulator's queue (dropped while the controller is stopped). Handlers only add:
// Get, Done and ShutDown belong to the worker loop and are refused.
type queueAdapter struct{ c *ctrl }

var _ clientgoworkqueue.TypedRateLimitingInterface[reconcile.Request] = (*queueAdapter)(nil)

func simReq(r reconcile.Request) simreconcile.Request {
	return simreconcile.Request{Namespace: r.Namespace, Name: r.Name}
}

func (q *queueAdapter) Add(r reconcile.Request)            { q.c.rc.Enqueue(simReq(r)) }
func (q *queueAdapter) AddRateLimited(r reconcile.Request) { q.c.rc.EnqueueRateLimited(simReq(r)) }
func (q *queueAdapter) AddAfter(r reconcile.Request, d time.Duration) {
	q.c.rc.EnqueueAfter(simReq(r), d)
}
func (q *queueAdapter) Forget(r reconcile.Request) {
	if wq := q.c.rc.Queue(); wq != nil {
		wq.Forget(simReq(r))
	}
}
func (q *queueAdapter) NumRequeues(r reconcile.Request) int {
	if wq := q.c.rc.Queue(); wq != nil {
		return wq.NumRequeues(simReq(r))
	}
	return 0
}
func (q *queueAdapter) Len() int {
	if wq := q.c.rc.Queue(); wq != nil {
		return wq.Len()
	}
	return 0
}
func (q *queueAdapter) Get() (reconcile.Request, bool) {
	panic("operator: an event handler may only add to the work queue; Get belongs to the controller's workers")
}
func (q *queueAdapter) Done(reconcile.Request) {
	panic("operator: an event handler may only add to the work queue; Done belongs to the controller's workers")
}
func (q *queueAdapter) ShutDown()          {}
func (q *queueAdapter) ShutDownWithDrain() {}
func (q *queueAdapter) ShuttingDown() bool { return !q.c.rc.Running() }

// userLimiter runs a client-go rate limiter the user configured (WithOptions RateLimiter) on
// the simulator's queue. client-go's per-item limiters are pure functions of the failure
// count; BucketRateLimiter reads the wall clock and so makes the run depend on it.
type userLimiter struct {
	l clientgoworkqueue.TypedRateLimiter[reconcile.Request]
}

func crReq(r simreconcile.Request) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: r.Namespace, Name: r.Name}}
}

func (u userLimiter) When(r simreconcile.Request) time.Duration { return u.l.When(crReq(r)) }
func (u userLimiter) Forget(r simreconcile.Request)             { u.l.Forget(crReq(r)) }
func (u userLimiter) NumRequeues(r simreconcile.Request) int    { return u.l.NumRequeues(crReq(r)) }
