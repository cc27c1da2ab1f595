package replicaset

import (
	"context"
	"fmt"
	"maps"

	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the name the controller uses in traces, process names and as its event source
// (upstream EventSource{Component: "replicaset-controller"}).
const Component = "replicaset-controller"

// Stats are the controller's counters since New, plus its work queue's metrics.
type Stats struct {
	// Syncs counts finished syncReplicaSet calls; SyncErrors those that returned an error.
	Syncs, SyncErrors uint64
	// SyncDurationTotal is the virtual time spent in syncReplicaSet.
	SyncDurationTotal time.Duration
	// PodsCreated and PodsDeleted count successful API calls; CreateErrors and DeleteErrors
	// failed ones (a NotFound delete is not counted as an error).
	PodsCreated, CreateErrors, PodsDeleted, DeleteErrors uint64
	// SlowStartBatches counts batches of pod creations started.
	SlowStartBatches uint64
	// Adoptions and Releases count successful ownerReference patches.
	Adoptions, Releases uint64
	// StatusUpdates counts status writes that succeeded; StatusUpdateErrors those that failed
	// after the retries.
	StatusUpdates, StatusUpdateErrors uint64
	// Queue is the work queue's metrics.
	Queue workqueue.Stats
}

// Controller is the ReplicaSet controller: it keeps the number of active pods owned by every
// ReplicaSet at spec.replicas and reports what it sees in the ReplicaSet's status (upstream
// ReplicaSetController).
type Controller struct {
	k        *sim.Kernel
	client   *client.Client
	factory  *client.SharedInformerFactory
	recorder record.Recorder
	cfg      Config

	rsInformer  *client.Informer
	podInformer *client.Informer
	// pods mirrors podInformer as the facts a sync reads; factsBuffers are reusable buffers
	// for one sync's copy of them.
	pods         *podTable
	factsBuffers []*[]podFacts

	queue        *workqueue.RateLimiting[string]
	loop         *client.SyncLoop
	expectations *controllerutil.UIDTrackingControllerExpectations

	// syncHandler is syncReplicaSet; it is a field so that tests can observe or replace the
	// sync without a full world (the upstream test seam of the same name).
	syncHandler func(ctx context.Context, key string) error

	stats Stats
}

// New builds the controller on the shared informers of f (ReplicaSets and Pods), registers its
// event handlers, and returns it stopped; the caller starts f and calls Start. It returns an
// error if cfg is invalid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rsc := &Controller{
		k:            k,
		client:       c,
		factory:      f,
		recorder:     rec,
		cfg:          cfg,
		rsInformer:   f.For(model.KindReplicaSet),
		podInformer:  f.For(model.KindPod),
		expectations: controllerutil.NewUIDTrackingControllerExpectations(controllerutil.NewControllerExpectations(k.Now, cfg.ExpectationsTimeout)),
		queue:        workqueue.NewRateLimiting[string](k, "replicaset", workqueue.DefaultControllerRateLimiter[string]()),
	}
	rsc.syncHandler = rsc.syncReplicaSet
	rsc.loop = client.NewSyncLoop(k, Component, "ReplicaSet", rsc.queue,
		func(ctx context.Context, key string) error { return rsc.syncHandler(ctx, key) })
	rsc.pods = newPodTable()
	rsc.podInformer.AddEventHandler(rsc.pods)
	rsc.rsInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { rsc.addRS(obj) },
		UpdateFunc: rsc.updateRS,
		DeleteFunc: rsc.deleteRS,
	})
	rsc.podInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { rsc.addPod(obj) },
		UpdateFunc: rsc.updatePod,
		DeleteFunc: rsc.deletePod,
	})
	return rsc, nil
}

// Start spawns the controller process: it waits for the ReplicaSet and Pod caches to sync,
// then starts ConcurrentReplicaSetSyncs workers (upstream Run; client.SyncLoop). A sync error
// requeues the key with the rate limiter's backoff, success forgets its backoff. Start after
// Stop does nothing: a restarted controller is a new Controller.
func (rsc *Controller) Start() {
	rsc.loop.Start(rsc.cfg.ConcurrentReplicaSetSyncs, rsc.rsInformer, rsc.podInformer)
}

// Stop shuts the queue down and kills the controller's processes (a controller-manager
// restart); a sync in progress is abandoned where it blocks, as a killed process would be.
// Pod creations and deletions already handed to their own processes still complete.
func (rsc *Controller) Stop() { rsc.loop.Stop() }

// Expectations returns the controller's expectations, for tests and the recorder. It is the
// live store: callers must only read it.
func (rsc *Controller) Expectations() *controllerutil.UIDTrackingControllerExpectations {
	return rsc.expectations
}

// Stats returns the controller's counters now.
func (rsc *Controller) Stats() Stats {
	s := rsc.stats
	ls := rsc.loop.Stats()
	s.Syncs, s.SyncErrors, s.SyncDurationTotal, s.Queue = ls.Syncs, ls.SyncErrors, ls.SyncDurationTotal, ls.Queue
	return s
}

// ---- event handlers (upstream replica_set.go) ----

func (rsc *Controller) enqueue(rs *model.ReplicaSet) { rsc.queue.Add(model.Key(rs)) }

func (rsc *Controller) addRS(obj model.Object) {
	if rs, ok := client.ObjectAs[*model.ReplicaSet](obj); ok {
		rsc.enqueue(rs)
	}
}

