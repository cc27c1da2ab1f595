package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

// podsResource and podsBindingResource name pods and their binding subresource in errors made
// here, as the API server names them.
var (
	podsResource        = schema.GroupResource{Resource: "pods"}
	podsBindingResource = schema.GroupResource{Resource: "pods/binding"}
)

// nonTerminalPods is kube-scheduler's pod informer selector (scheduler.go newPodInformer):
// pods that reach Succeeded or Failed leave its view as deletions.
var nonTerminalPods = fields.ParseSelectorOrDie("status.phase!=" + model.PodSucceeded + ",status.phase!=" + model.PodFailed)

// component is the name the scheduler uses in trace lines and for its random stream.
const component = "kube-scheduler"

// Event reasons and the Scheduled message (schedule_one.go).
const (
	ReasonScheduled        = "Scheduled"
	ReasonFailedScheduling = "FailedScheduling"
	scheduledMessageFormat = "Successfully assigned %v/%v to %v"
	// podReasonSchedulerError is v1.PodReasonSchedulerError: the PodScheduled reason after an
	// error that is not a plain "does not fit".
	podReasonSchedulerError = "SchedulerError"
	// bindErrorFormat wraps a binding failure as RunBindPlugins and bindingCycle do.
	bindErrorFormat = "binding rejected: running Bind plugin %q: %s"
)

// Stats are the scheduler's counters (the upstream metrics schedule_attempts_total and
// pending_pods, reduced).
type Stats struct {
	// Attempts counts scheduling cycles: pods popped and tried.
	Attempts uint64
	// Scheduled counts successful bindings; Unschedulable attempts that found no node (or no
	// node at all); Errors attempts that failed otherwise (assume or binding failures).
	Scheduled, Unschedulable, Errors uint64
	// BindConflicts counts binding updates answered with 409 Conflict and retried.
	BindConflicts uint64
	// ConditionWrites counts PodScheduled=False status writes (each only when it changed).
	ConditionWrites uint64
	// Preemptions counts preemptions decided (a node nominated and its victims preempted);
	// PreemptionVictims the victims deleted.
	Preemptions, PreemptionVictims uint64
}

// QueueLengths are the sizes of the scheduling queue's parts (the pending_pods metric by
// queue): activeQ, backoffQ (both of its heaps) and unschedulablePods. Pods in flight (in a
// cycle or a binding) are in none of them.
type QueueLengths struct {
	Active, Backoff, Unschedulable int
}

// Scheduler is kube-scheduler with the default profile: informers feed the scheduling queue
// (unassigned pods) and the cache (nodes and assigned pods); one process runs the scheduling
// cycle; each placement is bound by its own process.
type Scheduler struct {
	k   *sim.Kernel
	c   *client.Client
	rec record.Recorder
	cfg Config

	podInformer, nodeInformer *client.Informer
	// pdbInformer gives DefaultPreemption the PodDisruptionBudgets (preemption.go). It is
	// made with the others, so the factory starts and syncs it at startup, as
	// kube-scheduler's InformerFactory.Start and WaitForCacheSync do
	// (cmd/kube-scheduler/app/server.go Run).
	pdbInformer *client.Informer
	// listers are the other informers the plugins read (Services, ReplicaSets, StatefulSets,
	// Namespaces), as kube-scheduler's shared informer factory has them.
	listers *listers
	// spreadMemos are PodTopologySpread's PreScore sums across cycles (spreadmemo.go).
	spreadMemos *spreadMemos
	// buffers are the scheduling cycles' slices, reused (cycleBuffers).
	buffers cycleBuffers

	// rnd breaks score ties (selectHost); cycleRnd samples CycleBase. Separate streams, so
	// that changing the cycle-time distribution does not change placements.
	rnd, cycleRnd *rand.Rand
	// preemptRnd draws the dry run's random offset (GetOffsetAndNumCandidates).
	preemptRnd *rand.Rand

	queue *priorityQueue
	cache *schedulerCache

	nextStartNodeIndex int
	running            bool
	handlersAdded      bool
	proc               *sim.Proc
	binders            map[string]*sim.Proc
	backoffTicker      *sim.Timer
	leftoverTicker     *sim.Timer

	// lastFailure holds the latest FailedScheduling message per pod key, until the pod is seen
	// bound or deleted.
	lastFailure map[string]string
	// podAttempts counts scheduling attempts per pod key, with the same lifetime.
	podAttempts map[string]int
	stats       Stats
}

