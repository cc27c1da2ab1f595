package podgc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/reconcile"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// Component is the name the controller uses in traces and process names.
const Component = "pod-garbage-collector"

// Upstream defaults, each named after where it comes from.
const (
	// DefaultTerminatedPodGCThreshold is --terminated-pod-gc-threshold
	// ([k8s:pkg/controller/podgc/config/v1alpha1/defaults.go]: 12500).
	DefaultTerminatedPodGCThreshold = 12500
	// DefaultGCCheckPeriod is how often the controller runs
	// ([k8s:pkg/controller/podgc/gc_controller.go] gcCheckPeriod = 20 * time.Second).
	DefaultGCCheckPeriod = 20 * time.Second
	// DefaultQuarantineTime is how long a node missing from the informer is given to show up
	// before a live GET decides it is gone (gc_controller.go quarantineTime = 40 * time.Second).
	DefaultQuarantineTime = 40 * time.Second
)

// Reason and message of the DisruptionTarget condition PodGC puts on a pod whose node is gone
// (gc_controller.go gcOrphaned).
const (
	DeletionByPodGCReason  = "DeletionByPodGC"
	DeletionByPodGCMessage = "PodGC: node no longer exists"
	// podEvictedReason marks a pod the kubelet evicted (pkg/kubelet/eviction PodIsEvicted).
	podEvictedReason = "Evicted"
)

const (
	minPeriod = time.Second
	maxPeriod = 24 * time.Hour
)

// Config is the controller's configuration: the upstream flag and constants it models.
type Config struct {
	// TerminatedPodGCThreshold is --terminated-pod-gc-threshold: the number of terminated
	// (Succeeded or Failed) pods kept; the oldest beyond it are deleted. Zero or less keeps
	// every terminated pod.
	TerminatedPodGCThreshold int
	// GCCheckPeriod is the pause between two runs (upstream gcCheckPeriod).
	GCCheckPeriod time.Duration
	// QuarantineTime is how long a node absent from the cache waits before it is looked up
	// (upstream quarantineTime).
	QuarantineTime time.Duration
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config {
	return Config{TerminatedPodGCThreshold: DefaultTerminatedPodGCThreshold, GCCheckPeriod: DefaultGCCheckPeriod, QuarantineTime: DefaultQuarantineTime}
}

// Validate returns an error naming the first field out of range; nil if usable.
func (c Config) Validate() error {
	return bounds.First("podgc",
		bounds.In("gc check period", c.GCCheckPeriod, minPeriod, maxPeriod),
		bounds.In("quarantine time", c.QuarantineTime, 0, maxPeriod),
	)
}

// Stats are the controller's counters since New.
type Stats struct {
	// Runs counts gc passes.
	Runs uint64
	// Deleted pods by reason (upstream metrics PodGCReason*): terminated beyond the
	// threshold, terminating on an out-of-service node, orphaned (node gone), unscheduled and
	// terminating.
	TerminatedDeleted, TerminatingDeleted, OrphanedDeleted, UnscheduledDeleted uint64
	// Errors counts failed deletions (NotFound is not an error).
	Errors uint64
}

// Controller is the pod garbage collector (upstream PodGCController).
type Controller struct {
	k      *sim.Kernel
	client *client.Client
	cfg    Config

	podInformer  *client.Informer
	nodeInformer *client.Informer
	// pods mirrors what a pass needs of the pod cache (see podTracker).
	pods *podTracker
	// nodeQueue holds node names in quarantine: each becomes ready QuarantineTime after it
	// was last found missing from the cache (upstream orphaned_pods_nodes delaying queue).
	nodeQueue *workqueue.Delaying[string]

	// loop runs the passes: one Request, requeued GCCheckPeriod after each pass ends.
	loop    *reconcile.Controller
	stopped bool
	stats   Stats
}

// New builds the controller on the pod and node informers of f and returns it stopped; the
// caller starts f and calls Start. It returns an error if cfg is invalid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gcc := &Controller{
		k:            k,
		client:       c,
		cfg:          cfg,
		podInformer:  f.For(model.KindPod),
		nodeInformer: f.For(model.KindNode),
		pods:         newPodTracker(),
		nodeQueue:    workqueue.NewDelaying[string](k, "orphaned_pods_nodes"),
	}
	gcc.podInformer.AddEventHandler(gcc.pods)
	return gcc, nil
}

