package deployment

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the name the controller uses in traces, process names and as its event source
// (upstream EventSource{Component: "deployment-controller"}).
const Component = "deployment-controller"

// Stats are the controller's counters since New, plus its work queue's metrics.
type Stats struct {
	// SyncStats are the SyncLoop's counters (Syncs, SyncErrors, SyncDurationTotal) and its work
	// queue's metrics (Queue).
	client.SyncStats
	// Dropped counts the keys given up after MaxRetries failures in a row.
	Dropped uint64
	// ReplicaSetsCreated counts new ReplicaSets; CreateErrors failed creations (hash collisions
	// included); Collisions the collisionCount bumps.
	ReplicaSetsCreated, CreateErrors, Collisions uint64
	// ScaleUps and ScaleDowns count ReplicaSet resizes (ScalingReplicaSet events).
	ScaleUps, ScaleDowns uint64
	// ReplicaSetsDeleted counts old ReplicaSets removed by the history limit.
	ReplicaSetsDeleted uint64
	// StatusUpdates counts Deployment status writes that succeeded; StatusUpdateErrors those
	// that failed (conflicts included).
	StatusUpdates, StatusUpdateErrors uint64
	// Adoptions and Releases count ReplicaSet ownerReference patches.
	Adoptions, Releases uint64
	// ProgressChecks counts requeues for a progress-deadline check.
	ProgressChecks uint64
}

// Controller is the Deployment controller: it rolls each Deployment's pod template out
// through ReplicaSets and reports progress in the Deployment's status (upstream
// DeploymentController).
type Controller struct {
	controllerutil.Base
	cfg Config

	dInformer   *client.Informer
	rsInformer  *client.Informer
	podInformer *client.Informer

	// progressTimers hold the pending progress-deadline checks, by Deployment key (see
	// enqueueAfter).
	progressTimers map[string]*sim.Timer

	stats Stats
}

// New builds the controller on the shared informers of f (Deployments, ReplicaSets and Pods),
// registers its event handlers, and returns it stopped; the caller starts f and calls Start.
// It returns an error if cfg is invalid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dc := &Controller{
		cfg:            cfg,
		dInformer:      f.For(model.KindDeployment),
		rsInformer:     f.For(model.KindReplicaSet),
		podInformer:    f.For(model.KindPod),
		progressTimers: map[string]*sim.Timer{},
	}
	dc.Base = controllerutil.NewBase(k, c, rec, Component, "Deployment", "deployment",
		workqueue.DefaultControllerRateLimiter[string](), dc.syncKey)
	dc.Loop.HandleError = dc.handleErr
	// Deployments (upstream addDeployment, updateDeployment, deleteDeployment): every change,
	// resyncs included, wakes the Deployment; a deleted one is synced and found gone.
	dc.dInformer.AddEventHandler(controllerutil.OwnerHandlers[*model.Deployment]{Enqueue: dc.enqueue}.Funcs())
	// ReplicaSets (upstream addReplicaSet, updateReplicaSet, deleteReplicaSet): a change wakes
	// the Deployment that controls the ReplicaSet (the old and the new one when the reference
	// changed), an orphan every Deployment whose selector matches it, so that one may adopt it.
	// A ReplicaSet already being deleted (seen after a restart) counts as deleted; orphans'
	// deletions concern no one.
	dc.rsInformer.AddEventHandler(controllerutil.OwnedHandlers[*model.ReplicaSet, *model.Deployment]{
		Resolve:   dc.resolveControllerRef,
		Selecting: dc.getDeploymentsForReplicaSet,
		Enqueue:   dc.enqueue,
	}.Funcs())
	dc.podInformer.AddEventHandler(client.EventHandlerFuncs{DeleteFunc: dc.deletePod})
	return dc, nil
}

// Start spawns the controller process: it waits for the Deployment, ReplicaSet and Pod caches
// to sync, then starts ConcurrentDeploymentSyncs workers (upstream Run, worker and
// processNextWorkItem; client.SyncLoop, with syncKey and handleErr). Start after Stop does
// nothing: a restarted controller is a new Controller.
func (dc *Controller) Start() {
	dc.Loop.Start(dc.cfg.ConcurrentDeploymentSyncs, dc.dInformer, dc.rsInformer, dc.podInformer)
}

// Stop cancels pending progress checks, shuts the queue down and kills the controller's
// processes (a controller-manager restart); a sync in progress is abandoned where it blocks.
func (dc *Controller) Stop() {
	if dc.Loop.Stopped() {
		return
	}
	for _, key := range slices.Sorted(maps.Keys(dc.progressTimers)) {
		dc.progressTimers[key].Stop()
		delete(dc.progressTimers, key)
	}
	dc.Loop.Stop()
}

// Stats returns the controller's counters now.
func (dc *Controller) Stats() Stats {
	s := dc.stats
	s.SyncStats = dc.Loop.Stats()
	return s
}