// New returns a stopped scheduler that reads pods and nodes through f's informers, writes
// through c and records events with rec (whose source should be the scheduler name,
// "default-scheduler"). It returns an error, and no scheduler, if cfg is not valid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kube-scheduler config: %w", err)
	}
	return &Scheduler{
		k: k, c: c, rec: rec, cfg: cfg,
		podInformer:  f.ForOptions(model.KindPod, model.ListOptions{FieldSelector: nonTerminalPods}),
		nodeInformer: f.For(model.KindNode),
		listers:      newListers(f),
		pdbInformer:  f.For(model.KindPodDisruptionBudget),
		spreadMemos:  newSpreadMemos(),
		rnd:          k.Rand(component),
		cycleRnd:     k.Rand(component + "/cycle"),
		preemptRnd:   k.Rand(component + "/preemption"),
		binders:      map[string]*sim.Proc{},
		lastFailure:  map[string]string{},
		podAttempts:  map[string]int{},
	}, nil
}

// Config returns the scheduler's configuration.
func (s *Scheduler) Config() Config { return s.cfg }

// Start begins scheduling with an empty queue and cache, filled from the informers (what they
// hold now, then their events); the scheduling process waits for both informers to sync
// before its first pop. Starting a running scheduler does nothing.
func (s *Scheduler) Start() {
	if s.running {
		return
	}
	s.running = true
	s.queue = newPriorityQueue(s.k, s.cfg)
	s.queue.onMove = s.traceMove
	s.cache = newSchedulerCache()
	s.nextStartNodeIndex = 0
	if !s.handlersAdded {
		s.handlersAdded = true
		// AddEventHandler replays the informers' current contents as adds.
		s.nodeInformer.AddEventHandler(client.EventHandlerFuncs{AddFunc: s.onNodeAdd, UpdateFunc: s.onNodeUpdate, DeleteFunc: s.onNodeDelete})
		s.podInformer.AddEventHandler(client.KeyedEventHandlerFuncs{AddFunc: s.onPodAdd, UpdateFunc: s.onPodUpdate, DeleteFunc: s.onPodDelete,
			ListSizeFunc: func(n int) { s.cache.reservePods(n) }})
	} else {
		for _, obj := range s.nodeInformer.List(nil) {
			s.onNodeAdd(obj, true)
		}
		for _, obj := range s.podInformer.List(nil) {
			s.onPodAdd(model.Key(obj), obj, true)
		}
	}
	s.proc = s.k.Spawn(component, s.run)
	s.startTickers()
}

// startTickers runs flushBackoffQCompleted every BackoffFlushPeriod (aligned to whole
// ordering windows with PopFromBackoffQ) and flushUnschedulablePodsLeftover every
// UnschedulableFlushPeriod (upstream PriorityQueue.Run). Neither holds off quiescence.
func (s *Scheduler) startTickers() {
	q := s.queue
	s.leftoverTicker = s.k.Every(s.cfg.UnschedulableFlushPeriod, q.flushUnschedulablePodsLeftover)
	if !s.cfg.PopFromBackoffQ {
		s.backoffTicker = s.k.Every(s.cfg.BackoffFlushPeriod, q.flushBackoffQCompleted)
		return
	}
	// waitUntilAlignedWithOrderingWindow: first at the next window boundary, then every period.
	var t *sim.Timer
	t = s.k.NewIdleTimer(func() {
		t.Reset(s.cfg.BackoffFlushPeriod)
		q.flushBackoffQCompleted()
	})
	t.ResetAt(q.alignToWindow(s.k.Now().Add(backoffQOrderingWindow)))
	s.backoffTicker = t
}

// Stop ends the scheduling process, the bindings in flight and the queue's tickers, and drops
// the queue and cache (a process restart; Start rebuilds them). Pods assumed but not yet bound
// stay unbound and are scheduled again after Start.
func (s *Scheduler) Stop() {
	if !s.running {
		return
	}
	s.running = false
	s.queue.Close()
	s.backoffTicker.Stop()
	s.leftoverTicker.Stop()
	if s.proc != nil {
		s.proc.Kill()
		s.proc = nil
	}
	for _, key := range slices.Sorted(maps.Keys(s.binders)) {
		s.binders[key].Kill()
		delete(s.binders, key)
	}
}

