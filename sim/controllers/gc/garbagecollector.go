package gc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
)

// Component is the name the garbage collector uses in traces and process names; EventSource
// is its event source (upstream EventSource{Component: "garbage-collector-controller"}).
const (
	Component   = "garbage-collector"
	EventSource = "garbage-collector-controller"
)

// Stats are the garbage collector's counters since New.
type Stats struct {
	// GraphNodes is the number of nodes in the dependency graph now; VirtualNodes how many of
	// them no informer has reported yet.
	GraphNodes, VirtualNodes int
	// GraphChanges counts events the graph builder processed.
	GraphChanges uint64
	// UnchangedUpdates counts informer updates not queued because they change nothing the
	// graph keeps (graphMetaUnchanged).
	UnchangedUpdates uint64
	// Deletes counts dependents (or owners) deleted; DeleteErrors failed delete calls.
	Deletes, DeleteErrors uint64
	// OwnerRefPatches counts dependents whose ownerReferences were patched (orphaning, or
	// dropping dangling references); FinalizersRemoved counts finalizers taken off owners.
	OwnerRefPatches, FinalizersRemoved uint64
	// VirtualDeletes counts nodes found absent by a live lookup.
	VirtualDeletes uint64
	// AttemptToDelete and AttemptToOrphan are the work queues' metrics.
	AttemptToDelete, AttemptToOrphan workqueue.Stats
}

// NodeInfo describes one graph node, for tests and debugging.
type NodeInfo struct {
	Kind                             model.Kind
	Namespace, Name, UID             string
	Virtual                          bool
	BeingDeleted, DeletingDependents bool
	// Owners are the owner UIDs in reference order; Dependents the dependent UIDs, sorted.
	Owners, Dependents []string
}

// Controller is the garbage collector (upstream GarbageCollector with its GraphBuilder).
type Controller struct {
	k        *sim.Kernel
	client   *client.Client
	recorder record.Recorder
	cfg      Config
	rand     *rand.Rand

	monitors      []*client.Informer
	monitorByKind map[model.Kind]*client.Informer
	// factory makes the monitors; served holds the kinds discovery last showed
	// (syncMonitors), syncTimer runs that discovery every monitorSyncPeriod.
	factory   *client.SharedInformerFactory
	served    map[model.Kind]model.KindInfo
	syncTimer *sim.Timer

	uidToNode        map[string]*node
	graphChanges     *eventQueue
	attemptToDelete  *workqueue.RateLimiting[*node]
	attemptToOrphan  *workqueue.RateLimiting[*node]
	absentOwnerCache *referenceCache

	procs   []*sim.Proc
	started bool
	stopped bool
	stats   Stats
}

// New builds the garbage collector on the shared informers of f, one per monitored kind
// (every registered kind but Event; none when the collector is disabled), and returns it
// stopped; the caller starts f and calls
// Start. It returns an error if cfg is invalid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gc := &Controller{
		k:                k,
		client:           c,
		recorder:         rec,
		cfg:              cfg,
		rand:             k.Rand(Component),
		monitorByKind:    make(map[model.Kind]*client.Informer),
		factory:          f,
		served:           make(map[model.Kind]model.KindInfo),
		uidToNode:        make(map[string]*node),
		graphChanges:     &eventQueue{},
		attemptToDelete:  workqueue.NewRateLimiting[*node](k, "garbage_collector_attempt_to_delete", workqueue.DefaultControllerRateLimiter[*node]()),
		attemptToOrphan:  workqueue.NewRateLimiting[*node](k, "garbage_collector_attempt_to_orphan", workqueue.DefaultControllerRateLimiter[*node]()),
		absentOwnerCache: newReferenceCache(cfg.AbsentOwnerCacheSize),
	}
	// Upstream does not start the controller at all when it is disabled: no informers, so
	// no events pile up unread.
	if cfg.EnableGarbageCollector {
		gc.addMonitors(f)
	}
	return gc, nil
}

