package statefulset

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the name the controller uses in traces, process names and as its event source
// (upstream EventSource{Component: "statefulset-controller"}).
const Component = "statefulset-controller"

// Stats are the controller's counters since New, plus its work queue's metrics.
type Stats struct {
	// SyncStats are the SyncLoop's counters (Syncs, SyncErrors, SyncDurationTotal) and its work
	// queue's metrics (Queue).
	client.SyncStats
	// PodsCreated, PodsDeleted count successful pod writes; CreateErrors, DeleteErrors failed
	// ones (AlreadyExists on create is not counted).
	PodsCreated, CreateErrors, PodsDeleted, DeleteErrors uint64
	// RevisionsCreated, RevisionsDeleted count ControllerRevision writes.
	RevisionsCreated, RevisionsDeleted uint64
	// StatusUpdates counts status writes that succeeded; StatusUpdateErrors those that failed
	// after the retries.
	StatusUpdates, StatusUpdateErrors uint64
}

// Controller is the StatefulSet controller (upstream StatefulSetController with
// defaultStatefulSetControl, StatefulPodControl and the status updater).
type Controller struct {
	controllerutil.Base
	cfg  Config
	rand *rand.Rand // retry jitter

	setInformer *client.Informer
	podInformer *client.Informer
	revInformer *client.Informer

	// blocked holds, per StatefulSet key, where its last sync stopped.
	blocked map[string]Blockage
	// revData caches the data bytes of stored revisions; tmplData those of each set's
	// template, by set UID.
	revData  revisionDataCache
	tmplData map[string]templateDataEntry

	stats Stats
}

// New builds the controller on the shared informers of f (StatefulSets, Pods and
// ControllerRevisions), registers its event handlers, and returns it stopped; the caller starts
// f and calls Start. It returns an error if cfg is invalid or the pod index cannot be added.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ssc := &Controller{
		cfg:         cfg,
		rand:        k.Rand(Component),
		setInformer: f.For(model.KindStatefulSet),
		podInformer: f.For(model.KindPod),
		revInformer: f.For(model.KindControllerRevision),
		blocked:     map[string]Blockage{},
		tmplData:    map[string]templateDataEntry{},
	}
	ssc.Base = controllerutil.NewBase(k, c, rec, Component, "StatefulSet", "statefulset",
		workqueue.DefaultControllerRateLimiter[string](),
		ssc.sync)
	if err := controllerutil.AddClaimCandidatesIndex(ssc.podInformer, indexClaimCandidates); err != nil {
		return nil, err
	}
	ssc.setInformer.AddEventHandler(controllerutil.OwnerHandlers[*model.StatefulSet]{
		Enqueue: func(set *model.StatefulSet) { ssc.Queue.Add(model.Key(set)) },
		Forget:  func(set *model.StatefulSet) { delete(ssc.tmplData, set.UID) },
	}.Funcs())
	ssc.revInformer.AddEventHandler(client.EventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				ssc.revData.forget(o.Meta().UID)
			}
		},
	})
	// Pods (upstream addPod, updatePod, deletePod): a change wakes the pod's StatefulSet, or,
	// for an orphan, every set whose selector matches. A pod that already has a
	// deletionTimestamp when added (seen after a restart) is handled as deleted. A pod that
	// turns Ready under a set with minReadySeconds also wakes it that much later.
	ssc.podInformer.AddEventHandler(controllerutil.OwnedHandlers[*model.Pod, *model.StatefulSet]{
		Resolve:   ssc.resolveControllerRef,
		Selecting: ssc.getStatefulSetsForPod,
		Enqueue:   func(set *model.StatefulSet) { ssc.Queue.Add(model.Key(set)) },
		Updated: func(set *model.StatefulSet, oldPod, curPod *model.Pod) {
			if !model.IsPodReady(oldPod) && model.IsPodReady(curPod) && set.Spec.MinReadySeconds > 0 {
				ssc.Queue.AddAfter(model.Key(set), time.Duration(set.Spec.MinReadySeconds)*time.Second)
			}
		},
	}.Funcs())
	return ssc, nil
}

// Start spawns the controller process: it waits for the StatefulSet, Pod and
// ControllerRevision caches to sync, then starts ConcurrentStatefulSetSyncs workers (upstream
// Run, worker and processNextWorkItem; client.SyncLoop): an error requeues the key with the
// rate limiter's backoff, success forgets its backoff. Start after Stop does nothing: a
// restarted controller is a new Controller.
func (ssc *Controller) Start() {
	ssc.Loop.Start(ssc.cfg.ConcurrentStatefulSetSyncs, ssc.podInformer, ssc.setInformer, ssc.revInformer)
}

// Stop shuts the queue down and kills the controller's processes (a controller-manager
// restart); a sync in progress is abandoned where it blocks. Requests already handed to their
// own processes (a Parallel batch) still complete.
func (ssc *Controller) Stop() { ssc.Loop.Stop() }

// Stats returns the controller's counters now.
func (ssc *Controller) Stats() Stats {
	s := ssc.stats
	s.SyncStats = ssc.Loop.Stats()
	return s
}

