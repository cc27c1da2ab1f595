package daemonset

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/flowcontrol"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the name the controller uses in traces, process names and as its event source
// (upstream EventSource{Component: "daemonset-controller"}).
const Component = "daemonset-controller"

// Stats are the controller's counters since New, plus its work queue's metrics.
type Stats struct {
	// SyncStats are the SyncLoop's counters (Syncs, SyncErrors, SyncDurationTotal) and its work
	// queue's metrics (Queue).
	client.SyncStats
	// PodWrites count the pod writes (a NotFound delete is not counted).
	controllerutil.PodWrites
	// RevisionsCreated, RevisionsDeleted count ControllerRevision writes.
	RevisionsCreated, RevisionsDeleted uint64
	// StatusUpdates counts status writes that succeeded; StatusUpdateErrors those that failed
	// after the retries.
	StatusUpdates, StatusUpdateErrors uint64
}

// Controller is the DaemonSet controller (upstream DaemonSetsController).
type Controller struct {
	controllerutil.Base
	cfg Config

	dsInformer      *client.Informer
	historyInformer *client.Informer
	podInformer     *client.Informer
	nodeInformer    *client.Informer

	podControl        controllerutil.PodControl
	expectations      *controllerutil.ControllerExpectations
	failedPodsBackoff *flowcontrol.Backoff
	backoffGC         *sim.Timer

	// placement caches, per DaemonSet UID, the spec of the pods it runs, for eligibility
	// checks (see daemonPodSpec).
	placement map[string]placementEntry

	stats Stats
}

// New builds the controller on the shared informers of f (DaemonSets, ControllerRevisions,
// Pods and Nodes), registers its event handlers, and returns it stopped; the caller starts f
// and calls Start. It returns an error if cfg is invalid or the pod index cannot be added.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dsc := &Controller{
		cfg:               cfg,
		dsInformer:        f.For(model.KindDaemonSet),
		historyInformer:   f.For(model.KindControllerRevision),
		podInformer:       f.For(model.KindPod),
		nodeInformer:      f.For(model.KindNode),
		expectations:      controllerutil.NewControllerExpectations(k.Now, cfg.ExpectationsTimeout),
		failedPodsBackoff: flowcontrol.NewBackoff(cfg.FailedPodsBackoffInitial, cfg.FailedPodsBackoffMax),
		placement:         map[string]placementEntry{},
	}
	dsc.Base = controllerutil.NewBase(k, c, rec, Component, "DaemonSet", "daemonset",
		workqueue.DefaultControllerRateLimiter[string](),
		dsc.syncDaemonSet)
	// Every create hands over a pod built from its own deep copy of the template (syncNodes),
	// so the client need not copy it again, as for the ReplicaSet controller.
	dsc.podControl = controllerutil.PodControl{Client: c, Recorder: rec, Shared: true, Counts: &dsc.stats.PodWrites}
	if err := controllerutil.AddClaimCandidatesIndex(dsc.podInformer, indexClaimCandidates); err != nil {
		return nil, err
	}
	dsc.dsInformer.AddEventHandler(controllerutil.OwnerHandlers[*model.DaemonSet]{
		Enqueue: dsc.enqueue,
		// A deleted DaemonSet's expectations are forgotten, so that a new one of the same name
		// starts clean.
		Forget: func(ds *model.DaemonSet) {
			dsc.expectations.DeleteExpectations(model.Key(ds))
			delete(dsc.placement, ds.UID)
		},
	}.Funcs())
	// ControllerRevisions: an owned revision needs nothing when added; an orphan wakes every
	// DaemonSet that selects it; a changed or deleted one wakes its controllers.
	dsc.historyInformer.AddEventHandler(controllerutil.OwnedHandlers[*model.ControllerRevision, *model.DaemonSet]{
		Resolve: dsc.resolveControllerRef,
		Selecting: func(h *model.ControllerRevision) []*model.DaemonSet {
			return dsc.getDaemonSetsForLabels(h.Namespace, h.Labels)
		},
		Enqueue: dsc.enqueue,
		Created: func(*model.DaemonSet) {},
	}.Funcs())
	dsc.podInformer.AddEventHandler(dsc.podHandlers().Funcs())
	dsc.nodeInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { dsc.addNode(obj) },
		UpdateFunc: dsc.updateNode,
	})
	return dsc, nil
}