// passRequest is the one Request of the pass loop.
var passRequest = reconcile.Request{Name: "gc"}

// Start starts the pass loop on the shared reconcile worker loop (sim/client/reconcile): its
// single worker waits for the caches to sync, then runs a gc pass at once and again
// GCCheckPeriod after each pass ends (RequeueAfter, as upstream wait.UntilWithContext, which
// is sliding). The delay between passes is an idle timer: it does not hold off quiescence.
func (gcc *Controller) Start() {
	if gcc.loop != nil || gcc.stopped {
		return
	}
	gcc.loop = reconcile.New(Component, 1, reconcile.Func(gcc.pass), nil)
	gcc.loop.Quiet = true
	gcc.loop.Start(gcc.k)
	gcc.loop.Enqueue(passRequest)
}

// pass is one reconcile of the loop: a gc pass once the caches have synced.
func (gcc *Controller) pass(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	gcc.podInformer.WaitForSync(ctx)
	gcc.nodeInformer.WaitForSync(ctx)
	gcc.gc(ctx)
	return reconcile.Result{RequeueAfter: gcc.cfg.GCCheckPeriod}, nil
}

// Stop stops the pass loop (its worker is killed) and shuts the quarantine queue down.
func (gcc *Controller) Stop() {
	if gcc.stopped {
		return
	}
	gcc.stopped = true
	gcc.nodeQueue.ShutDown()
	if gcc.loop != nil {
		gcc.loop.Stop()
	}
}

// Stats returns the counters now.
func (gcc *Controller) Stats() Stats { return gcc.stats }

// gc is one pass (upstream gc): terminated pods beyond the threshold, terminating pods on
// out-of-service nodes, pods on nodes that are gone, unscheduled terminating pods — in that
// order, each from the same cached listing.
func (gcc *Controller) gc(ctx context.Context) {
	gcc.stats.Runs++
	nodes := gcc.nodeInformer.List(nil)
	existing := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		existing[n.Meta().Name] = true
	}
	pods := gcc.podsForPass(existing)
	if gcc.cfg.TerminatedPodGCThreshold > 0 {
		gcc.gcTerminated(ctx, pods)
	}
	gcc.gcTerminating(ctx, pods)
	gcc.gcOrphaned(ctx, pods, existing)
	gcc.gcUnscheduledTerminating(ctx, pods)
}

// podsForPass returns the listing a pass works from, sorted by key. Each step acts only on pods
// its predicate picks from the listing, and when no pod is bound to a node missing from
// existing, every pod some step picks is a candidate of the tracker (terminated or being
// deleted): the candidates then give every step the same pods, in the same order, as the whole
// cache would. Otherwise (or should the tracker ever disagree with the cache on the number of
// pods) it is the whole cache.
func (gcc *Controller) podsForPass(existing map[string]bool) []*model.Pod {
	if gcc.pods.total == gcc.podInformer.Len() && !gcc.pods.boundToMissingNode(existing) {
		return gcc.pods.candidatePods()
	}
	return controllerutil.Lister[*model.Pod]{Informer: gcc.podInformer}.List()
}

// isPodTerminated: any phase other than Pending, Running and Unknown (upstream
// isPodTerminated, so an empty phase counts as terminated too).
func isPodTerminated(p *model.Pod) bool {
	ph := p.Status.Phase
	return ph != model.PodPending && ph != model.PodRunning && ph != model.PodUnknown
}

func isPodEvicted(p *model.Pod) bool {
	return p.Status.Phase == model.PodFailed && p.Status.Reason == podEvictedReason
}

// byEvictionAndCreationTimestamp puts evicted pods first, then the oldest, then by name
// (upstream byEvictionAndCreationTimestamp).
type byEvictionAndCreationTimestamp []*model.Pod