// Running reports whether the scheduler is started.
func (s *Scheduler) Running() bool { return s.running }

// QueueLengths returns the current sizes of activeQ, backoffQ and unschedulablePods (zero
// before Start).
func (s *Scheduler) QueueLengths() QueueLengths {
	if s.queue == nil {
		return QueueLengths{}
	}
	a, b, u := s.queue.lengths()
	return QueueLengths{Active: a, Backoff: b, Unschedulable: u}
}

// Stats returns the scheduler's counters (kept across restarts).
func (s *Scheduler) Stats() Stats { return s.stats }

// Attempts returns how many scheduling attempts the pod with key ("namespace/name") has had
// since it was last seen bound or deleted; 0 for a pod the scheduler never tried.
func (s *Scheduler) Attempts(podKey string) int { return s.podAttempts[podKey] }

// LastFailure returns the latest FailedScheduling message for the pod with key
// ("namespace/name"), untruncated, and true; or "" and false if the pod has none (never
// failed, or since seen bound or deleted).
func (s *Scheduler) LastFailure(podKey string) (string, bool) {
	msg, ok := s.lastFailure[podKey]
	return msg, ok
}

// NodeInfo returns the scheduler cache's view of the node with name (pods bound or assumed
// there and their requests), and false if the cache does not know it.
func (s *Scheduler) NodeInfo(name string) (*NodeInfo, bool) {
	if s.cache == nil {
		return nil, false
	}
	return s.cache.nodeInfo(name)
}

func (s *Scheduler) traceMove(key string, from, to queueName, event string) {
	if to == inFlight {
		return // the attempt line says it
	}
	s.k.Emit(component, "queue", "Pod "+key, 0, fmt.Sprintf("%s->%s %s", from, to, event))
}

// ---- informer event handlers (eventhandlers.go) ----

func (s *Scheduler) responsibleForPod(pod *model.Pod) bool {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = DefaultSchedulerName
	}
	return name == s.cfg.SchedulerName
}

func (s *Scheduler) onNodeAdd(obj model.Object, _ bool) {
	node, ok := client.ObjectAs[*model.Node](obj)
	if !ok || !s.running {
		return
	}
	s.cache.addNode(node)
	s.queue.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventNodeAdd, newNode: node})
}

func (s *Scheduler) onNodeUpdate(oldObj, newObj model.Object) {
	oldNode, ok1 := client.ObjectAs[*model.Node](oldObj)
	newNode, ok2 := client.ObjectAs[*model.Node](newObj)
	if !ok1 || !ok2 || !s.running {
		return
	}
	s.cache.updateNode(newNode)
	if changes := nodeSchedulingPropertiesChange(newNode, oldNode); changes != 0 {
		s.queue.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventNodeUpdate, nodeChanges: changes, oldNode: oldNode, newNode: newNode})
	}
}

func (s *Scheduler) onNodeDelete(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok || !s.running {
		return
	}
	// No default plugin registers for Node/Delete, so no pod moves.
	s.cache.removeNode(o.Meta().Name)
}

// The pod handlers take the pod's key (model.Key) from the informer (client.KeyedEventHandler):
// the cache, the queue's bookkeeping and the failure records are kept by it.

func (s *Scheduler) onPodAdd(key string, obj model.Object, _ bool) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	// The informer's field selector already keeps Succeeded and Failed pods out; the handlers
	// check again so that an informer shared without the selector behaves the same.
	if !ok || !s.running || model.IsPodTerminal(pod) {
		return
	}
	if pod.Spec.NodeName != "" {
		s.addAssignedPodToCache(key, pod)
	} else if s.responsibleForPod(pod) {
		s.queue.Add(pod)
	}
}