// Start spawns the controller process: it waits for the Pod, Node, ControllerRevision and
// DaemonSet caches to sync, then starts ConcurrentDaemonSetSyncs workers (client.SyncLoop: an
// error requeues the key with the rate limiter's backoff, success forgets its backoff) and,
// after them, the failed-pod back-off garbage collection (upstream Run). Start after Stop does
// nothing: a restarted controller is a new Controller.
func (dsc *Controller) Start() {
	workers := dsc.cfg.ConcurrentDaemonSetSyncs
	informers := []*client.Informer{dsc.podInformer, dsc.nodeInformer, dsc.historyInformer, dsc.dsInformer}
	dsc.Loop.StartFunc(informers, fmt.Sprintf("workers=%d", workers), func() {
		dsc.Loop.SpawnWorkers(workers)
		dsc.backoffGC = dsc.Kernel.Every(dsc.cfg.BackoffGCInterval, func() { dsc.failedPodsBackoff.GC(dsc.Kernel.Now()) })
	})
}

// Stop stops the back-off garbage collection, shuts the queue down and kills the controller's
// processes (a controller-manager restart); a sync in progress is abandoned where it blocks.
// Requests already handed to their own processes still complete.
func (dsc *Controller) Stop() {
	if dsc.backoffGC != nil {
		dsc.backoffGC.Stop()
	}
	dsc.Loop.Stop()
}

// Expectations returns the controller's expectations, for tests and the recorder. It is the
// live store: callers must only read it.
func (dsc *Controller) Expectations() *controllerutil.ControllerExpectations { return dsc.expectations }

// Stats returns the controller's counters now.
func (dsc *Controller) Stats() Stats {
	s := dsc.stats
	s.SyncStats = dsc.Loop.Stats()
	return s
}

// ---- event handlers (upstream daemon_controller.go) ----

func (dsc *Controller) enqueue(ds *model.DaemonSet) { dsc.Queue.Add(model.Key(ds)) }

type placementEntry struct {
	generation int64
	spec       *model.PodSpec
}

// maxPlacementEntries bounds the placement cache; past it the cache starts over.
const maxPlacementEntries = 100000

// daemonPodSpec returns the spec upstream's NewPod would build for ds (the template's with the
// daemon tolerations), remembered for ds's generation: the template is part of the spec, so
// it only changes with the generation. Upstream builds it for every node in every check; the
// result is the same. Callers must not modify it.
func (dsc *Controller) daemonPodSpec(ds *model.DaemonSet) *model.PodSpec {
	if e, ok := dsc.placement[ds.UID]; ok && e.generation == ds.Generation && ds.Generation != 0 {
		return e.spec
	}
	spec := &newPod(ds, "").Spec
	if len(dsc.placement) >= maxPlacementEntries {
		clear(dsc.placement)
	}
	dsc.placement[ds.UID] = placementEntry{generation: ds.Generation, spec: spec}
	return spec
}

// shouldRun is nodeShouldRunDaemonPod with the cached daemon pod spec.
func (dsc *Controller) shouldRun(node *model.Node, ds *model.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	return nodeShouldRunWithSpec(node, ds, dsc.daemonPodSpec(ds))
}

// podHandlers are the pod event handlers (upstream addPod, updatePod, deletePod): a pod's
// creation or deletion is observed for its DaemonSet, an orphan wakes every DaemonSet that
// selects it. A pod that gains a deletionTimestamp counts as deleted at once. A pod turning
// Ready under a DaemonSet with minReadySeconds also wakes it minReadySeconds+1s later.
func (dsc *Controller) podHandlers() controllerutil.OwnedHandlers[*model.Pod, *model.DaemonSet] {
	return controllerutil.OwnedHandlers[*model.Pod, *model.DaemonSet]{
		Resolve:   dsc.resolveControllerRef,
		Selecting: func(pod *model.Pod) []*model.DaemonSet { return dsc.getDaemonSetsForLabels(pod.Namespace, pod.Labels) },
		Enqueue:   dsc.enqueue,
		Created: func(ds *model.DaemonSet) {
			key := model.Key(ds)
			dsc.expectations.CreationObserved(key)
			dsc.Queue.Add(key)
		},
		Deleted: func(ds *model.DaemonSet, _ *model.Pod) {
			key := model.Key(ds)
			dsc.expectations.DeletionObserved(key)
			dsc.Queue.Add(key)
		},
		Updated: func(ds *model.DaemonSet, oldPod, curPod *model.Pod) {
			if !model.IsPodReady(oldPod) && model.IsPodReady(curPod) && ds.Spec.MinReadySeconds > 0 {
				dsc.Queue.AddAfter(model.Key(ds), time.Duration(ds.Spec.MinReadySeconds)*time.Second+time.Second)
			}
		},
		DeletingIsDeleted: true,
	}
}

