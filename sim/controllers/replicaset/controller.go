package replicaset

import (
	"fmt"

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
	// SyncStats are the SyncLoop's counters (Syncs, SyncErrors, SyncDurationTotal) and its work
	// queue's metrics (Queue).
	client.SyncStats
	// PodWrites count the pod writes (a NotFound delete is not counted as an error).
	controllerutil.PodWrites
	// SlowStartBatches counts batches of pod creations started.
	SlowStartBatches uint64
	// Adoptions and Releases count successful ownerReference patches.
	Adoptions, Releases uint64
	// StatusUpdates counts status writes that succeeded; StatusUpdateErrors those that failed
	// after the retries.
	StatusUpdates, StatusUpdateErrors uint64
}

// Controller is the ReplicaSet controller: it keeps the number of active pods owned by every
// ReplicaSet at spec.replicas and reports what it sees in the ReplicaSet's status (upstream
// ReplicaSetController).
type Controller struct {
	controllerutil.Base
	factory *client.SharedInformerFactory
	cfg     Config

	rsInformer  *client.Informer
	podInformer *client.Informer
	// pods mirrors podInformer as the facts a sync reads; syncBuffers are reusable buffers
	// for one sync's copy of them (getSyncBuffers).
	pods        *podTable
	syncBuffers []*syncBuffers
	// selectors are the selectors of the ReplicaSets synced, by key (selectorOf).
	selectors controllerutil.VersionCache[string, *model.ReplicaSet, podSelector]

	expectations *controllerutil.UIDTrackingControllerExpectations
	// resolved is the ReplicaSet resolveControllerRef returned last and resolvedKey its key,
	// the informer's string: the pod handlers wake the owner they have just resolved, and
	// rsKey gives its key without building it.
	resolved    *model.ReplicaSet
	resolvedKey string
	// podControl creates (handing each fresh pod over to the client) and deletes pods.
	podControl controllerutil.PodControl

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
		factory:      f,
		cfg:          cfg,
		rsInformer:   f.For(model.KindReplicaSet),
		podInformer:  f.For(model.KindPod),
		expectations: controllerutil.NewUIDTrackingControllerExpectations(controllerutil.NewControllerExpectations(k.Now, cfg.ExpectationsTimeout)),
	}
	rsc.Base = controllerutil.NewBase(k, c, rec, Component, "ReplicaSet", "replicaset",
		workqueue.DefaultControllerRateLimiter[string](),
		rsc.syncReplicaSet)
	rsc.podControl = controllerutil.PodControl{Client: c, Recorder: rec, Shared: true, Counts: &rsc.stats.PodWrites}
	rsc.pods = newPodTable()
	rsc.podInformer.AddEventHandler(rsc.pods)
	rsc.rsInformer.AddEventHandler(controllerutil.OwnerHandlers[*model.ReplicaSet]{
		Enqueue: rsc.enqueue,
		// A deleted ReplicaSet's expectations are forgotten, so that a new one with the same
		// name starts clean; the sync then finds it gone.
		Forget: func(rs *model.ReplicaSet) { rsc.expectations.DeleteExpectations(rsc.rsKey(rs)) },
	}.Funcs())
	rsc.podInformer.AddEventHandler(rsc.podHandlers().Funcs())
	return rsc, nil
}

// Start spawns the controller process: it waits for the ReplicaSet and Pod caches to sync,
// then starts ConcurrentReplicaSetSyncs workers (upstream Run; client.SyncLoop). A sync error
// requeues the key with the rate limiter's backoff, success forgets its backoff. Start after
// Stop does nothing: a restarted controller is a new Controller.
func (rsc *Controller) Start() {
	rsc.Loop.Start(rsc.cfg.ConcurrentReplicaSetSyncs, rsc.rsInformer, rsc.podInformer)
}

// Stop shuts the queue down and kills the controller's processes (a controller-manager
// restart); a sync in progress is abandoned where it blocks, as a killed process would be.
// Pod creations and deletions already handed to their own processes still complete.
func (rsc *Controller) Stop() { rsc.Loop.Stop() }