func (s *Scheduler) onPodUpdate(key string, oldObj, newObj model.Object) {
	oldPod, ok1 := client.ObjectAs[*model.Pod](oldObj)
	newPod, ok2 := client.ObjectAs[*model.Pod](newObj)
	if !ok1 || !ok2 || !s.running {
		return
	}
	switch {
	case model.IsPodTerminal(oldPod) && model.IsPodTerminal(newPod):
		return
	case model.IsPodTerminal(newPod):
		s.onPodDelete(key, oldPod)
		return
	case model.IsPodTerminal(oldPod):
		s.onPodAdd(key, newPod, false)
		return
	case oldPod.UID != newPod.UID:
		// A relist merged a deletion and a re-creation under one name (updatePod does the same).
		s.onPodDelete(key, oldPod)
		s.onPodAdd(key, newPod, false)
		return
	}
	switch {
	case oldPod.Spec.NodeName != "":
		if err := s.cache.updatePod(key, oldPod, newPod); err != nil {
			// Not in the cache (a restart refilled it from a newer list): add it.
			_ = s.cache.addPod(key, newPod)
		}
	case newPod.Spec.NodeName != "":
		// The binding became visible.
		s.addAssignedPodToCache(key, newPod)
		if s.responsibleForPod(oldPod) {
			s.queue.Delete(oldPod)
		}
	case s.responsibleForPod(oldPod):
		s.updatePodInSchedulingQueue(key, oldPod, newPod)
	}
}

func (s *Scheduler) onPodDelete(key string, obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok || !s.running {
		return
	}
	pod, ok := client.ObjectAs[*model.Pod](o)
	if !ok {
		return
	}
	delete(s.lastFailure, key)
	delete(s.podAttempts, key)
	_, fresh := obj.(model.Object)
	if pod.Spec.NodeName != "" || !fresh {
		// deleteAssignedPodFromCache. A tombstone's object may be stale, so it is tried on the
		// cache whatever its nodeName says, and on the queue as well.
		if s.cache.removePod(key) == nil {
			s.queue.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventAssignedPodDelete, oldPod: pod})
		}
		if fresh {
			return
		}
	}
	if !s.responsibleForPod(pod) {
		return
	}
	// deletePodFromSchedulingQueue.
	s.queue.Delete(pod)
	if s.cache.isAssumed(key) {
		s.handleAssumedPodDeletion(key)
	}
}

// addAssignedPodToCache records a bound pod; an assumed one is confirmed. The AssignedPodAdd
// event may let pods waiting for inter-pod affinity or a spread domain in (upstream
// addPodToCache: MoveAllToActiveOrBackoffQueue with AssignedPodAdd).
func (s *Scheduler) addAssignedPodToCache(key string, pod *model.Pod) {
	if err := s.cache.addPod(key, pod); err != nil {
		_ = s.cache.updatePod(key, pod, pod)
	}
	s.queue.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventAssignedPodAdd, newPod: pod})
	delete(s.lastFailure, key)
	delete(s.podAttempts, key)
}

// updatePodInSchedulingQueue is the scheduler's handler for an update of an unassigned pod: an
// identical resync is ignored; an assumed pod (binding in flight) is only watched for the start
// of its deletion; anything else goes to the queue.
func (s *Scheduler) updatePodInSchedulingQueue(key string, oldPod, newPod *model.Pod) {
	if oldPod.ResourceVersion == newPod.ResourceVersion {
		return
	}
	if s.cache.isAssumed(key) {
		if newPod.DeletionTimestamp != nil && oldPod.DeletionTimestamp == nil {
			s.handleAssumedPodDeletion(key)
		}
		return
	}
	s.queue.Update(oldPod, newPod)
}

// handleAssumedPodDeletion frees the room an assumed pod held once it is being deleted; the
// binding in flight will then fail on its own.
func (s *Scheduler) handleAssumedPodDeletion(key string) {
	assumed, ok := s.cache.assumedPod(key)
	if !ok {
		return
	}
	if err := s.cache.forgetPod(assumed); err != nil {
		return
	}
	s.queue.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventAssignedPodDelete, oldPod: assumed})
}

// ---- the scheduling cycle (schedule_one.go) ----

