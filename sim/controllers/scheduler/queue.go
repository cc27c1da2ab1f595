package scheduler

import (
	"fmt"
	"sort"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// backoffQOrderingWindow is backoffQOrderingWindowDuration (backend/queue/backoff_queue.go):
// with PopFromBackoffQ, backoff expiries are truncated to whole seconds.
const backoffQOrderingWindow = time.Second

// maxInFlightEvents bounds the events recorded for one in-flight pod; past it the pod is
// requeued after backoff as if an event had said Queue (a limit upstream does not have).
const maxInFlightEvents = 10000

// queueName says where a queued pod is.
type queueName int

const (
	inNoQueue queueName = iota
	inActiveQ
	inBackoffQ
	inErrorBackoffQ
	inUnschedulablePods
	inFlight
)

func (q queueName) String() string {
	switch q {
	case inActiveQ:
		return "activeQ"
	case inBackoffQ:
		return "backoffQ"
	case inErrorBackoffQ:
		return "errorBackoffQ"
	case inUnschedulablePods:
		return "unschedulablePods"
	case inFlight:
		return "inFlight"
	default:
		return "none"
	}
}

// queuedPodInfo is a pod in the scheduling queue (upstream framework.QueuedPodInfo).
type queuedPodInfo struct {
	pod *model.Pod
	key string
	// timestamp is when the pod was last added to the queue: at creation, or when its last
	// attempt failed. activeQ orders by it; backoff is measured from it.
	timestamp vtime.Time
	// initialAttempt is when the pod was first popped (for scheduling latency).
	initialAttempt    vtime.Time
	hasInitialAttempt bool
	attempts          int
	// backoffExpiration caches getBackoffTime until the next pop.
	backoffExpiration    vtime.Time
	hasBackoffExpiration bool
	// unschedulablePlugins are the plugins that rejected the pod in its last attempt; empty
	// after an error.
	unschedulablePlugins pluginSet
	seq                  uint64 // insertion order, the final tie-break of every ordering
	heapIndex            int
	where                queueName
	// inFlightEvents are the events of interest seen while the pod was being scheduled.
	inFlightEvents   []*clusterEvent
	inFlightOverflow bool
}

// priorityQueue is kube-scheduler's scheduling queue (backend/queue/scheduling_queue.go) with
// its three parts: activeQ (a heap in PrioritySort order), backoffQ (a heap by backoff expiry,
// split like upstream into the pods rejected by plugins and the pods that hit an error), and
// unschedulablePods (a map, iterated in key order). Pods popped for a scheduling attempt are
// "in flight" until Done; cluster events seen meanwhile are kept and checked when the attempt
// fails, so that an event during the attempt is not lost.
type priorityQueue struct {
	k   *sim.Kernel
	cfg Config

	activeQ       podHeap
	backoffQ      podHeap
	errorBackoffQ podHeap
	unschedulable map[string]*queuedPodInfo
	// pods holds every pod the queue knows by key, whichever part it is in (also in flight).
	pods map[string]*queuedPodInfo

	waiter          *sim.Proc
	closed          bool
	schedulingCycle int64
	seq             uint64

	// onMove, when set, is told about every move between parts (for the trace).
	onMove func(key string, from, to queueName, event string)
	// nominator records the nominated pods (nominator.go); Add, Update and Delete keep it.
	nominator *nominator
}

func newPriorityQueue(k *sim.Kernel, cfg Config) *priorityQueue {
	q := &priorityQueue{k: k, cfg: cfg, unschedulable: map[string]*queuedPodInfo{}, pods: map[string]*queuedPodInfo{}, nominator: newNominator()}
	q.activeQ.less = lessPrioritySort
	q.errorBackoffQ.less = q.lessBackoffCompleted
	if cfg.PopFromBackoffQ {
		q.backoffQ.less = q.lessBackoffCompletedWithPriority
	} else {
		q.backoffQ.less = q.lessBackoffCompleted
	}
	return q
}

// lessPrioritySort is the PrioritySort plugin's Less: higher spec.priority first, then the
// earlier queue timestamp (and, here, the earlier insertion for full determinism).
func lessPrioritySort(a, b *queuedPodInfo) bool {
	pa, pb := podPriority(a.pod), podPriority(b.pod)
	if pa != pb {
		return pa > pb
	}
	if a.timestamp != b.timestamp {
		return a.timestamp < b.timestamp
	}
	return a.seq < b.seq
}

func (q *priorityQueue) lessBackoffCompleted(a, b *queuedPodInfo) bool {
	ea, eb := q.getBackoffTime(a), q.getBackoffTime(b)
	if ea != eb {
		return ea < eb
	}
	return a.seq < b.seq
}

// lessBackoffCompletedWithPriority orders pods in the same ordering window as activeQ does,
// so that Pop from an idle activeQ takes the most important of them (PopFromBackoffQ).
func (q *priorityQueue) lessBackoffCompletedWithPriority(a, b *queuedPodInfo) bool {
	ea, eb := q.getBackoffTime(a), q.getBackoffTime(b)
	if ea != eb {
		return ea < eb
	}
	return lessPrioritySort(a, b)
}

// alignToWindow truncates t to the ordering window when PopFromBackoffQ is on.
func (q *priorityQueue) alignToWindow(t vtime.Time) vtime.Time {
	if !q.cfg.PopFromBackoffQ {
		return t
	}
	w := vtime.Time(backoffQOrderingWindow)
	return t - t%w
}

// calculateBackoffDuration is initial·2^(attempts-1) capped at max, 0 before any attempt.
func calculateBackoffDuration(attempts int, initial, maxBackoff time.Duration) time.Duration {
	if attempts <= 0 {
		return 0
	}
	shift := uint(attempts - 1)
	if shift >= 63 || initial > maxBackoff>>shift {
		return maxBackoff
	}
	return initial << shift
}

// getBackoffTime returns (and caches until the next pop) when the pod's backoff ends: its
// timestamp plus the backoff for its attempts, aligned to the ordering window.
func (q *priorityQueue) getBackoffTime(p *queuedPodInfo) vtime.Time {
	if p.attempts == 0 {
		return 0
	}
	if !p.hasBackoffExpiration {
		d := calculateBackoffDuration(p.attempts, q.cfg.podInitialBackoff(), q.cfg.podMaxBackoff())
		p.backoffExpiration = q.alignToWindow(p.timestamp.Add(d))
		p.hasBackoffExpiration = true
	}
	return p.backoffExpiration
}

// isPodBackingoff reports whether the pod must still wait. With ordering windows a pod whose
// expiry lies in the current window still waits for the next flush.
func (q *priorityQueue) isPodBackingoff(p *queuedPodInfo) bool {
	if p.attempts == 0 {
		return false
	}
	bo := q.getBackoffTime(p)
	if q.cfg.PopFromBackoffQ {
		return bo >= q.alignToWindow(q.k.Now())
	}
	return bo > q.k.Now()
}

func (q *priorityQueue) newQueuedPodInfo(pod *model.Pod) *queuedPodInfo {
	q.seq++
	return &queuedPodInfo{pod: pod, key: model.Key(pod), timestamp: q.k.Now(), seq: q.seq, heapIndex: -1}
}

func (q *priorityQueue) moved(p *queuedPodInfo, from queueName, event string) {
	if q.onMove != nil {
		q.onMove(p.key, from, p.where, event)
	}
}

// detach takes p out of whichever part holds it (not in flight).
func (q *priorityQueue) detach(p *queuedPodInfo) {
	switch p.where {
	case inActiveQ:
		q.activeQ.Remove(p)
	case inBackoffQ:
		q.backoffQ.Remove(p)
	case inErrorBackoffQ:
		q.errorBackoffQ.Remove(p)
	case inUnschedulablePods:
		delete(q.unschedulable, p.key)
	}
	p.where = inNoQueue
}

func (q *priorityQueue) toActiveQ(p *queuedPodInfo, event string) {
	from := p.where
	q.detach(p)
	q.seq++
	p.seq = q.seq
	p.where = inActiveQ
	q.activeQ.Push(p)
	q.pods[p.key] = p
	q.moved(p, from, event)
	q.wake()
}

func (q *priorityQueue) toBackoffQ(p *queuedPodInfo, event string) {
	from := p.where
	q.detach(p)
	q.seq++
	p.seq = q.seq
	// Pods rejected by no plugin failed with an error: they wait in podErrorBackoffQ, which
	// Pop never takes from early.
	if p.unschedulablePlugins == 0 {
		p.where = inErrorBackoffQ
		q.errorBackoffQ.Push(p)
	} else {
		p.where = inBackoffQ
		q.backoffQ.Push(p)
		if q.cfg.PopFromBackoffQ {
			q.wake()
		}
	}
	q.pods[p.key] = p
	q.moved(p, from, event)
}

func (q *priorityQueue) toUnschedulable(p *queuedPodInfo, event string) {
	from := p.where
	q.detach(p)
	p.where = inUnschedulablePods
	q.unschedulable[p.key] = p
	q.pods[p.key] = p
	q.moved(p, from, event)
}

// requeue is requeuePodWithQueueingStrategy: skip keeps the pod in unschedulablePods; after
// backoff it goes to backoffQ while backing off, else straight to activeQ.
func (q *priorityQueue) requeue(p *queuedPodInfo, strategy requeueStrategy, event string) queueName {
	switch {
	case strategy == queueSkip:
		q.toUnschedulable(p, event)
	case q.isPodBackingoff(p):
		q.toBackoffQ(p, event)
	default:
		q.toActiveQ(p, event)
	}
	return p.where
}

// wake makes the process blocked in Pop runnable.
func (q *priorityQueue) wake() {
	if q.waiter != nil && q.waiter.Parked() {
		q.waiter.Unpark()
	}
}

// Add puts a new unscheduled pod into activeQ (or refreshes it if the queue already has it).
// A pod that replaces an in-flight one of the same name (another uid) gets its own entry; the
// old attempt finishes on its own and cannot requeue the old pod.
func (q *priorityQueue) Add(pod *model.Pod) {
	key := model.Key(pod)
	if p, ok := q.pods[key]; ok {
		if p.where != inFlight || p.pod.UID == pod.UID {
			q.Update(p.pod, pod)
			return
		}
		delete(q.pods, key)
	}
	q.toActiveQ(q.newQueuedPodInfo(pod), "PodAdd")
	q.nominator.add(pod, "")
}

// Update applies a change of an unscheduled pod (upstream PriorityQueue.Update). An in-flight pod only
// records the event; a pod in activeQ or backoffQ gets the new object; a pod in
// unschedulablePods gets the new object and is requeued if its rejecting plugins say the
// change may help; an unknown pod is added to activeQ.
func (q *priorityQueue) Update(oldPod, newPod *model.Pod) {
	if oldPod != nil {
		q.nominator.update(oldPod, newPod)
	} else {
		q.nominator.add(newPod, "")
	}
	e := &clusterEvent{kind: eventUnscheduledPodUpdate, oldPod: oldPod, newPod: newPod,
		tolerationsChanged: oldPod != nil && !model.TolerationsEqual(oldPod.Spec.Tolerations, newPod.Spec.Tolerations)}
	p, ok := q.pods[model.Key(newPod)]
	if !ok {
		q.toActiveQ(q.newQueuedPodInfo(newPod), "UnscheduledPodUpdate")
		return
	}
	switch p.where {
	case inFlight:
		if eventOfInterest(e) {
			q.recordInFlight(p, e)
		}
	case inActiveQ, inBackoffQ, inErrorBackoffQ:
		p.pod = newPod
	case inUnschedulablePods:
		p.pod = newPod
		if eventOfInterest(e) {
			if s := isPodWorthRequeuing(p.pod, p.unschedulablePlugins, e); s != queueSkip {
				q.requeue(p, s, e.label())
			}
		}
	}
}

// Delete forgets a pod that was deleted or bound. An in-flight pod stays known until Done.
func (q *priorityQueue) Delete(pod *model.Pod) {
	q.nominator.delete(pod)
	p, ok := q.pods[model.Key(pod)]
	if !ok || p.where == inFlight {
		return
	}
	from := p.where
	q.detach(p)
	delete(q.pods, p.key)
	q.moved(p, from, "PodDelete")
}

// Pop blocks proc until a pod is available and returns it, in flight; nil once the queue is
// closed. With PopFromBackoffQ an idle activeQ yields the head of backoffQ (not of the error
// backoff queue). Pop counts an attempt, clears the cached backoff and the last rejection.
func (q *priorityQueue) Pop(proc *sim.Proc) *queuedPodInfo {
	for {
		if q.closed {
			return nil
		}
		var p *queuedPodInfo
		switch {
		case q.activeQ.Len() > 0:
			p = q.activeQ.Pop()
		case q.cfg.PopFromBackoffQ && q.backoffQ.Len() > 0:
			p = q.backoffQ.Pop()
		}
		if p != nil {
			from := p.where
			p.where = inFlight
			p.attempts++
			p.hasBackoffExpiration = false
			p.unschedulablePlugins = 0
			p.inFlightEvents = nil
			p.inFlightOverflow = false
			if !p.hasInitialAttempt {
				p.initialAttempt = q.k.Now()
				p.hasInitialAttempt = true
			}
			q.schedulingCycle++
			q.moved(p, from, "Pop")
			return p
		}
		q.waiter = proc
		proc.Park()
		q.waiter = nil
	}
}

// Done ends the in-flight period of the pod with key (upstream PriorityQueue.Done): if the attempt did
// not put it back into a queue, the queue forgets it.
func (q *priorityQueue) Done(key string) {
	p, ok := q.pods[key]
	if !ok || p.where != inFlight {
		return
	}
	p.where = inNoQueue
	p.inFlightEvents = nil
	delete(q.pods, key)
}

// AddUnschedulableIfNotPresent puts a pod whose attempt failed back into the queue
// (upstream PriorityQueue.AddUnschedulableIfNotPresent): the timestamp becomes now; then the events
// seen while it was in flight decide, as a cluster event would, between unschedulablePods and
// a requeue after backoff. A pod rejected by no plugin (an error) is always requeued after
// backoff. pod is the latest version of the pod (from the informer). It returns the part the
// pod went to, or an error if the pod is not in flight.
func (q *priorityQueue) AddUnschedulableIfNotPresent(p *queuedPodInfo, pod *model.Pod) (queueName, error) {
	cur, ok := q.pods[p.key]
	if !ok || cur != p || p.where != inFlight {
		return inNoQueue, fmt.Errorf("pod %s is not in flight, so it cannot be added back as unschedulable", p.key)
	}
	p.pod = pod
	p.timestamp = q.k.Now()
	p.hasBackoffExpiration = false
	strategy := q.schedulingHintForInFlightPod(p)
	p.inFlightEvents = nil
	p.inFlightOverflow = false
	// The pod stays "in flight" for Done, but it is now in a queue part too: detach works on
	// where, so mark it not-queued first.
	p.where = inNoQueue
	return q.requeue(p, strategy, "ScheduleAttemptFailure"), nil
}

// schedulingHintForInFlightPod is determineSchedulingHintForInFlightPod.
func (q *priorityQueue) schedulingHintForInFlightPod(p *queuedPodInfo) requeueStrategy {
	if p.unschedulablePlugins == 0 || p.inFlightOverflow {
		return queueAfterBackoff
	}
	for _, e := range p.inFlightEvents {
		if isPodWorthRequeuing(p.pod, p.unschedulablePlugins, e) != queueSkip {
			return queueAfterBackoff
		}
	}
	return queueSkip
}

func (q *priorityQueue) recordInFlight(p *queuedPodInfo, e *clusterEvent) {
	if len(p.inFlightEvents) >= maxInFlightEvents {
		p.inFlightOverflow = true
		return
	}
	p.inFlightEvents = append(p.inFlightEvents, e)
}

// sortedUnschedulable returns the pods in unschedulablePods in key order.
func (q *priorityQueue) sortedUnschedulable() []*queuedPodInfo {
	keys := make([]string, 0, len(q.unschedulable))
	for k := range q.unschedulable { //detlint:ordered keys are sorted below
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*queuedPodInfo, len(keys))
	for i, k := range keys {
		out[i] = q.unschedulable[k]
	}
	return out
}

// MoveAllToActiveOrBackoffQueue applies a cluster event: it is recorded for the pods in flight,
// and every pod in unschedulablePods whose rejecting plugins say the event may help is moved
// to backoffQ (still backing off) or activeQ (movePodsToActiveOrBackoffQueue).
func (q *priorityQueue) MoveAllToActiveOrBackoffQueue(e *clusterEvent) {
	if !eventOfInterest(e) {
		return
	}
	q.recordForInFlightPods(e)
	for _, p := range q.sortedUnschedulable() {
		if s := isPodWorthRequeuing(p.pod, p.unschedulablePlugins, e); s != queueSkip {
			q.requeue(p, s, e.label())
		}
	}
}

func (q *priorityQueue) recordForInFlightPods(e *clusterEvent) {
	var inflight []*queuedPodInfo
	for _, p := range q.pods { //detlint:ordered in-flight pods are sorted by key below
		if p.where == inFlight {
			inflight = append(inflight, p)
		}
	}
	// The order does not matter for the outcome (each pod gets its own copy of the list), but
	// keep it fixed anyway.
	sort.Slice(inflight, func(i, j int) bool { return inflight[i].key < inflight[j].key })
	for _, p := range inflight {
		q.recordInFlight(p, e)
	}
}

// flushBackoffQCompleted moves every pod whose backoff is over from both backoff heaps to
// activeQ.
func (q *priorityQueue) flushBackoffQCompleted() {
	for _, h := range []*podHeap{&q.backoffQ, &q.errorBackoffQ} {
		for {
			p := h.Peek()
			if p == nil || q.isPodBackingoff(p) {
				break
			}
			q.toActiveQ(p, "BackoffComplete")
		}
	}
}

// flushUnschedulablePodsLeftover moves the pods that have stayed in unschedulablePods for
// longer than PodMaxInUnschedulablePodsDuration, with the wildcard UnschedulableTimeout event.
func (q *priorityQueue) flushUnschedulablePodsLeftover() {
	now := q.k.Now()
	e := &clusterEvent{kind: eventUnschedulableTimeout}
	for _, p := range q.sortedUnschedulable() {
		if now.Sub(p.timestamp) > q.cfg.PodMaxInUnschedulablePodsDuration {
			q.requeue(p, queueAfterBackoff, e.label())
		}
	}
}

// Close makes Pop return nil.
func (q *priorityQueue) Close() {
	q.closed = true
	q.wake()
}

// lengths returns the sizes of activeQ, backoffQ (both heaps) and unschedulablePods.
func (q *priorityQueue) lengths() (active, backoff, unschedulable int) {
	return q.activeQ.Len(), q.backoffQ.Len() + q.errorBackoffQ.Len(), len(q.unschedulable)
}

// get returns the queued pod with key.
func (q *priorityQueue) get(key string) (*queuedPodInfo, bool) {
	p, ok := q.pods[key]
	return p, ok
}