// updateRS always enqueues: a resync then retries ReplicaSets whose creations failed, and a
// status write's own event costs only a cheap sync. A changed UID means the object was
// deleted and recreated between two observations: the old one is handled as deleted first.
func (rsc *Controller) updateRS(oldObj, curObj model.Object) {
	oldRS, ok1 := client.ObjectAs[*model.ReplicaSet](oldObj)
	curRS, ok2 := client.ObjectAs[*model.ReplicaSet](curObj)
	if !ok1 || !ok2 {
		return
	}
	if curRS.UID != oldRS.UID {
		rsc.deleteRS(client.DeletedFinalStateUnknown{Key: model.Key(oldRS), Obj: oldRS})
	}
	rsc.enqueue(curRS)
}

// deleteRS forgets the ReplicaSet's expectations, so that a new one with the same name starts
// clean, and enqueues the key (the sync then finds it gone).
func (rsc *Controller) deleteRS(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	rs, ok := client.ObjectAs[*model.ReplicaSet](o)
	if !ok {
		return
	}
	key := model.Key(rs)
	rsc.expectations.DeleteExpectations(key)
	rsc.queue.Add(key)
}

// addPod observes a creation for the owning ReplicaSet, or, for an orphan, wakes every
// ReplicaSet whose selector matches so that one may adopt it. A pod that already has a
// deletionTimestamp (seen after a restart) counts as a deletion instead.
func (rsc *Controller) addPod(obj model.Object) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		rsc.deletePod(pod)
		return
	}
	if ref := model.ControllerOf(pod); ref != nil {
		rs := rsc.resolveControllerRef(pod.Namespace, ref)
		if rs == nil {
			return
		}
		key := model.Key(rs)
		rsc.expectations.CreationObserved(key)
		rsc.queue.Add(key)
		return
	}
	// An orphan: no controller is waiting for it, so no creation is observed.
	for _, rs := range rsc.getPodReplicaSets(pod) {
		rsc.enqueue(rs)
	}
}

// updatePod wakes the ReplicaSets a pod change concerns. A resync (same resourceVersion) is
// ignored. A pod that gains a deletionTimestamp counts as deleted at once, so that its
// replacement is created without waiting for the grace period. A pod that becomes Ready under
// a ReplicaSet with minReadySeconds also gets a sync minReadySeconds+1s later, when it turns
// available (the extra second absorbs clock granularity, upstream issue 39785).
func (rsc *Controller) updatePod(oldObj, curObj model.Object) {
	oldPod, ok1 := client.ObjectAs[*model.Pod](oldObj)
	curPod, ok2 := client.ObjectAs[*model.Pod](curObj)
	if !ok1 || !ok2 || curPod.ResourceVersion == oldPod.ResourceVersion {
		return
	}
	labelChanged := !maps.Equal(curPod.Labels, oldPod.Labels)
	if curPod.DeletionTimestamp != nil {
		rsc.deletePod(curPod)
		if labelChanged {
			rsc.deletePod(oldPod)
		}
		return
	}
	curRef, oldRef := model.ControllerOf(curPod), model.ControllerOf(oldPod)
	refChanged := !model.EqualControllerRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := rsc.resolveControllerRef(oldPod.Namespace, oldRef); rs != nil {
			rsc.enqueue(rs)
		}
	}
	if curRef != nil {
		rs := rsc.resolveControllerRef(curPod.Namespace, curRef)
		if rs == nil {
			return
		}
		rsc.enqueue(rs)
		if !model.IsPodReady(oldPod) && model.IsPodReady(curPod) && rs.Spec.MinReadySeconds > 0 {
			rsc.queue.AddAfter(model.Key(rs), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}
	if labelChanged || refChanged {
		for _, rs := range rsc.getPodReplicaSets(curPod) {
			rsc.enqueue(rs)
		}
	}
}

// deletePod observes a deletion for the owning ReplicaSet (obj may be a tombstone, whose pod
// may be stale). Orphans concern no one.
func (rsc *Controller) deletePod(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	pod, ok := client.ObjectAs[*model.Pod](o)
	if !ok {
		return
	}
	ref := model.ControllerOf(pod)
	if ref == nil {
		return
	}
	rs := rsc.resolveControllerRef(pod.Namespace, ref)
	if rs == nil {
		return
	}
	key := model.Key(rs)
	rsc.expectations.DeletionObserved(key, podKey(pod))
	rsc.queue.Add(key)
}

// resolveControllerRef returns the cached ReplicaSet a controller reference points to, or nil
// when the kind is not ReplicaSet, no ReplicaSet has that name, or the one that has it has
// another UID (a different object with the same name).
func (rsc *Controller) resolveControllerRef(namespace string, ref *model.OwnerReference) *model.ReplicaSet {
	o, _ := client.ResolveControllerRef[*model.ReplicaSet](rsc.rsInformer, model.KindReplicaSet, namespace, ref)
	return o
}

// getPodReplicaSets returns the cached ReplicaSets in the pod's namespace whose selector
// matches its labels (upstream ReplicaSetLister.GetPodReplicaSets). A ReplicaSet with an
// invalid, nil or empty selector matches nothing; a pod without labels matches nothing.
func (rsc *Controller) getPodReplicaSets(pod *model.Pod) []*model.ReplicaSet {
	out := controllerutil.SelectingObjects(rsc.rsInformer, pod.Namespace, pod.Labels, func(rs *model.ReplicaSet) *metav1.LabelSelector { return rs.Spec.Selector })
	if len(out) > 1 {
		// Overlapping selectors are a user error; controller references keep it harmless.
		rsc.k.Emit(Component, "overlapping-selectors", "Pod "+podKey(pod), 0, fmt.Sprintf("matches=%d", len(out)))
	}
	return out
}