// run is the scheduling process: wait for the informers, then ScheduleOne forever.
func (s *Scheduler) run(p *sim.Proc) {
	s.nodeInformer.WaitForSync(p)
	s.podInformer.WaitForSync(p)
	for _, inf := range []*client.Informer{s.listers.services, s.listers.replicaSets, s.listers.statefulSets, s.listers.namespaces, s.pdbInformer} {
		inf.WaitForSync(p)
	}
	q := s.queue
	for {
		pInfo := q.Pop(p)
		if pInfo == nil {
			return
		}
		s.scheduleOne(p, pInfo)
	}
}

// failure is the outcome of a failed attempt, as handleSchedulingFailure gets it.
type failure struct {
	message string
	// reason is the PodScheduled condition reason: Unschedulable or SchedulerError.
	reason  string
	plugins pluginSet
	// settled is set when the binder found the pod bound elsewhere or deleted: no status is
	// written then, although the informer may not show it yet (upstream would write
	// PodScheduled=False over the other binding's True).
	settled bool
	// nominate and nominatedNode are the NominatingInfo: with nominate (ModeOverride) the
	// pod's status.nominatedNodeName becomes nominatedNode ("" clears it); without it
	// (ModeNoop) it stays.
	nominate      bool
	nominatedNode string
}

// scheduleOne is one scheduling cycle. The filters and scores see the cache as it is when the
// cycle starts (upstream's snapshot); the cycle then takes CycleBase plus CyclePerNode for each
// node evaluated, and its outcome (assume and bind, or requeue) lands at its end.
func (s *Scheduler) scheduleOne(p *sim.Proc, pInfo *queuedPodInfo) {
	pod := pInfo.pod
	key := pInfo.key
	// skipPodSchedule: a pod being deleted, or one already assumed.
	if pod.DeletionTimestamp != nil || s.cache.isAssumed(key) {
		s.k.Emit(component, "skip", "Pod "+key, pod.ResourceVersion, "")
		s.queue.Done(key)
		return
	}
	s.stats.Attempts++
	s.podAttempts[key]++
	state := newCycleState(pod)
	state.taintWithKey = !s.cfg.TaintMessageWithoutKey
	state.nominated = s.queue.nominator.nominatedPodsFor(pod)
	state.listers = s.listers
	state.spreadMemos = s.spreadMemos
	state.matchKeys = s.cache.matchKeys
	state.buffers = &s.buffers
	nodes := s.cache.nodeList()
	result, fitErr, diag, err := schedulePod(state, nodes, s.cfg.PercentageOfNodesToScore, &s.nextStartNodeIndex, s.rnd)

	var f *failure
	var preempt *candidate
	switch {
	case err != nil:
		// ErrNoNodesAvailable: UnschedulableAndUnresolvable with no plugin, so the pod waits in
		// the error backoff queue; its nomination is cleared (clearNominatedNode).
		f = &failure{message: err.Error(), reason: model.PodReasonUnschedulable, nominate: true}
	case fitErr != nil:
		// RunPostFilterPlugins: DefaultPreemption.
		post := s.postFilter(state, nodes, fitErr.NodeToStatus)
		fitErr.PostFilterMsg = post.msg
		fitErr.DoublePeriod = !s.cfg.FitErrorSinglePeriod
		f = &failure{message: fitErr.Error(), reason: model.PodReasonUnschedulable, plugins: diag.unschedulablePlugins,
			nominate: post.nominate, nominatedNode: post.node}
		preempt = post.cand
	}
	s.k.Emit(component, "attempt", "Pod "+key, pod.ResourceVersion,
		fmt.Sprintf("attempt=%d nodes=%d evaluated=%d feasible=%d", pInfo.attempts, len(nodes), result.evaluated, result.feasible))

	if d := s.cfg.CycleBase.Sample(s.cycleRnd) + time.Duration(result.evaluated)*s.cfg.CyclePerNode; d > 0 {
		p.Sleep(d)
	}
	if !s.running {
		return
	}
	if f != nil {
		s.stats.Unschedulable++
		if preempt != nil {
			if err := s.prepareCandidate(p, preempt, pod); err != nil {
				f = &failure{message: err.Error(), reason: podReasonSchedulerError}
			}
		}
		s.handleSchedulingFailure(p, pInfo, f)
		return
	}

	// The assumed version differs from the cached one in spec.nodeName only; the rest is
	// shared with the cache, read-only like it.
	assumedValue := *pod
	assumedValue.Spec.NodeName = result.host
	assumed := &assumedValue
	if err := s.cache.assumePod(assumed); err != nil {
		s.stats.Errors++
		s.handleSchedulingFailure(p, pInfo, &failure{message: err.Error(), reason: podReasonSchedulerError, nominate: true})
		return
	}
	// assume: DeleteNominatedPodIfExists.
	s.queue.nominator.delete(assumed)
	s.k.Emit(component, "assume", "Pod "+key, pod.ResourceVersion, "node="+result.host)
	var binder *sim.Proc
	binder = s.k.Spawn(component+"/bind/"+key, func(bp *sim.Proc) {
		defer func() {
			if s.binders[key] == binder {
				delete(s.binders, key)
			}
		}()
		s.bindingCycle(bp, pInfo, assumed)
	})
	s.binders[key] = binder
}