// Start spawns the graph builder at once, and a process that waits for every monitor to sync
// and then starts ConcurrentGCSyncs attemptToDelete and as many attemptToOrphan workers
// (upstream GarbageCollector.Run). It does nothing when the garbage collector is disabled, or
// after Stop.
func (gc *Controller) Start() {
	if !gc.cfg.EnableGarbageCollector || gc.started || gc.stopped {
		return
	}
	gc.started = true
	gc.startSync()
	gc.procs = append(gc.procs, gc.k.Spawn(Component+"/graph-builder", gc.runProcessGraphChanges))
	gc.procs = append(gc.procs, gc.k.Spawn(Component, func(p *sim.Proc) {
		for _, inf := range gc.monitors {
			inf.WaitForSync(p)
		}
		gc.k.Emit(Component, "started", "", 0, fmt.Sprintf("workers=%d monitors=%d", gc.cfg.ConcurrentGCSyncs, len(gc.monitors)))
		for i := 0; i < gc.cfg.ConcurrentGCSyncs; i++ {
			gc.procs = append(gc.procs,
				gc.k.Spawn(fmt.Sprintf("%s/attempt-to-delete-%d", Component, i), gc.runAttemptToDeleteWorker),
				gc.k.Spawn(fmt.Sprintf("%s/attempt-to-orphan-%d", Component, i), gc.runAttemptToOrphanWorker))
		}
	}))
}

// Stop shuts the queues down and kills the garbage collector's processes.
func (gc *Controller) Stop() {
	if gc.stopped {
		return
	}
	gc.stopped = true
	if gc.syncTimer != nil {
		gc.syncTimer.Stop()
	}
	gc.graphChanges.ShutDown()
	gc.attemptToDelete.ShutDown()
	gc.attemptToOrphan.ShutDown()
	for _, p := range gc.procs {
		p.Kill()
	}
}

// Stats returns the counters now.
func (gc *Controller) Stats() Stats {
	s := gc.stats
	s.GraphNodes = len(gc.uidToNode)
	for _, n := range gc.uidToNode { //detlint:ordered counting
		if n.virtual {
			s.VirtualNodes++
		}
	}
	s.AttemptToDelete = gc.attemptToDelete.Stats()
	s.AttemptToOrphan = gc.attemptToOrphan.Stats()
	return s
}

// Node returns what the graph holds for uid, and whether it holds it.
func (gc *Controller) Node(uid string) (NodeInfo, bool) {
	n, ok := gc.uidToNode[uid]
	if !ok {
		return NodeInfo{}, false
	}
	info := NodeInfo{
		Kind: n.identity.Kind, Namespace: n.identity.Namespace, Name: n.identity.Name, UID: n.identity.UID,
		Virtual: n.virtual, BeingDeleted: n.beingDeleted, DeletingDependents: n.deletingDependents,
	}
	for _, o := range n.owners {
		info.Owners = append(info.Owners, o.UID)
	}
	for _, d := range n.getDependents() {
		info.Dependents = append(info.Dependents, d.identity.UID)
	}
	return info, true
}

type workQueueItemAction int

const (
	requeueItem workQueueItemAction = iota
	forgetItem
)

var (
	// errEnqueuedVirtualDelete: attemptToDeleteItem found the object absent and queued a
	// virtual delete; the item needs no retry.
	errEnqueuedVirtualDelete = errors.New("enqueued virtual delete event")
	// errNamespacedOwnerOfClusterScopedObject: a cluster-scoped object names a namespaced
	// owner, which can never resolve; the item needs no retry.
	errNamespacedOwnerOfClusterScopedObject = errors.New("cluster-scoped objects cannot refer to namespaced owners")
)

// restMappingError is a reference to a kind the server does not serve (upstream
// restMappingError); the item is retried with backoff, as a kind may appear later.
type restMappingError struct {
	kind       model.Kind
	apiVersion string
}

