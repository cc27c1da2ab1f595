package operator

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Builder builds a controller the way controller-runtime's builder does
// (pkg/builder/controller.go, v0.25.2): For the reconciled kind, Owns for the kinds it
// creates, Watches for anything else, predicates, a name and options, then Complete.
type Builder struct {
	mgr           Manager
	forInput      *watchInput
	forCalls      int
	owns, watches []watchInput
	globalPreds   []predicate.Predicate
	name          string
	opts          controller.Options
	err           error
}

// watchInput is one watch: the kind (obj), its handler and predicates.
type watchInput struct {
	obj     client.Object
	handler handler.EventHandler
	preds   []predicate.Predicate
	// matchEveryOwner is Owns' MatchEveryOwner option.
	matchEveryOwner bool
}

// NewControllerManagedBy starts a Builder on mgr: operator.NewControllerManagedBy replaces
// ctrl.NewControllerManagedBy in a SetupWithManager, and nothing else changes.
func NewControllerManagedBy(mgr Manager) *Builder { return &Builder{mgr: mgr} }

// ForOption, OwnsOption and WatchesOption configure For, Owns and Watches (controller-runtime
// builder's options of the same names).
type (
	ForOption     interface{ applyToFor(*watchInput) }
	OwnsOption    interface{ applyToOwns(*watchInput) }
	WatchesOption interface{ applyToWatches(*watchInput) }
)

// Predicates is WithPredicates' option.
type Predicates struct{ preds []predicate.Predicate }

// WithPredicates filters one watch's events (builder.WithPredicates).
func WithPredicates(preds ...predicate.Predicate) Predicates { return Predicates{preds: preds} }

func (p Predicates) applyToFor(w *watchInput)     { w.preds = append(w.preds, p.preds...) }
func (p Predicates) applyToOwns(w *watchInput)    { w.preds = append(w.preds, p.preds...) }
func (p Predicates) applyToWatches(w *watchInput) { w.preds = append(w.preds, p.preds...) }

type matchEveryOwner struct{}

// MatchEveryOwner makes Owns enqueue every owner of the kind, not only the controller
// (builder.MatchEveryOwner).
var MatchEveryOwner OwnsOption = matchEveryOwner{}

func (matchEveryOwner) applyToOwns(w *watchInput) { w.matchEveryOwner = true }

// For names the kind the controller reconciles: its events enqueue the object's own Request.
// It may be called once.
func (b *Builder) For(obj client.Object, opts ...ForOption) *Builder {
	b.forCalls++
	if b.forCalls > 1 {
		b.err = errors.New("For(...) should only be called once, could not assign multiple objects for reconciliation")
		return b
	}
	in := &watchInput{obj: obj, handler: &handler.EnqueueRequestForObject{}}
	for _, o := range opts {
		o.applyToFor(in)
	}
	b.forInput = in
	return b
}

// Owns watches a kind the controller creates: its events enqueue the owner named by the
// object's controller reference, when that owner has the For kind
// (handler.EnqueueRequestForOwner with OnlyControllerOwner).
func (b *Builder) Owns(obj client.Object, opts ...OwnsOption) *Builder {
	in := watchInput{obj: obj}
	for _, o := range opts {
		o.applyToOwns(&in)
	}
	b.owns = append(b.owns, in)
	return b
}

// Watches watches obj's kind with handler h (one of controller-runtime's handlers:
// EnqueueRequestForObject, EnqueueRequestForOwner, EnqueueRequestsFromMapFunc, Funcs, or
// your own).
func (b *Builder) Watches(obj client.Object, h handler.EventHandler, opts ...WatchesOption) *Builder {
	in := watchInput{obj: obj, handler: h}
	for _, o := range opts {
		o.applyToWatches(&in)
	}
	b.watches = append(b.watches, in)
	return b
}

// WithEventFilter adds a predicate every watch applies (For, Owns and Watches).
func (b *Builder) WithEventFilter(p predicate.Predicate) *Builder {
	b.globalPreds = append(b.globalPreds, p)
	return b
}

// WithOptions sets the controller's options: MaxConcurrentReconciles (default 1) and
// RateLimiter (default: controller-runtime's, ItemExponentialFailureRateLimiter 5ms..1000s)
// are honoured; the others are accepted and have no effect in the simulation.
func (b *Builder) WithOptions(opts controller.Options) *Builder {
	b.opts = opts
	return b
}

// Named sets the controller's name (default: the For kind, lower-cased).
func (b *Builder) Named(name string) *Builder {
	b.name = name
	return b
}

// Complete builds the controller and registers it with the manager; it starts with the
// manager.
func (b *Builder) Complete(r reconcile.Reconciler) error {
	_, err := b.Build(r)
	return err
}

// Build is Complete returning the controller's name.
func (b *Builder) Build(r reconcile.Reconciler) (string, error) {
	if r == nil {
		return "", errors.New("must provide a non-nil Reconciler")
	}
	if b.mgr == nil {
		return "", errors.New("must provide a non-nil Manager")
	}
	if b.err != nil {
		return "", b.err
	}
	m, ok := b.mgr.(*manager)
	if !ok {
		return "", fmt.Errorf("operator: the Manager must be the one the simulator passed to setup, not a %T", b.mgr)
	}
	if len(b.owns) > 0 && b.forInput == nil {
		return "", errors.New("Owns() can only be used together with For()")
	}
	name := b.name
	if name == "" {
		if b.forInput == nil {
			return "", errors.New("one of For() or Named() must be called")
		}
		gvk, err := gvkForObject(b.forInput.obj, m.scheme)
		if err != nil {
			return "", err
		}
		name = strings.ToLower(gvk.Kind)
	}
	for _, c := range m.controllers {
		if c.name == name {
			return "", fmt.Errorf("controller with name %s already exists. Controller names must be unique to avoid multiple controllers reporting the same metric", name)
		}
	}
	var watches []watchInput
	if b.forInput != nil {
		watches = append(watches, *b.forInput)
		forGVK, err := gvkForObject(b.forInput.obj, m.scheme)
		if err != nil {
			return "", err
		}
		owner := forObject(forGVK, m)
		for _, o := range b.owns {
			var ownerOpts []handler.OwnerOption
			if !o.matchEveryOwner {
				ownerOpts = append(ownerOpts, handler.OnlyControllerOwner())
			}
			o.handler = handler.EnqueueRequestForOwner(m.scheme, m.mapper, owner, ownerOpts...)
			watches = append(watches, o)
		}
	}
	watches = append(watches, b.watches...)
	if len(watches) == 0 {
		return "", errors.New("there are no watches configured, controller will never get triggered. Use For(), Owns(), Watches() or WatchesRawSource() to set them up")
	}
	for i := range watches {
		watches[i].preds = append(append([]predicate.Predicate(nil), b.globalPreds...), watches[i].preds...)
	}
	c, err := newController(m, name, r, b.opts, watches)
	if err != nil {
		return "", err
	}
	m.controllers = append(m.controllers, c)
	return name, nil
}

// forObject returns an empty object of the For kind (EnqueueRequestForOwner reads only its
// type through the scheme).
func forObject(gvk schema.GroupVersionKind, m *manager) client.Object {
	obj, err := m.scheme.New(gvk)
	if err == nil {
		if co, ok := obj.(client.Object); ok {
			return co
		}
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}