// bindingCycle binds an assumed pod. Success: the cache marks the binding finished, the
// Scheduled event is recorded and the pod leaves the queue. Failure: the pod is forgotten
// (which may let other pods fit, so they are moved as for an assigned pod's deletion) and
// handled as a scheduling error.
func (s *Scheduler) bindingCycle(bp *sim.Proc, pInfo *queuedPodInfo, assumed *model.Pod) {
	settled, err := s.bind(bp, pInfo.pod, assumed.Spec.NodeName)
	if !s.running {
		return
	}
	if err == nil {
		s.cache.finishBinding(assumed)
		s.stats.Scheduled++
		s.k.Emit(component, "bound", "Pod "+pInfo.key, 0, "node="+assumed.Spec.NodeName)
		s.rec.Eventf(assumed, model.EventTypeNormal, ReasonScheduled, scheduledMessageFormat, assumed.Namespace, assumed.Name, assumed.Spec.NodeName)
		delete(s.lastFailure, pInfo.key)
		s.queue.Done(pInfo.key)
		return
	}
	s.stats.Errors++
	if s.cache.forgetPod(assumed) == nil {
		s.queue.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventAssignedPodDelete, oldPod: assumed})
	}
	s.handleSchedulingFailure(bp, pInfo, &failure{message: fmt.Sprintf(bindErrorFormat, PluginDefaultBinder, err.Error()), reason: podReasonSchedulerError, settled: settled, nominate: true})
}

