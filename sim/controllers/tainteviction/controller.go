package tainteviction

import (
	"slices"
	"strconv"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// Upstream constants ([k8s:pkg/controller/tainteviction/taint_eviction.go@003e8629]).
const (
	// UpdateWorkerSize is the number of workers handling node and pod updates; items are
	// sharded over them by a hash of the node name.
	UpdateWorkerSize = 8
	// deleteRetries is how many times a pod deletion is tried (upstream "retries").
	deleteRetries = 5
	// deleteRetryInterval is the pause between two deletion attempts.
	deleteRetryInterval = 10 * time.Millisecond
)

// Event reasons and messages ([k8s:pkg/controller/tainteviction/taint_eviction.go@003e8629]
// emitPodDeletionEvent / emitCancelPodDeletionEvent and addConditionAndDeletePod).
const (
	ReasonTaintManagerEviction = "TaintManagerEviction"
	messageMarkingForDeletion  = "Marking for deletion Pod %s"
	messageCancellingDeletion  = "Cancelling deletion of Pod %s"
	// ReasonDeletionByTaintManager is the reason of the DisruptionTarget pod condition.
	ReasonDeletionByTaintManager  = "DeletionByTaintManager"
	messageDeletionByTaintManager = "Taint manager: deleting due to NoExecute taint"
	// ComponentName is the controller name and the source component of its events
	// (upstream taintEvictionController = "taint-eviction-controller").
	ComponentName = "taint-eviction-controller"
	// traceComponent labels this package's trace lines.
	traceComponent = "tainteviction"
)

// Config holds the controller's settings. The taint eviction controller has no
// kube-controller-manager flags; its only knob is upstream's UpdateWorkerSize constant.
type Config struct {
	// Workers is the number of update workers (upstream UpdateWorkerSize, 8).
	Workers int
}

// DefaultConfig returns upstream's settings.
func DefaultConfig() Config { return Config{Workers: UpdateWorkerSize} }

// maxWorkers bounds Config.Workers.
const maxWorkers = 1024

// Stats are cumulative counters of what the controller did.
type Stats struct {
	// Scheduled counts evictions put on a timer; Immediate those started at once (a taint not
	// tolerated, or tolerationSeconds <= 0); Cancelled scheduled evictions cancelled.
	Scheduled, Immediate, Cancelled uint64
	// Deleted counts pods deleted; DeleteFailures deletions that failed after every retry.
	Deleted, DeleteFailures uint64
	// Pending is the number of evictions waiting for their timer now.
	Pending int
}

type podUpdateItem struct {
	namespace, name, nodeName string
}

// shard is one update worker's input (upstream nodeUpdateChannels[i] / podUpdateChannels[i]).
// Each list is deduplicated as upstream's work queues are.
type shard struct {
	proc     *sim.Proc
	nodes    workqueue.UniqueFIFO[string]
	pods     workqueue.UniqueFIFO[podUpdateItem]
	stopping bool
}

// Controller is the taint eviction controller: it deletes pods from nodes with NoExecute taints
// the pods do not tolerate, after the shortest tolerationSeconds of the tolerations in use.
type Controller struct {
	k   *sim.Kernel
	c   *client.Client
	rec record.Recorder
	cfg Config

	pods  controllerutil.Lister[*model.Pod]
	nodes controllerutil.Lister[*model.Node]

	// taintedNodes maps a node name to its NoExecute taints, for nodes that have some.
	taintedNodes map[string][]model.Taint
	queue        *timedWorkerQueue
	shards       []*shard
	deleters     map[*sim.Proc]struct{}
	running      bool

	stats Stats
}

// New returns a stopped controller that reads pods and nodes through informers from f and
// writes through c. An invalid Config (Workers outside [1, 1024]) is replaced by its bound.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) *Controller {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Workers > maxWorkers {
		cfg.Workers = maxWorkers
	}
	tc := &Controller{
		k:            k,
		c:            c,
		rec:          rec,
		cfg:          cfg,
		taintedNodes: make(map[string][]model.Taint),
		deleters:     make(map[*sim.Proc]struct{}),
	}
	tc.queue = newTimedWorkerQueue(k, tc.runDeletion)
	tc.pods, tc.nodes = newCaches(f, tc)
	return tc
}

