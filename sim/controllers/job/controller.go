package job

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the controller's name in traces and its event source (upstream
// EventSource{Component: "job-controller"}).
const Component = "job-controller"

// Stats are the controller's counters.
type Stats struct {
	// SyncStats are the SyncLoop's counters (Syncs, SyncErrors, SyncDurationTotal) and its work
	// queue's metrics (Queue).
	client.SyncStats
	PodsCreated, CreateErrors, PodsDeleted, DeleteErrors uint64
	FinalizersRemoved                                    uint64
	StatusUpdates                                        uint64
}

// Controller is the Job controller (upstream job.Controller).
type Controller struct {
	controllerutil.Base
	cfg Config

	jobInformer *client.Informer
	podInformer *client.Informer

	// held requeues a Job for its pod-failure back-off or active deadline as pending work, so
	// a run is not declared quiescent while a Job waits to retry.
	held         *client.HeldRequeue
	expectations *controllerutil.ControllerExpectations
	// finalizerExpectations are the pod UIDs, per Job key, whose tracking finalizer this
	// controller removed and whose removal the informer has not shown yet (upstream
	// uidTrackingExpectations): such pods are not counted again.
	finalizerExpectations map[string]map[string]bool
	backoff               *backoffStore

	stats Stats
}

// New builds the controller on the shared Job and Pod informers of f; the caller starts f and
// calls Start.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	jm := &Controller{
		cfg:                   cfg,
		jobInformer:           f.For(model.KindJob),
		podInformer:           f.For(model.KindPod),
		expectations:          controllerutil.NewControllerExpectations(k.Now, cfg.ExpectationsTimeout),
		finalizerExpectations: map[string]map[string]bool{},
		backoff:               newBackoffStore(),
	}
	// newControllerWithClock: per-item exponential 1s..1m, no token bucket, queue "job".
	jm.Base = controllerutil.NewBase(k, c, rec, Component, "Job", "job",
		workqueue.NewItemExponentialFailureRateLimiter[string](DefaultJobAPIBackOff, MaxJobAPIBackOff),
		func(ctx context.Context, key string) error {
			if podKey, ok := strings.CutPrefix(key, orphanPodKeyPrefix); ok {
				return jm.syncOrphanPod(ctx, podKey)
			}
			return jm.syncJob(ctx, key)
		})
	jm.held = client.NewHeldRequeue(k, jm.Queue.Add)
	jm.jobInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { jm.addJob(obj) },
		UpdateFunc: jm.updateJob,
		DeleteFunc: jm.deleteJob,
	})
	jm.podInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { jm.addPod(obj) },
		UpdateFunc: jm.updatePod,
		DeleteFunc: jm.deletePod,
	})
	return jm, nil
}

// Start waits for the Pod and Job caches and starts ConcurrentJobSyncs workers (upstream Run).
func (jm *Controller) Start() {
	jm.Loop.Start(jm.cfg.ConcurrentJobSyncs, jm.podInformer, jm.jobInformer)
}

// Stop kills the controller's processes.
func (jm *Controller) Stop() {
	jm.held.Stop()
	jm.Loop.Stop()
}

// Stats returns the controller's counters now.
func (jm *Controller) Stats() Stats {
	s := jm.stats
	s.SyncStats = jm.Loop.Stats()
	return s
}

// ---- enqueueing (upstream enqueueSyncJobImmediately, enqueueSyncJobBatched,
// enqueueSyncJobWithDelay) ----

func (jm *Controller) enqueueImmediately(j *model.Job) { jm.Queue.Add(model.Key(j)) }

func (jm *Controller) enqueueBatched(j *model.Job) {
	jm.enqueueWithDelay(model.Key(j), SyncJobBatchPeriod)
}

// enqueueWithDelay floors the delay at the batch period, as upstream does; the wait is pending
// work (see held).
func (jm *Controller) enqueueWithDelay(key string, d time.Duration) {
	jm.held.AddAfter(key, max(d, SyncJobBatchPeriod))
}

func (jm *Controller) addJob(obj model.Object) {
	j, ok := client.ObjectAs[*model.Job](obj)
	if !ok {
		return
	}
	jm.enqueueImmediately(j)
}

// updateJob is upstream updateJob: a spec change (generation) syncs at once, a status-only
// change after the batch period; an activeDeadlineSeconds (re)set on a started Job requeues
// for the deadline.
func (jm *Controller) updateJob(oldObj, curObj model.Object) {
	oldJ, ok1 := client.ObjectAs[*model.Job](oldObj)
	curJ, ok2 := client.ObjectAs[*model.Job](curObj)
	if !ok1 || !ok2 {
		return
	}
	if curJ.UID != oldJ.UID {
		jm.deleteJob(client.DeletedFinalStateUnknown{Key: model.Key(oldJ), Obj: oldJ})
	}
	if curJ.Generation == oldJ.Generation {
		jm.enqueueBatched(curJ)
	} else {
		jm.enqueueImmediately(curJ)
	}
	if model.IsJobFinished(curJ) {
		return
	}
	ads := curJ.Spec.ActiveDeadlineSeconds
	if ads != nil && curJ.Status.StartTime != nil && (oldJ.Spec.ActiveDeadlineSeconds == nil || *oldJ.Spec.ActiveDeadlineSeconds != *ads) {
		left := time.Duration(*ads)*time.Second - jm.Kernel.Now().Sub(*curJ.Status.StartTime)
		jm.held.AddAfter(model.Key(curJ), left)
	}
}