func (o byEvictionAndCreationTimestamp) Len() int      { return len(o) }
func (o byEvictionAndCreationTimestamp) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o byEvictionAndCreationTimestamp) Less(i, j int) bool {
	if ei, ej := isPodEvicted(o[i]), isPodEvicted(o[j]); ei != ej {
		return ei
	}
	if o[i].CreationTimestamp == o[j].CreationTimestamp {
		return o[i].Name < o[j].Name
	}
	return o[i].CreationTimestamp < o[j].CreationTimestamp
}

// gcTerminated deletes the terminated pods beyond the threshold, evicted and oldest first,
// concurrently (upstream gcTerminated).
func (gcc *Controller) gcTerminated(ctx context.Context, pods []*model.Pod) {
	var terminated []*model.Pod
	for _, p := range pods {
		if isPodTerminated(p) {
			terminated = append(terminated, p)
		}
	}
	deleteCount := len(terminated) - gcc.cfg.TerminatedPodGCThreshold
	if deleteCount <= 0 {
		return
	}
	gcc.k.Emit(Component, "gc-terminated", "pods", 0, fmt.Sprintf("terminated=%d threshold=%d deleting=%d", len(terminated), gcc.cfg.TerminatedPodGCThreshold, deleteCount))
	sort.Sort(byEvictionAndCreationTimestamp(terminated))
	errs := sim.RunConcurrently(ctx, Component+"/delete", 0, deleteCount, func(ctx context.Context, i int) error {
		return gcc.markFailedAndDeletePod(ctx, terminated[i], nil, "terminated")
	})
	gcc.stats.TerminatedDeleted += uint64(deleteCount - len(errs))
}

// gcTerminating deletes terminating pods on nodes that are not Ready and carry the
// out-of-service taint, concurrently (upstream gcTerminating, NodeOutOfServiceVolumeDetach).
func (gcc *Controller) gcTerminating(ctx context.Context, pods []*model.Pod) {
	var terminating []*model.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			continue
		}
		obj, ok := gcc.nodeInformer.Get("", p.Spec.NodeName)
		if !ok {
			continue
		}
		node, ok := client.ObjectAs[*model.Node](obj)
		if ok && !isNodeReady(node) && hasTaintKey(node, model.TaintNodeOutOfService) {
			terminating = append(terminating, p)
		}
	}
	if len(terminating) == 0 {
		return
	}
	sort.Sort(byEvictionAndCreationTimestamp(terminating))
	errs := sim.RunConcurrently(ctx, Component+"/delete", 0, len(terminating), func(ctx context.Context, i int) error {
		return gcc.markFailedAndDeletePod(ctx, terminating[i], nil, "terminating-out-of-service")
	})
	gcc.stats.TerminatingDeleted += uint64(len(terminating) - len(errs))
}

func isNodeReady(n *model.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == model.NodeReady {
			return c.Status == model.ConditionTrue
		}
	}
	return false
}

func hasTaintKey(n *model.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// gcOrphaned deletes pods bound to nodes that are gone (upstream gcOrphaned); existing holds
// the names of the cached nodes. A node missing from the cache is put in quarantine for
// QuarantineTime; once out of quarantine and still missing, a live GET decides: NotFound means
// gone, and its pods are marked Failed with a DisruptionTarget condition and force-deleted. A
// failed GET leaves the node for a later pass.
func (gcc *Controller) gcOrphaned(ctx context.Context, pods []*model.Pod, existing map[string]bool) {
	for _, p := range pods {
		if p.Spec.NodeName != "" && !existing[p.Spec.NodeName] {
			gcc.nodeQueue.AddAfter(p.Spec.NodeName, gcc.cfg.QuarantineTime)
		}
	}
	deleted := make(map[string]bool)
	for gcc.nodeQueue.Len() > 0 {
		name, quit := gcc.nodeQueue.Get(ctx)
		if quit {
			return
		}
		if !existing[name] {
			_, err := gcc.client.Get(ctx, model.KindNode, "", name)
			switch {
			case apierrors.IsNotFound(err):
				deleted[name] = true
				gcc.k.Emit(Component, "node-gone", "Node "+name, 0, "")
			case err != nil:
				gcc.k.Emit(Component, "node-check-error", "Node "+name, 0, err.Error())
			}
		}
		gcc.nodeQueue.Done(name)
	}
	for _, p := range pods {
		if !deleted[p.Spec.NodeName] {
			continue
		}
		cond := &model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionTrue, Reason: DeletionByPodGCReason, Message: DeletionByPodGCMessage}
		if err := gcc.markFailedAndDeletePod(ctx, p, cond, "orphaned"); err == nil {
			gcc.stats.OrphanedDeleted++
		}
	}
}