// Start spawns the update workers. Informers are started by whoever owns the factory; the
// workers wait for the caches to sync before handling anything, as upstream Run does.
func (tc *Controller) Start() {
	if tc.running {
		return
	}
	tc.running = true
	tc.shards = make([]*shard, tc.cfg.Workers)
	for i := range tc.shards {
		s := &shard{}
		tc.shards[i] = s
		s.proc = tc.k.Spawn(traceComponent+"-worker-"+strconv.Itoa(i), func(p *sim.Proc) { tc.worker(p, s) })
	}
	// A fresh informer would deliver every node and pod as an Add; replay the caches so that a
	// restart with long-lived informers sees them too (duplicates are harmless: an existing
	// schedule is kept).
	for _, n := range tc.nodes.List() {
		tc.nodeUpdated(nil, n)
	}
	for _, p := range tc.pods.List() {
		tc.podUpdated(nil, p)
	}
}

// Stop kills the workers and every running deletion and forgets every scheduled eviction, as a
// controller-manager restart does. A later Start begins from the informer caches again.
func (tc *Controller) Stop() {
	if !tc.running {
		return
	}
	tc.running = false
	for _, s := range tc.shards {
		s.stopping = true
		s.proc.Kill()
	}
	tc.shards = nil
	tc.queue.cancelAll()
	controllerutil.KillInNameOrder(tc.deleters)
	clear(tc.deleters)
	clear(tc.taintedNodes)
}

// Stats returns the controller's counters now.
func (tc *Controller) Stats() Stats {
	s := tc.stats
	s.Pending = tc.queue.pending()
	return s
}

// ScheduledEviction reports when the eviction of pod namespace/name is due, if one is
// scheduled and has not started yet.
func (tc *Controller) ScheduledEviction(namespace, name string) (vtime.Time, bool) {
	w := tc.queue.get(model.KeyOf(namespace, name))
	if w == nil || w.started {
		return 0, false
	}
	return w.fireAt, true
}

// hash is upstream's worker sharding: FNV-32a of the node name modulo the worker count
// (hash/fnv's New32a, computed in place so that sharding an update allocates nothing).
func hash(val string, max int) int {
	const (
		offset32 = 2166136261
		prime32  = 16777619
	)
	h := uint32(offset32)
	for i := 0; i < len(val); i++ {
		h ^= uint32(val[i])
		h *= prime32
	}
	return int(h % uint32(max))
}

// nodeUpdated is upstream NodeUpdated: a node whose NoExecute taints changed (or that was added
// or deleted) is queued for its worker.
func (tc *Controller) nodeUpdated(oldNode, newNode *model.Node) {
	var name string
	var oldTaints, newTaints []model.Taint
	if oldNode != nil {
		name = oldNode.Name
		oldTaints = noExecuteTaints(oldNode.Spec.Taints)
	}
	if newNode != nil {
		name = newNode.Name
		newTaints = noExecuteTaints(newNode.Spec.Taints)
	}
	if oldNode != nil && newNode != nil && model.TaintsEqual(oldTaints, newTaints) {
		return
	}
	if !tc.running {
		return
	}
	s := tc.shards[hash(name, len(tc.shards))]
	if s.nodes.Add(name) {
		s.proc.Unpark()
	}
}

// podUpdated is upstream PodUpdated: a pod whose tolerations or node changed (or that was added
// or deleted) is queued for the worker of its node.
func (tc *Controller) podUpdated(oldPod, newPod *model.Pod) {
	var item podUpdateItem
	var oldTolerations, newTolerations []model.Toleration
	if oldPod != nil {
		item = podUpdateItem{namespace: oldPod.Namespace, name: oldPod.Name, nodeName: oldPod.Spec.NodeName}
		oldTolerations = oldPod.Spec.Tolerations
	}
	if newPod != nil {
		item = podUpdateItem{namespace: newPod.Namespace, name: newPod.Name, nodeName: newPod.Spec.NodeName}
		newTolerations = newPod.Spec.Tolerations
	}
	if oldPod != nil && newPod != nil && model.TolerationsEqual(oldTolerations, newTolerations) && oldPod.Spec.NodeName == newPod.Spec.NodeName {
		return
	}
	if !tc.running {
		return
	}
	s := tc.shards[hash(item.nodeName, len(tc.shards))]
	if s.pods.Add(item) {
		s.proc.Unpark()
	}
}