func (jm *Controller) deleteJob(obj any) {
	j, ok := client.ObjectAs[*model.Job](obj)
	if !ok {
		return
	}
	jm.Queue.Add(model.Key(j))
	// Upstream deleteJob: the Job's pods that still carry the tracking finalizer are orphans
	// now; their finalizers are removed by syncOrphanPod.
	for _, po := range jm.podInformer.ListNamespace(j.Namespace, nil) {
		if p := po.(*model.Pod); hasTrackingFinalizer(p) {
			if ref := model.ControllerOf(p); ref != nil && ref.UID == j.UID {
				jm.enqueueOrphanPod(p)
			}
		}
	}
}

// jobOf is the cached Job that controls pod (upstream resolveControllerRef of the pod's
// controller reference), or nil.
func (jm *Controller) jobOf(pod *model.Pod) *model.Job {
	j, _ := client.ResolveControllerRef[*model.Job](jm.jobInformer, model.KindJob, pod.Namespace, model.ControllerOf(pod))
	return j
}

// addPod observes a creation for the owning Job and syncs it after the batch period.
func (jm *Controller) addPod(obj model.Object) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		jm.deletePod(pod)
		return
	}
	j := jm.jobOf(pod)
	if j == nil {
		jm.enqueueOrphanPod(pod)
		return
	}
	jm.expectations.CreationObserved(model.Key(j))
	jm.enqueueBatched(j)
}

// orphanPodKeyPrefix marks the queue keys of orphan pods. Upstream has a second queue
// ("job_orphan_pod") and one orphan worker; here the orphan pods share the Job queue and its
// workers, with keys that cannot be Job keys.
const orphanPodKeyPrefix = "orphan-pod:"

// enqueueOrphanPod queues a pod that carries the tracking finalizer but whose Job is gone
// (upstream enqueueOrphanPod), so that the finalizer does not keep it forever.
func (jm *Controller) enqueueOrphanPod(pod *model.Pod) {
	if hasTrackingFinalizer(pod) {
		jm.Queue.Add(orphanPodKeyPrefix + model.Key(pod))
	}
}

// syncOrphanPod is upstream syncOrphanPod: a pod whose controller Job no longer exists (or is
// finished) loses the tracking finalizer.
func (jm *Controller) syncOrphanPod(ctx context.Context, key string) error {
	pod, ok := controllerutil.Lister[*model.Pod]{Informer: jm.podInformer}.GetByKey(key)
	if !ok {
		return nil
	}
	if !hasTrackingFinalizer(pod) {
		return nil
	}
	if j := jm.jobOf(pod); j != nil && !model.IsJobFinished(j) {
		return nil
	}
	if err := jm.removeTrackingFinalizer(ctx, pod); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	jm.Kernel.Emit(Component, "orphan-finalizer-removed", "Pod "+key, pod.ResourceVersion, "")
	return nil
}

// updatePod is upstream updatePod: a pod that gets a deletionTimestamp counts as deleted; a
// pod whose tracking finalizer is gone fulfils the finalizer expectation.
func (jm *Controller) updatePod(oldObj, curObj model.Object) {
	oldPod, ok1 := client.ObjectAs[*model.Pod](oldObj)
	curPod, ok2 := client.ObjectAs[*model.Pod](curObj)
	if !ok1 || !ok2 || curPod.ResourceVersion == oldPod.ResourceVersion {
		return
	}
	if curPod.DeletionTimestamp != nil && oldPod.DeletionTimestamp == nil {
		jm.observeDeletion(curPod)
	}
	j := jm.jobOf(curPod)
	if j == nil {
		jm.enqueueOrphanPod(curPod)
		return
	}
	if !hasTrackingFinalizer(curPod) {
		jm.finalizerRemovalObserved(model.Key(j), curPod.UID)
	}
	jm.enqueueBatched(j)
}

func (jm *Controller) deletePod(obj any) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok {
		return
	}
	jm.observeDeletion(pod)
	if j := jm.jobOf(pod); j != nil {
		jm.finalizerRemovalObserved(model.Key(j), pod.UID)
		jm.enqueueBatched(j)
	}
}

func (jm *Controller) observeDeletion(pod *model.Pod) {
	if j := jm.jobOf(pod); j != nil {
		jm.expectations.DeletionObserved(model.Key(j))
		jm.enqueueBatched(j)
	}
}

func (jm *Controller) expectFinalizerRemoval(key, uid string) {
	set := jm.finalizerExpectations[key]
	if set == nil {
		set = map[string]bool{}
		jm.finalizerExpectations[key] = set
	}
	set[uid] = true
}

func (jm *Controller) finalizerRemovalObserved(key, uid string) {
	if set := jm.finalizerExpectations[key]; set != nil {
		delete(set, uid)
		if len(set) == 0 {
			delete(jm.finalizerExpectations, key)
		}
	}
}

// expectedFinalizerRemovals returns the sorted UIDs whose finalizer removal is expected.
func (jm *Controller) expectedFinalizerRemovals(key string) []string {
	return slices.Sorted(maps.Keys(jm.finalizerExpectations[key]))
}

func hasTrackingFinalizer(p *model.Pod) bool {
	return slices.Contains(p.Finalizers, model.JobTrackingFinalizer)
}