// syncKey is syncDeployment, with the first case of upstream handleErr: an error because the
// namespace is terminating counts as success, so that the key's backoff is forgotten (every
// retry would fail alike) and it is not a sync error.
func (dc *Controller) syncKey(ctx context.Context, key string) error {
	err := dc.syncDeployment(ctx, key)
	if err != nil && apierrors.HasStatusCause(err, model.NamespaceTerminatingCause) {
		return nil
	}
	return err
}

// handleErr is the rest of upstream handleErr, for a failed sync: it requeues the key
// rate-limited while it has failed fewer than MaxRetries times in a row, and drops it after
// that.
func (dc *Controller) handleErr(key string, err error) {
	dc.Kernel.Emit(Component, "sync-error", "Deployment "+key, 0, errorReason(err))
	if dc.Queue.NumRequeues(key) < MaxRetries {
		dc.Queue.AddRateLimited(key)
		return
	}
	dc.stats.Dropped++
	dc.Kernel.Emit(Component, "dropped", "Deployment "+key, 0, fmt.Sprintf("after %d retries: %v", MaxRetries, err))
	dc.Queue.Forget(key)
}

// errorReason is the API reason of err (Conflict, AlreadyExists, ...), or its text.
func errorReason(err error) string {
	if r := apierrors.ReasonForError(err); r != metav1.StatusReasonUnknown {
		return string(r)
	}
	return err.Error()
}

// ---- enqueueing ----

func (dc *Controller) enqueue(d *model.Deployment) { dc.Queue.Add(model.Key(d)) }

func (dc *Controller) enqueueRateLimited(d *model.Deployment) { dc.Queue.AddRateLimited(model.Key(d)) }

// enqueueAfter adds the Deployment to the queue after delay, for a progress-deadline check.
// Upstream uses the queue's AddAfter. Here a held sim.Timer adds the key instead, because the
// simulated delaying queue does not hold off quiescence: with the default 10 minute quiet
// window and 600s deadline, a stuck rollout would end as "quiescent" a second before its
// ProgressDeadlineExceeded condition. A check that is certain to come is pending work. As with
// AddAfter, an earlier pending check is kept.
func (dc *Controller) enqueueAfter(d *model.Deployment, delay time.Duration) {
	key := model.Key(d)
	at := dc.Kernel.Now().Add(delay)
	t := dc.progressTimers[key]
	if t == nil {
		t = dc.Kernel.NewTimer(func() { dc.Queue.Add(key) })
		dc.progressTimers[key] = t
	}
	if when, armed := t.When(); armed && when <= at {
		return
	}
	t.ResetAt(at)
}

// forgetProgressCheck cancels the Deployment's pending progress check, if any.
func (dc *Controller) forgetProgressCheck(key string) {
	if t := dc.progressTimers[key]; t != nil {
		t.Stop()
		delete(dc.progressTimers, key)
	}
}

// ---- event handlers (upstream deployment_controller.go) ----

// deletePod wakes a Recreate Deployment once the last of its pods is gone, so that it can
// create the new ReplicaSet. Upstream lists the ReplicaSets with an API call from the
// handler; handlers here run on the kernel and cannot block, so the cache is read instead.
func (dc *Controller) deletePod(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	pod, ok := client.ObjectAs[*model.Pod](o)
	if !ok {
		return
	}
	d := dc.getDeploymentForPod(pod)
	if d == nil || d.Spec.Strategy.Type != model.RecreateDeploymentStrategyType {
		return
	}
	rsList := dc.listOwnedReplicaSets(d)
	podMap, err := dc.getPodMapForDeployment(d, rsList)
	if err != nil {
		return
	}
	n := 0
	//detlint:ordered a sum does not depend on order
	for _, pods := range podMap {
		n += len(pods)
	}
	if n == 0 {
		dc.enqueue(d)
	}
}

// resolveControllerRef returns the cached Deployment a controller reference points to, and
// false when the kind is not Deployment, no Deployment has that name, or the one that has it
// has another UID.
func (dc *Controller) resolveControllerRef(namespace string, ref *model.OwnerReference) (*model.Deployment, bool) {
	return client.ResolveControllerRef[*model.Deployment](dc.dInformer, model.KindDeployment, namespace, ref)
}

// getDeploymentsForReplicaSet returns the cached Deployments of the ReplicaSet's namespace
// whose selector matches its labels (upstream util.GetDeploymentsForReplicaSet). A Deployment
// with an invalid, nil or empty selector matches nothing; so does a ReplicaSet without labels.
func (dc *Controller) getDeploymentsForReplicaSet(rs *model.ReplicaSet) []*model.Deployment {
	out := controllerutil.SelectingObjects(dc.dInformer, rs.Namespace, rs.Labels, func(d *model.Deployment) *metav1.LabelSelector { return d.Spec.Selector })
	if len(out) > 1 {
		// Overlapping selectors are a user error; controller references keep it harmless.
		dc.Kernel.Emit(Component, "overlapping-selectors", "ReplicaSet "+model.Key(rs), 0, fmt.Sprintf("matches=%d", len(out)))
	}
	return out
}