// addNode wakes every DaemonSet that should run a pod on the new node.
func (dsc *Controller) addNode(obj model.Object) {
	node, ok := client.ObjectAs[*model.Node](obj)
	if !ok {
		return
	}
	for _, o := range dsc.dsInformer.List(nil) {
		ds, ok := client.ObjectAs[*model.DaemonSet](o)
		if !ok {
			continue
		}
		if shouldRun, _ := dsc.shouldRun(node, ds); shouldRun {
			dsc.enqueue(ds)
		}
	}
}

// updateNode wakes every DaemonSet whose verdict on the node changed. Updates that only touch
// conditions without changing which are True (heartbeats) are ignored (upstream
// shouldIgnoreNodeUpdate).
func (dsc *Controller) updateNode(oldObj, curObj model.Object) {
	oldNode, ok1 := client.ObjectAs[*model.Node](oldObj)
	curNode, ok2 := client.ObjectAs[*model.Node](curObj)
	if !ok1 || !ok2 || shouldIgnoreNodeUpdate(oldNode, curNode) {
		return
	}
	for _, o := range dsc.dsInformer.List(nil) {
		ds, ok := client.ObjectAs[*model.DaemonSet](o)
		if !ok {
			continue
		}
		oldRun, oldCont := dsc.shouldRun(oldNode, ds)
		curRun, curCont := dsc.shouldRun(curNode, ds)
		if oldRun != curRun || oldCont != curCont {
			dsc.enqueue(ds)
		}
	}
}

// nodeInSameCondition reports whether the same condition types are True in both lists
// (upstream nodeInSameCondition).
func nodeInSameCondition(old, cur []model.NodeCondition) bool {
	trueOld := map[string]bool{}
	for _, c := range old {
		if c.Status == model.ConditionTrue {
			trueOld[c.Type] = true
		}
	}
	for _, c := range cur {
		if c.Status != model.ConditionTrue {
			continue
		}
		if !trueOld[c.Type] {
			return false
		}
		delete(trueOld, c.Type)
	}
	return len(trueOld) == 0
}

// shouldIgnoreNodeUpdate: the same conditions are True and nothing but the resourceVersion
// and the conditions changed.
func shouldIgnoreNodeUpdate(oldNode, curNode *model.Node) bool {
	if !nodeInSameCondition(oldNode.Status.Conditions, curNode.Status.Conditions) {
		return false
	}
	// Upstream deep-copies oldNode to set these two fields; a shallow copy whose two fields are
	// replaced compares the same and leaves the informer's object untouched all the same.
	o := *oldNode
	o.ResourceVersion = curNode.ResourceVersion
	o.Status.Conditions = curNode.Status.Conditions
	return equality.Semantic.DeepEqual(&o, curNode)
}

// resolveControllerRef returns the cached DaemonSet a controller reference points to, and
// false when the kind differs or the DaemonSet with that name has another UID.
func (dsc *Controller) resolveControllerRef(namespace string, ref *model.OwnerReference) (*model.DaemonSet, bool) {
	return client.ResolveControllerRef[*model.DaemonSet](dsc.dsInformer, model.KindDaemonSet, namespace, ref)
}

// getDaemonSetsForLabels returns the cached DaemonSets of namespace whose selector matches set
// (upstream GetPodDaemonSets and GetHistoryDaemonSets); objects without labels match none.
func (dsc *Controller) getDaemonSetsForLabels(namespace string, set map[string]string) []*model.DaemonSet {
	return controllerutil.SelectingObjects(dsc.dsInformer, namespace, set, func(ds *model.DaemonSet) *metav1.LabelSelector { return ds.Spec.Selector })
}