// worker is upstream worker: node updates always go before pod updates, so that a pod update
// sees the taints of every node update that arrived with it. Handling an update makes no API
// call (it reads caches and arms timers), so it takes no virtual time.
func (tc *Controller) worker(p *sim.Proc, s *shard) {
	tc.waitForCacheSync(p)
	for !s.stopping {
		if name, ok := s.nodes.Pop(); ok {
			tc.handleNodeUpdate(name)
		} else if item, ok := s.pods.Pop(); ok {
			tc.handlePodUpdate(item)
		} else {
			p.Park()
		}
	}
}

// handlePodUpdate is upstream handlePodUpdate.
func (tc *Controller) handlePodUpdate(item podUpdateItem) {
	pod, key, ok := tc.pods.GetKeyed(item.namespace, item.name)
	if !ok {
		tc.cancelWorkWithEvent(model.KeyOf(item.namespace, item.name), item.namespace, item.name, nil)
		return
	}
	// Items are sharded by node name; a pod that has moved on is some other item's business.
	if pod.Spec.NodeName != item.nodeName || pod.Spec.NodeName == "" {
		return
	}
	taints, ok := tc.taintedNodes[pod.Spec.NodeName]
	if !ok {
		return
	}
	tc.processPodOnNode(key, pod, taints, tc.k.Now())
}

// handleNodeUpdate is upstream handleNodeUpdate.
func (tc *Controller) handleNodeUpdate(nodeName string) {
	node, ok := tc.nodes.Get("", nodeName)
	if !ok {
		delete(tc.taintedNodes, nodeName)
		return
	}
	taints := noExecuteTaints(node.Spec.Taints)
	if len(taints) == 0 {
		delete(tc.taintedNodes, nodeName)
	} else {
		tc.taintedNodes[nodeName] = taints
	}
	pods, keys := tc.pods.ByIndexKeyed(client.IndexNodeName, nodeName)
	if len(pods) == 0 {
		return
	}
	if len(taints) == 0 {
		for i, pod := range pods {
			tc.cancelWorkWithEvent(keys[i], pod.Namespace, pod.Name, pod)
		}
		return
	}
	now := tc.k.Now()
	for i, pod := range pods {
		tc.processPodOnNode(keys[i], pod, taints, now)
	}
}

// processPodOnNode is upstream processPodOnNode: delete now when a taint is not tolerated,
// never when every used toleration is unbounded, else after the shortest tolerationSeconds —
// counted from when this controller first saw the taints, so a schedule made earlier is kept.
// key is model.Key(pod).
func (tc *Controller) processPodOnNode(key string, pod *model.Pod, taints []model.Taint, now vtime.Time) {
	if len(taints) == 0 {
		tc.cancelWorkWithEvent(key, pod.Namespace, pod.Name, pod)
		return
	}
	allTolerated, used := GetMatchingTolerations(taints, pod.Spec.Tolerations)
	if !allTolerated {
		tc.cancelWorkWithEvent(key, pod.Namespace, pod.Name, pod)
		if tc.queue.get(key) == nil {
			tc.stats.Immediate++
			tc.k.Emit(traceComponent, "evict-now", "Pod "+key, pod.ResourceVersion, "node="+pod.Spec.NodeName+" untolerated-taint")
		}
		tc.queue.addWork(key, pod.Namespace, pod.Name, now, now)
		return
	}
	minToleration := MinTolerationTime(used)
	if minToleration < 0 {
		tc.cancelWorkWithEvent(key, pod.Namespace, pod.Name, pod)
		return
	}
	startTime := now
	triggerTime := startTime.Add(minToleration)
	if existing := tc.queue.get(key); existing != nil {
		startTime = existing.createdAt
		// Upstream keeps the existing work when it started earlier (createdAt+min before
		// now+min) and otherwise cancels and re-adds it. On a wall clock the two handlings
		// of one taint are never at the same nanosecond, so it always keeps; on virtual time
		// a node update and a pod update are often handled at one instant, and treating
		// that tie as "earlier" keeps the wall-clock outcome instead of a spurious
		// cancel-and-reschedule with its event.
		if !triggerTime.Before(startTime.Add(minToleration)) {
			return
		}
		tc.cancelWorkWithEvent(key, pod.Namespace, pod.Name, pod)
	}
	if tc.queue.get(key) == nil {
		if triggerTime <= startTime {
			tc.stats.Immediate++
			tc.k.Emit(traceComponent, "evict-now", "Pod "+key, pod.ResourceVersion, "node="+pod.Spec.NodeName+" tolerationSeconds<=0")
		} else {
			tc.stats.Scheduled++
			tc.k.Emit(traceComponent, "schedule-eviction", "Pod "+key, pod.ResourceVersion,
				"node="+pod.Spec.NodeName+" after="+minToleration.String()+" at="+triggerTime.String())
		}
	}
	tc.queue.addWork(key, pod.Namespace, pod.Name, startTime, triggerTime)
}