// WaitingFor names the pod the StatefulSet setKey ("namespace/name") is blocked on, as its last
// sync found it, and why, for example "pod default/db-1 is Terminating on node worker-0 and
// will not be replaced until it is gone". ok is false when the last sync did not stop at any
// pod, when the set is unknown, or before its first sync.
//
// The identity rule is always reported: a replica slot held by a pod that is being deleted is
// named even under the Parallel policy, which otherwise never waits.
func (ssc *Controller) WaitingFor(setKey string) (podKey string, reason string, ok bool) {
	b, ok := ssc.blocked[setKey]
	if !ok {
		return "", "", false
	}
	return b.Pod, b.Reason, true
}

// SetBlockage is one StatefulSet's blockage, for listing.
type SetBlockage struct {
	Set string // "namespace/name"
	Blockage
}

// Blockages returns every StatefulSet whose last sync stopped at a pod, sorted by set key.
func (ssc *Controller) Blockages() []SetBlockage {
	out := make([]SetBlockage, 0, len(ssc.blocked))
	for k, b := range ssc.blocked { //detlint:ordered sorted below
		out = append(out, SetBlockage{Set: k, Blockage: b})
	}
	slices.SortFunc(out, func(a, b SetBlockage) int { return strings.Compare(a.Set, b.Set) })
	return out
}

// sync is upstream sync: look the set up, adopt orphaned revisions, claim pods, and run the
// control loop. A set gone from the cache only has its blockage forgotten; a set with an
// invalid selector is skipped without error (a non-transient error is not retried).
func (ssc *Controller) sync(ctx context.Context, key string) error {
	set, ok := controllerutil.Lister[*model.StatefulSet]{Informer: ssc.setInformer}.GetByKey(key)
	if !ok {
		delete(ssc.blocked, key)
		return nil
	}
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		ssc.Kernel.Emit(Component, "invalid-selector", setRef(set), set.ResourceVersion, err.Error())
		return nil
	}
	if err := ssc.adoptOrphanRevisions(ctx, set, selector); err != nil {
		return err
	}
	pods, err := ssc.getPodsForStatefulSet(ctx, set, selector)
	if err != nil {
		return err
	}
	return ssc.syncStatefulSet(ctx, key, set, pods, selector)
}

// syncStatefulSet runs the control loop for one set, records where it stopped, and with
// minReadySeconds requeues the set after that long while not every replica is available
// (upstream syncStatefulSet).
func (ssc *Controller) syncStatefulSet(ctx context.Context, key string, set *model.StatefulSet, pods []*model.Pod, selector labels.Selector) error {
	st := &syncState{}
	status, err := ssc.updateStatefulSet(ctx, set, pods, selector, st)
	if status != nil {
		ssc.recordBlockage(key, set, st.blocked)
	}
	if err != nil {
		return err
	}
	if set.Spec.MinReadySeconds > 0 && status != nil && int(status.AvailableReplicas) != specReplicas(set) {
		ssc.Queue.AddAfter(key, time.Duration(set.Spec.MinReadySeconds)*time.Second)
	}
	return nil
}

// recordBlockage keeps where the sync stopped (nil: nowhere), with the time it first stopped
// there, and leaves a trace line when that changes.
func (ssc *Controller) recordBlockage(key string, set *model.StatefulSet, b *Blockage) {
	prev, had := ssc.blocked[key]
	if b == nil {
		if had {
			delete(ssc.blocked, key)
			ssc.Kernel.Emit(Component, "unblocked", setRef(set), 0, "")
		}
		return
	}
	if had && prev.Pod == b.Pod && prev.Reason == b.Reason {
		return
	}
	nb := *b
	nb.Since = ssc.Kernel.Now()
	ssc.blocked[key] = nb
	ssc.Kernel.Emit(Component, "waiting", setRef(set), 0, nb.Reason)
}

// ---- event handlers (upstream stateful_set.go) ----

// resolveControllerRef returns the cached StatefulSet a controller reference points to, and
// false when the kind differs or the set with that name has another UID.
func (ssc *Controller) resolveControllerRef(namespace string, ref *model.OwnerReference) (*model.StatefulSet, bool) {
	return client.ResolveControllerRef[*model.StatefulSet](ssc.setInformer, model.KindStatefulSet, namespace, ref)
}

// getStatefulSetsForPod returns the cached sets in the pod's namespace whose selector matches
// its labels (upstream GetPodStatefulSets); a pod without labels matches none.
func (ssc *Controller) getStatefulSetsForPod(pod *model.Pod) []*model.StatefulSet {
	out := controllerutil.SelectingObjects(ssc.setInformer, pod.Namespace, pod.Labels, func(set *model.StatefulSet) *metav1.LabelSelector { return set.Spec.Selector })
	if len(out) > 1 {
		ssc.Kernel.Emit(Component, "overlapping-selectors", podRef(pod), 0, fmt.Sprintf("matches=%d", len(out)))
	}
	return out
}

// deleteOptions are the options of every pod deletion the controller makes: the pod's own
// grace period, background propagation (upstream DeletePod with metav1.DeleteOptions{}).
func deleteOptions() model.DeleteOptions { return model.DeleteOptions{} }