// bind stands in for the binding subresource: an update of the pod setting spec.nodeName (the
// API server then sets PodScheduled=True, as the binding REST does). The update carries the
// resourceVersion of the informer's copy, so a pod changed since then gives 409 Conflict: the
// binder reads the pod again and retries, up to BindRetries times, while it is the same pod,
// unbound and not being deleted. A pod found bound elsewhere or being deleted fails with the
// binding subresource's Conflict, a pod found gone or replaced with NotFound; settled is then
// true. Other errors are returned as they are, with settled false.
func (s *Scheduler) bind(bp *sim.Proc, pod *model.Pod, host string) (settled bool, err error) {
	cur := pod
	for attempt := 0; ; attempt++ {
		// A shallow copy of cur with the new nodeName, handed over: the server stores it as
		// the new version and changes neither it nor what it shares with cur.
		b := *cur
		b.Spec.NodeName = host
		_, err := s.c.UpdateShared(bp, &b)
		switch {
		case err == nil:
			return false, nil
		case apierrors.IsNotFound(err):
			return true, err
		case !apierrors.IsConflict(err):
			return false, err
		}
		s.stats.BindConflicts++
		s.k.Emit(component, "bind-conflict", "Pod "+model.Key(pod), cur.ResourceVersion, fmt.Sprintf("attempt=%d", attempt+1))
		obj, gerr := s.c.Get(bp, model.KindPod, pod.Namespace, pod.Name)
		if gerr != nil {
			return apierrors.IsNotFound(gerr), gerr
		}
		latest, ok := client.ObjectAs[*model.Pod](obj)
		switch {
		case !ok || latest.UID != pod.UID:
			return true, apierrors.NewNotFound(podsResource, pod.Name)
		case latest.Spec.NodeName != "":
			return true, apierrors.NewConflict(podsBindingResource, pod.Name, fmt.Errorf("pod %s is already assigned to node %q", pod.Name, latest.Spec.NodeName))
		case latest.DeletionTimestamp != nil:
			return true, apierrors.NewConflict(podsBindingResource, pod.Name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
		case attempt >= s.cfg.BindRetries:
			return false, err
		}
		cur = latest
	}
}

// handleSchedulingFailure is schedule_one.go handleSchedulingFailure: the pod goes back to the
// queue (unless the informer no longer has it, or shows it bound), the FailedScheduling event
// is recorded, and PodScheduled=False with the reason and message is written if it changed.
// Unlike upstream, no status write is sent for a pod known to be gone or bound elsewhere
// (upstream's patch would fail, or overwrite the other binding's PodScheduled=True).
func (s *Scheduler) handleSchedulingFailure(ctx context.Context, pInfo *queuedPodInfo, f *failure) {
	pInfo.unschedulablePlugins = f.plugins
	key := pInfo.key
	obj, exists := s.podInformer.Get(pInfo.pod.Namespace, pInfo.pod.Name)
	latest, _ := client.ObjectAs[*model.Pod](obj)
	dest := inNoQueue
	if exists && latest != nil && latest.Spec.NodeName == "" && latest.UID == pInfo.pod.UID {
		dest, _ = s.queue.AddUnschedulableIfNotPresent(pInfo, latest)
		if f.nominate {
			// AddNominatedPod with the NominatingInfo.
			s.queue.nominator.override(latest, f.nominatedNode)
		}
	} else {
		latest = nil
	}
	s.queue.Done(key)
	s.k.Emit(component, "failed", "Pod "+key, pInfo.pod.ResourceVersion, fmt.Sprintf("to=%s reason=%s attempts=%d backoff=%s",
		dest, f.reason, pInfo.attempts, calculateBackoffDuration(pInfo.attempts, s.cfg.podInitialBackoff(), s.cfg.podMaxBackoff())))
	s.rec.Eventf(pInfo.pod, model.EventTypeWarning, ReasonFailedScheduling, "%s", truncateMessage(f.message))
	if latest == nil {
		return
	}
	s.lastFailure[key] = f.message
	if !f.settled {
		s.updatePodScheduledCondition(ctx, latest, f)
	}
}

// updatePodScheduledCondition writes PodScheduled=False (reason, message), and the nominated
// node of a preemption, through a merge patch of the status subresource, only when the pod's
// condition or nominatedNodeName differs (schedule_one.go updatePod: podutil.UpdatePodCondition
// then util.PatchPodStatus). lastTransitionTime moves only when the status changes.
func (s *Scheduler) updatePodScheduledCondition(ctx context.Context, pod *model.Pod, f *failure) {
	now := s.k.Now()
	nnnNeedsUpdate := f.nominate && pod.Status.NominatedNodeName != f.nominatedNode
	unchanged := false
	want := model.PodCondition{Type: model.PodScheduled, Status: model.ConditionFalse, Reason: f.reason, Message: f.message, LastTransitionTime: now}
	conds := make([]model.PodCondition, 0, len(pod.Status.Conditions)+1)
	found := false
	for _, c := range pod.Status.Conditions {
		if c.Type != model.PodScheduled {
			conds = append(conds, c)
			continue
		}
		found = true
		if c.Status == want.Status {
			want.LastTransitionTime = c.LastTransitionTime
			unchanged = c.Reason == want.Reason && c.Message == want.Message && c.LastProbeTime == 0
			if unchanged && !nnnNeedsUpdate {
				return
			}
		}
		conds = append(conds, want)
	}
	if !found {
		conds = append(conds, want)
	}
	status := map[string]any{}
	if !unchanged {
		status["conditions"] = conds
	}
	if nnnNeedsUpdate {
		status["nominatedNodeName"] = f.nominatedNode
		if f.nominatedNode == "" {
			status["nominatedNodeName"] = nil
		}
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		s.k.Emit(component, "status-error", "Pod "+model.Key(pod), pod.ResourceVersion, err.Error())
		return
	}
	if !unchanged {
		s.stats.ConditionWrites++
	}
	if _, err := s.c.PatchStatus(ctx, model.KindPod, pod.Namespace, pod.Name, patch); err != nil {
		s.k.Emit(component, "status-error", "Pod "+model.Key(pod), pod.ResourceVersion, err.Error())
	}
}