// gcUnscheduledTerminating deletes terminating pods that were never scheduled: no kubelet
// will ever finish them (upstream gcUnscheduledTerminating).
func (gcc *Controller) gcUnscheduledTerminating(ctx context.Context, pods []*model.Pod) {
	for _, p := range pods {
		if p.DeletionTimestamp == nil || p.Spec.NodeName != "" {
			continue
		}
		if err := gcc.markFailedAndDeletePod(ctx, p, nil, "unscheduled-terminating"); err == nil {
			gcc.stats.UnscheduledDeleted++
		}
	}
}

// statusPatch is the JSON merge patch that moves a pod to Failed. It carries the pod's UID so
// that it cannot apply to a pod recreated under the same name (upstream PatchPodStatus sends
// the UID as a precondition); conditions are a list, which a merge patch replaces whole, so it
// carries them all.
type statusPatch struct {
	Metadata struct {
		UID string `json:"uid"`
	} `json:"metadata"`
	Status struct {
		Phase      string               `json:"phase"`
		Conditions []model.PodCondition `json:"conditions,omitempty"`
	} `json:"status"`
}

// markFailedAndDeletePod moves a pod that has not finished to Failed (adding cond if given),
// so that an orphaned pod no kubelet will update does not stay Running forever, then deletes
// it with grace period 0 (upstream markFailedAndDeletePodWithCondition). It returns nil for a
// pod that is already gone, else the first error.
func (gcc *Controller) markFailedAndDeletePod(ctx context.Context, p *model.Pod, cond *model.PodCondition, reason string) error {
	err := gcc.markFailedAndDelete(ctx, p, cond)
	if err != nil && !apierrors.IsNotFound(err) {
		gcc.stats.Errors++
		gcc.k.Emit(Component, "force-delete-error", "Pod "+model.Key(p), 0, reason+": "+err.Error())
		return err
	}
	gcc.k.Emit(Component, "force-delete", "Pod "+model.Key(p), 0, "reason="+reason)
	return nil
}

func (gcc *Controller) markFailedAndDelete(ctx context.Context, p *model.Pod, cond *model.PodCondition) error {
	if p.Status.Phase != model.PodSucceeded && p.Status.Phase != model.PodFailed {
		var patch statusPatch
		patch.Metadata.UID = p.UID
		patch.Status.Phase = model.PodFailed
		patch.Status.Conditions = slices.Clone(p.Status.Conditions)
		if cond != nil {
			patch.Status.Conditions = updatePodCondition(patch.Status.Conditions, *cond, gcc.k.Now())
		}
		data, err := json.Marshal(patch)
		if err != nil {
			return err
		}
		if _, err := gcc.client.PatchStatus(ctx, model.KindPod, p.Namespace, p.Name, data); err != nil {
			return err
		}
	}
	return gcc.client.Delete(ctx, model.KindPod, p.Namespace, p.Name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
}

// updatePodCondition sets cond in conds (upstream apipod.UpdatePodCondition): a new condition
// transitions now; an existing one keeps its transition time unless its status changes.
func updatePodCondition(conds []model.PodCondition, cond model.PodCondition, now vtime.Time) []model.PodCondition {
	cond.LastTransitionTime = now
	for i := range conds {
		if conds[i].Type != cond.Type {
			continue
		}
		if conds[i].Status == cond.Status {
			cond.LastTransitionTime = conds[i].LastTransitionTime
		}
		conds[i] = cond
		return conds
	}
	return append(conds, cond)
}