func (e *restMappingError) Error() string {
	return fmt.Sprintf("unable to get REST mapping for %s/%s", e.apiVersion, e.kind)
}

func (gc *Controller) runAttemptToDeleteWorker(p *sim.Proc) {
	runNodeWorker(p, gc.attemptToDelete, gc.attemptToDeleteWorker)
}

// runNodeWorker is the loop of upstream runAttemptToDeleteWorker and runAttemptToOrphanWorker
// (processAttemptToDeleteWorker, processAttemptToOrphanWorker): until queue shuts down, it
// takes a node, runs work on it, and forgets the node's backoff or requeues it rate limited
// as work answers, then marks it done.
func runNodeWorker(p *sim.Proc, queue *workqueue.RateLimiting[*node], work func(context.Context, *node) workQueueItemAction) {
	for {
		item, quit := queue.Get(p)
		if quit {
			return
		}
		switch work(p, item) {
		case forgetItem:
			queue.Forget(item)
		case requeueItem:
			queue.AddRateLimited(item)
		}
		queue.Done(item)
	}
}

// attemptToDeleteWorker processes one queued node (upstream attemptToDeleteWorker). A virtual
// node that has left the graph, or has since been observed, is dropped; a virtual node that
// exists is retried until an informer reports it.
func (gc *Controller) attemptToDeleteWorker(ctx context.Context, n *node) workQueueItemAction {
	if !n.isObserved() {
		fromGraph, ok := gc.uidToNode[n.identity.UID]
		if !ok || fromGraph.isObserved() {
			return forgetItem
		}
	}
	err := gc.attemptToDeleteItem(ctx, n)
	switch {
	case errors.Is(err, errEnqueuedVirtualDelete), errors.Is(err, errNamespacedOwnerOfClusterScopedObject):
		return forgetItem
	case err != nil:
		gc.k.Emit(Component, "attempt-to-delete-error", nodeRef(n), 0, err.Error())
		return requeueItem
	case !n.isObserved():
		return requeueItem
	}
	return forgetItem
}

func nodeRef(n *node) string {
	return string(n.identity.Kind) + " " + model.KeyOf(n.identity.Namespace, n.identity.Name)
}