// getDeploymentForPod returns the Deployment that controls the ReplicaSet that controls the
// pod, or nil.
func (dc *Controller) getDeploymentForPod(pod *model.Pod) *model.Deployment {
	ref := model.ControllerOf(pod)
	if ref == nil || ref.Kind != model.KindReplicaSet {
		return nil
	}
	obj, ok := dc.rsInformer.Get(pod.Namespace, ref.Name)
	if !ok {
		return nil
	}
	rs, ok := client.ObjectAs[*model.ReplicaSet](obj)
	if !ok || rs.UID != ref.UID {
		return nil
	}
	rsRef := model.ControllerOf(rs)
	if rsRef == nil {
		return nil
	}
	d, _ := dc.resolveControllerRef(rs.Namespace, rsRef)
	return d
}

// ---- syncDeployment (upstream deployment_controller.go) ----

func dRef(d *model.Deployment) string { return "Deployment " + model.Key(d) }

// syncDeployment brings one Deployment towards its spec (upstream syncDeployment), in
// upstream's order of precedence:
//
//  1. A Deployment gone from the cache is left alone (its pending progress check is dropped).
//  2. An empty selector (selecting every pod) gets a SelectingAll warning and no action.
//  3. Its ReplicaSets are claimed (matching orphans adopted, non-matching owned ones released)
//     and its pods grouped by ReplicaSet.
//  4. A Deployment being deleted only has its status synced.
//  5. The Progressing condition records a pause or resume (checkPausedConditions).
//  6. A paused Deployment, or one whose replicas changed (a scaling event), is only resized:
//     sync, which scales proportionally and never rolls out.
//  7. Otherwise the strategy rolls out: rolloutRecreate or rolloutRolling.
//
// It returns the first API error, after which the key is retried with backoff.
func (dc *Controller) syncDeployment(ctx context.Context, key string) error {
	cached, ok := controllerutil.Lister[*model.Deployment]{Informer: dc.dInformer}.GetByKey(key)
	if !ok {
		dc.forgetProgressCheck(key)
		return nil
	}
	d := cached.DeepCopy()
	// The API server defaults every Deployment it stores; defaulting the copy again is a no-op
	// for those and keeps the template comparable with the (defaulted) ReplicaSet templates.
	model.SetDefaults(d)

	if sel := d.Spec.Selector; sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		dc.Recorder.Eventf(d, model.EventTypeWarning, SelectingAllReason, "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			_ = dc.updateStatus(ctx, d)
		}
		return nil
	}

	rsList, err := dc.getReplicaSetsForDeployment(ctx, d)
	if err != nil {
		return err
	}
	podMap, err := dc.getPodMapForDeployment(d, rsList)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return dc.syncStatusOnly(ctx, d, rsList)
	}
	if err := dc.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		// A paused Deployment's progress is not estimated, so no deadline check is pending.
		dc.forgetProgressCheck(key)
		return dc.sync(ctx, d, rsList)
	}
	scalingEvent, err := dc.isScalingEvent(ctx, d, rsList)
	if err != nil {
		return err
	}
	if scalingEvent {
		return dc.sync(ctx, d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case model.RecreateDeploymentStrategyType:
		return dc.rolloutRecreate(ctx, d, rsList, podMap)
	case model.RollingUpdateDeploymentStrategyType:
		return dc.rolloutRolling(ctx, d, rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// listOwnedReplicaSets returns the cached ReplicaSets the Deployment's selector matches and it
// controls (upstream util.ListReplicaSets), sorted by key.
func (dc *Controller) listOwnedReplicaSets(d *model.Deployment) []*model.ReplicaSet {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil
	}
	var out []*model.ReplicaSet
	for _, obj := range dc.rsInformer.ListNamespace(d.Namespace, selector) {
		if rs, ok := client.ObjectAs[*model.ReplicaSet](obj); ok && isControlledBy(rs, d) {
			out = append(out, rs)
		}
	}
	return out
}

func isControlledBy(obj model.Object, d *model.Deployment) bool {
	ref := model.ControllerOf(obj)
	return ref != nil && ref.UID == d.UID
}

// getPodMapForDeployment groups the cached pods the Deployment's selector matches by the UID of
// the ReplicaSet in rsList that controls them; every ReplicaSet of rsList has an entry, and
// inactive pods are kept (Recreate must see old pods that still run). It returns an error for
// an invalid selector.
func (dc *Controller) getPodMapForDeployment(d *model.Deployment, rsList []*model.ReplicaSet) (map[string][]*model.Pod, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	podMap := make(map[string][]*model.Pod, len(rsList))
	for _, rs := range rsList {
		podMap[rs.UID] = []*model.Pod{}
	}
	for _, obj := range dc.podInformer.ListNamespace(d.Namespace, selector) {
		pod, ok := client.ObjectAs[*model.Pod](obj)
		if !ok {
			continue
		}
		ref := model.ControllerOf(pod)
		if ref == nil {
			continue
		}
		if pods, ok := podMap[ref.UID]; ok {
			podMap[ref.UID] = append(pods, pod)
		}
	}
	return podMap, nil
}