// cancelWorkWithEvent is upstream cancelWorkWithEvent: a scheduled eviction that is cancelled
// leaves a TaintManagerEviction "Cancelling deletion" event.
func (tc *Controller) cancelWorkWithEvent(key, namespace, name string, pod *model.Pod) {
	if !tc.queue.cancelWork(key) {
		return
	}
	tc.stats.Cancelled++
	tc.k.Emit(traceComponent, "cancel-eviction", "Pod "+key, 0, "")
	tc.event(pod, namespace, name, messageCancellingDeletion, key)
}

// event records a TaintManagerEviction event about the pod. Upstream refers to the pod by
// namespace and name only; the cached pod supplies the rest when there is one.
func (tc *Controller) event(pod *model.Pod, namespace, name, messageFmt, key string) {
	if tc.rec == nil {
		return
	}
	var ref model.Object
	if pod != nil {
		ref = pod
	} else {
		ref = &model.Pod{ObjectMeta: model.ObjectMeta{Namespace: namespace, Name: name}}
	}
	tc.rec.Eventf(ref, model.EventTypeNormal, ReasonTaintManagerEviction, messageFmt, key)
}

// runDeletion starts upstream deletePodHandler for a worker whose time has come, in its own
// process (upstream runs each firing in its own goroutine).
func (tc *Controller) runDeletion(w *timedWorker) {
	key := model.KeyOf(w.namespace, w.name)
	var proc *sim.Proc
	proc = tc.k.Spawn(traceComponent+"-delete "+key, func(p *sim.Proc) {
		defer func() {
			delete(tc.deleters, proc)
			tc.queue.finish(key, w)
		}()
		tc.deletePodHandler(p, w, key)
	})
	tc.deleters[proc] = struct{}{}
}

// deletePodHandler is upstream deletePodHandler: the event first, then up to deleteRetries
// attempts, deleteRetryInterval apart, to mark the pod DisruptionTarget and delete it. key is
// the pod's cache key.
func (tc *Controller) deletePodHandler(p *sim.Proc, w *timedWorker, key string) {
	cached, _ := tc.pods.GetByKey(key)
	tc.event(cached, w.namespace, w.name, messageMarkingForDeletion, key)
	var err error
	for i := 0; i < deleteRetries; i++ {
		var rv uint64
		rv, err = tc.addConditionAndDeletePod(p, w.namespace, w.name)
		if err == nil {
			tc.stats.Deleted++
			tc.k.Emit(traceComponent, "delete", "Pod "+key, rv, "scheduled-at="+w.fireAt.String())
			return
		}
		p.Sleep(deleteRetryInterval)
	}
	tc.stats.DeleteFailures++
	tc.k.Emit(traceComponent, "delete-failed", "Pod "+key, 0, err.Error())
}

// addConditionAndDeletePod is upstream addConditionAndDeletePod: read the pod from the API
// server, add DisruptionTarget=True (reason DeletionByTaintManager) to its status if it is not
// there already, then delete it with default options (the grace period comes from the pod's
// terminationGracePeriodSeconds). It returns the resourceVersion of the deleted object.
func (tc *Controller) addConditionAndDeletePod(p *sim.Proc, namespace, name string) (uint64, error) {
	pod, err := tc.getPod(p, namespace, name)
	if err != nil {
		return 0, err
	}
	// pod is the stored pod, read-only: the write hands over a shallow copy with a condition
	// list of its own; the rest stays shared with the stored pod. The deletion that follows
	// reads pod's name and resourceVersion as read.
	updated := *pod
	updated.Status.Conditions = slices.Clone(pod.Status.Conditions)
	if model.UpdatePodCondition(&updated.Status, model.PodCondition{
		Type:    model.PodDisruptionTarget,
		Status:  model.ConditionTrue,
		Reason:  ReasonDeletionByTaintManager,
		Message: messageDeletionByTaintManager,
	}, tc.k.Now()) {
		if err := tc.patchPodStatus(p, pod, &updated); err != nil {
			return 0, err
		}
	}
	return tc.deletePod(p, pod)
}