// attemptToDeleteItem decides what to do with one object from its live state (upstream
// attemptToDeleteItem):
//
//   - an object being deleted, other than foreground, is left to finish;
//   - an object that is gone, or has another UID, is removed from the graph by a virtual
//     delete event;
//   - an owner in foreground deletion removes its foregroundDeletion finalizer once no
//     dependent blocks it, and otherwise queues its blocking dependents;
//   - an object with no owner references is left alone;
//   - an object with at least one existing owner not in foreground deletion keeps living, but
//     drops its references to absent owners and to owners in foreground deletion;
//   - an object whose owners are all absent or in foreground deletion is deleted: in the
//     foreground when some owner waits in the foreground and the object has dependents of its
//     own (first making its owner references non-blocking if one of its dependents also waits
//     in the foreground, to break a cycle); otherwise with the propagation its own finalizers
//     ask for (orphan, foreground), else in the background.
func (gc *Controller) attemptToDeleteItem(ctx context.Context, item *node) error {
	if item.isBeingDeleted() && !item.isDeletingDependents() {
		return nil
	}
	latest, err := gc.getObject(ctx, item.identity)
	switch {
	case apierrors.IsNotFound(err):
		gc.stats.VirtualDeletes++
		gc.enqueueVirtualDeleteEvent(item.identity)
		return errEnqueuedVirtualDelete
	case err != nil:
		return err
	}
	lm := latest.Meta()
	if lm.UID != item.identity.UID {
		gc.stats.VirtualDeletes++
		gc.enqueueVirtualDeleteEvent(item.identity)
		return errEnqueuedVirtualDelete
	}
	if item.isDeletingDependents() {
		return gc.processDeletingDependentsItem(ctx, item)
	}
	ownerRefs := lm.OwnerReferences
	if len(ownerRefs) == 0 {
		return nil
	}
	solid, dangling, waiting, err := gc.classifyReferences(ctx, item, ownerRefs)
	if err != nil {
		return err
	}
	switch {
	case len(solid) != 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		// References to owners waiting for their dependents must go too, or those owners
		// would wait for this object forever.
		uids := append(refUIDs(dangling), refUIDs(waiting)...)
		return gc.patchOwnerRefs(ctx, item, "remove-ownerrefs", func(refs []model.OwnerReference) []model.OwnerReference {
			return withoutUIDs(refs, uids)
		})
	case len(waiting) != 0 && item.dependentsLength() != 0:
		for _, dep := range item.getDependents() {
			if dep.isDeletingDependents() {
				// Owner and dependent both wait in the foreground: unblock our references so
				// that the cycle can drain (upstream's detection has false positives too).
				if err := gc.patchOwnerRefs(ctx, item, "unblock-ownerrefs", func([]model.OwnerReference) []model.OwnerReference {
					return unblocked(item.owners)
				}); err != nil {
					return err
				}
				break
			}
		}
		return gc.deleteItem(ctx, item, lm, model.DeletePropagationForeground)
	default:
		policy := model.DeletePropagationBackground
		switch {
		case hasFinalizer(lm, model.FinalizerOrphanDependents):
			policy = model.DeletePropagationOrphan
		case hasFinalizer(lm, model.FinalizerDeleteDependents):
			policy = model.DeletePropagationForeground
		}
		return gc.deleteItem(ctx, item, lm, policy)
	}
}

func (gc *Controller) deleteItem(ctx context.Context, item *node, latest *model.ObjectMeta, policy model.DeletionPropagation) error {
	err := gc.deleteObject(ctx, item.identity, latest.ResourceVersion, latest.OwnerReferences, policy)
	if apierrors.IsNotFound(err) {
		gc.enqueueVirtualDeleteEvent(item.identity)
		return errEnqueuedVirtualDelete
	}
	if err != nil {
		gc.stats.DeleteErrors++
		return err
	}
	gc.stats.Deletes++
	gc.k.Emit(Component, "delete", nodeRef(item), 0, "propagation="+string(policy))
	return nil
}

func refUIDs(refs []model.OwnerReference) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.UID
	}
	return out
}

func withoutUIDs(refs []model.OwnerReference, uids []string) []model.OwnerReference {
	var out []model.OwnerReference
	for _, r := range refs {
		drop := false
		for _, u := range uids {
			if r.UID == u {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, r)
		}
	}
	return out
}

func unblocked(refs []model.OwnerReference) []model.OwnerReference {
	out := make([]model.OwnerReference, len(refs))
	for i, r := range refs {
		r.Controller = copyBool(r.Controller)
		r.BlockOwnerDeletion = model.Ptr(false)
		out[i] = r
	}
	return out
}

func copyBool(p *bool) *bool {
	if p == nil {
		return nil
	}
	return model.Ptr(*p)
}

// isDangling reports whether ref points to an object that does not exist (upstream
// isDangling): it consults the absent-owner cache, then asks the API server by name and
// compares UIDs (an owner recreated under the same name is absent). It returns the owner when
// it exists.
func (gc *Controller) isDangling(ctx context.Context, ref model.OwnerReference, item *node) (bool, model.Object, error) {
	key := ownerReferenceCoordinates(ref)
	if gc.absentOwnerCache.Has(key) {
		return true, nil, nil
	}
	key.Namespace = item.identity.Namespace
	if gc.absentOwnerCache.Has(key) {
		return true, nil, nil
	}
	ki, err := gc.apiResource(ref.APIVersion, ref.Kind)
	if err != nil {
		return false, nil, err
	}
	if !ki.Namespaced {
		key.Namespace = ""
	}
	if item.identity.Namespace == "" && ki.Namespaced {
		return false, nil, errNamespacedOwnerOfClusterScopedObject
	}
	owner, err := gc.client.Get(ctx, ref.Kind, resourceDefaultNamespace(ki.Namespaced, item.identity.Namespace), ref.Name)
	switch {
	case apierrors.IsNotFound(err):
		gc.absentOwnerCache.Add(key)
		return true, nil, nil
	case err != nil:
		return false, nil, err
	}
	if owner.Meta().UID != ref.UID {
		gc.absentOwnerCache.Add(key)
		return true, nil, nil
	}
	return false, owner, nil
}