// Expectations returns the controller's expectations, for tests and the recorder. It is the
// live store: callers must only read it.
func (rsc *Controller) Expectations() *controllerutil.UIDTrackingControllerExpectations {
	return rsc.expectations
}

// Stats returns the controller's counters now.
func (rsc *Controller) Stats() Stats {
	s := rsc.stats
	s.SyncStats = rsc.Loop.Stats()
	return s
}

// ---- event handlers (upstream replica_set.go) ----

func (rsc *Controller) enqueue(rs *model.ReplicaSet) { rsc.Queue.Add(rsc.rsKey(rs)) }

// rsKey is model.Key(rs): the informer's string when rs is the ReplicaSet resolved last (a
// stored object never changes, so the same object has the same key), else built.
func (rsc *Controller) rsKey(rs *model.ReplicaSet) string {
	if rs == rsc.resolved {
		return rsc.resolvedKey
	}
	return model.Key(rs)
}

// podHandlers are the pod event handlers (upstream addPod, updatePod, deletePod): a pod's
// creation or deletion is observed for the owning ReplicaSet, an orphan wakes every ReplicaSet
// whose selector matches so that one may adopt it. A pod that gains a deletionTimestamp counts
// as deleted at once, so that its replacement is created without waiting for the grace
// period. A pod that becomes Ready under a ReplicaSet with minReadySeconds also gets a sync
// minReadySeconds+1s later, when it turns available (the extra second absorbs clock
// granularity, upstream issue 39785).
func (rsc *Controller) podHandlers() controllerutil.OwnedHandlers[*model.Pod, *model.ReplicaSet] {
	return controllerutil.OwnedHandlers[*model.Pod, *model.ReplicaSet]{
		Resolve:   rsc.resolveControllerRef,
		Selecting: rsc.getPodReplicaSets,
		Enqueue:   rsc.enqueue,
		Created: func(rs *model.ReplicaSet) {
			key := rsc.rsKey(rs)
			rsc.expectations.CreationObserved(key)
			rsc.Queue.Add(key)
		},
		Deleted: func(rs *model.ReplicaSet, pod *model.Pod) {
			key := rsc.rsKey(rs)
			rsc.expectations.DeletionObserved(key, pod.Namespace, pod.Name)
			rsc.Queue.Add(key)
		},
		Updated: func(rs *model.ReplicaSet, oldPod, curPod *model.Pod) {
			if !model.IsPodReady(oldPod) && model.IsPodReady(curPod) && rs.Spec.MinReadySeconds > 0 {
				rsc.Queue.AddAfter(rsc.rsKey(rs), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
			}
		},
		DeletingIsDeleted:      true,
		DeleteOldOnLabelChange: true,
	}
}

// resolveControllerRef returns the cached ReplicaSet a controller reference points to, and false
// when the kind is not ReplicaSet, no ReplicaSet has that name, or the one that has it has
// another UID (a different object with the same name).
func (rsc *Controller) resolveControllerRef(namespace string, ref *model.OwnerReference) (*model.ReplicaSet, bool) {
	rs, key, ok := client.ResolveControllerRefKeyed[*model.ReplicaSet](rsc.rsInformer, model.KindReplicaSet, namespace, ref)
	if ok {
		rsc.resolved, rsc.resolvedKey = rs, key
	}
	return rs, ok
}

// getPodReplicaSets returns the cached ReplicaSets in the pod's namespace whose selector
// matches its labels (upstream ReplicaSetLister.GetPodReplicaSets). A ReplicaSet with an
// invalid, nil or empty selector matches nothing; a pod without labels matches nothing.
func (rsc *Controller) getPodReplicaSets(pod *model.Pod) []*model.ReplicaSet {
	out := controllerutil.SelectingObjects(rsc.rsInformer, pod.Namespace, pod.Labels, func(rs *model.ReplicaSet) *metav1.LabelSelector { return rs.Spec.Selector })
	if len(out) > 1 {
		// Overlapping selectors are a user error; controller references keep it harmless.
		rsc.Kernel.Emit(Component, "overlapping-selectors", "Pod "+podKey(pod), 0, fmt.Sprintf("matches=%d", len(out)))
	}
	return out
}