// classifyReferences sorts references into solid (the owner exists and is not waiting for
// its dependents), dangling (absent) and waiting (being deleted with foregroundDeletion).
func (gc *Controller) classifyReferences(ctx context.Context, item *node, refs []model.OwnerReference) (solid, dangling, waiting []model.OwnerReference, err error) {
	for _, ref := range refs {
		isDangling, owner, err := gc.isDangling(ctx, ref, item)
		if err != nil {
			return nil, nil, nil, err
		}
		if isDangling {
			dangling = append(dangling, ref)
			continue
		}
		om := owner.Meta()
		if om.DeletionTimestamp != nil && hasFinalizer(om, model.FinalizerDeleteDependents) {
			waiting = append(waiting, ref)
		} else {
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// processDeletingDependentsItem removes an owner's foregroundDeletion finalizer when no
// dependent blocks it any more, and otherwise queues the blocking dependents that are not
// themselves deleting their dependents.
func (gc *Controller) processDeletingDependentsItem(ctx context.Context, item *node) error {
	blocking := item.blockingDependents()
	if len(blocking) == 0 {
		return gc.removeFinalizer(ctx, item, model.FinalizerDeleteDependents)
	}
	for _, dep := range blocking {
		if !dep.isDeletingDependents() {
			gc.attemptToDelete.Add(dep)
		}
	}
	return nil
}

func (gc *Controller) runAttemptToOrphanWorker(p *sim.Proc) {
	runNodeWorker(p, gc.attemptToOrphan, gc.attemptToOrphanWorker)
}

// attemptToOrphanWorker strips the owner's reference from every dependent, then removes the
// owner's orphan finalizer (upstream attemptToOrphanWorker); any failure retries the whole
// step with backoff.
func (gc *Controller) attemptToOrphanWorker(ctx context.Context, owner *node) workQueueItemAction {
	if err := gc.orphanDependents(ctx, owner, owner.getDependents()); err != nil {
		gc.k.Emit(Component, "orphan-error", nodeRef(owner), 0, err.Error())
		return requeueItem
	}
	if err := gc.removeFinalizer(ctx, owner, model.FinalizerOrphanDependents); err != nil {
		gc.k.Emit(Component, "orphan-error", nodeRef(owner), 0, err.Error())
		return requeueItem
	}
	return forgetItem
}

// orphanDependents removes owner's reference from each dependent, concurrently (upstream
// orphanDependents); a dependent that is gone is not an error.
func (gc *Controller) orphanDependents(ctx context.Context, owner *node, dependents []*node) error {
	errs := sim.RunConcurrently(ctx, Component+"/orphan", 0, len(dependents), func(ctx context.Context, i int) error {
		dep := dependents[i]
		err := gc.patchOwnerRefs(ctx, dep, "orphan", func(refs []model.OwnerReference) []model.OwnerReference {
			return withoutUIDs(refs, []string{owner.identity.UID})
		})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("orphaning %s failed, %v", dep.identity, err)
		}
		return nil
	})
	if len(errs) != 0 {
		return fmt.Errorf("failed to orphan dependents of owner %s, got errors: %s", owner.identity, utilerrors.NewAggregate(errs).Error())
	}
	return nil
}
