package node

import (
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

// statusManager is the kubelet's status manager (pkg/kubelet/status/status_manager.go): it
// caches the latest status the kubelet generated for each pod, and one process writes them to
// the API server in the order they changed: GET the pod, write the merged status if it differs,
// and once a deleted pod has finished, delete it for good (grace period 0, UID precondition).
// Every StatusSyncPeriod it re-checks all pods, retrying failed writes and repairing statuses
// someone else changed.
//
// The periodic check looks only at unsettled entries. Whether a pod needs a write is a
// function of its entry and of the informer's copy of the pod alone, so a pod the last check
// found in order stays in order until one of the two changes: every change of an entry and
// every informer event about one of its pods unsettles it again (markUnsettled, podChanged).
type statusManager struct {
	// The first cache line holds what the periodic tick and check read of an idle status
	// manager, the second what they read of its queue (its length) and what pod changes
	// use; the struct is 128 bytes, a size class whose objects start on a cache line, so
	// that each period touches two of its lines (TestStatusManagerIsTwoCacheLines).
	kl *Kubelet
	// proc is the status manager's process; batch is its sync ticker.
	proc  *sim.Proc
	batch *sim.Timer
	// unsettled lists the uids of the entries the next syncBatch examines, unordered; it may
	// repeat a uid or name an entry gone since (syncBatch skips both).
	unsettled []string
	batchDue  bool
	stopped   bool
	// idle says the process is parked in its loop with nothing queued (upstream's goroutine
	// waiting in its select on the pod status channel and the sync ticker).
	idle bool
	// tickPending says a tick's batchWake is scheduled and the process not yet resumed:
	// until then enqueue does not unpark it (batchWake resumes it, or finds it need not).
	tickPending bool
	// syncPeriod is the ticker's period (the kubelet's StatusSyncPeriod).
	syncPeriod time.Duration

	queue   []string
	entries map[string]*statusEntry
	queued  map[string]bool
	// spareUnsettled is the previous batch's list, kept for reuse.
	spareUnsettled []string
}

// statusEntry is one pod's cached status.
type statusEntry struct {
	uid, namespace, name string
	// key is the pod's informer key (namespace/name) and object the pod as traces name it.
	key, object string
	// status is read-only and replaced whole: a seeded entry's is the stored pod's own, and
	// the stored pods written from it share its container statuses and, mostly, its
	// conditions (mergePodStatus).
	status *model.PodStatus
	// version counts changes of status; apiVersion is the version last written (or found
	// already in place).
	version, apiVersion uint64
	// finished is upstream's podIsFinished: the pod's containers are stopped for good.
	finished bool
	// postedRV is the resourceVersion of the pod after the kubelet's last successful write;
	// while the informer shows that version nobody else has changed the status.
	postedRV uint64
	// unsettled says the uid is listed in statusManager.unsettled.
	unsettled bool
}

func newStatusEntry(w *podWorker) *statusEntry {
	return &statusEntry{uid: w.uid, namespace: w.pod.Namespace, name: w.pod.Name, key: w.key, object: w.object()}
}

// markUnsettled has the next syncBatch examine e.
func (sm *statusManager) markUnsettled(e *statusEntry) {
	if !e.unsettled {
		e.unsettled = true
		sm.unsettled = append(sm.unsettled, e.uid)
	}
}

// podChanged is told the uid of every pod an informer event stores or removes (both the old
// and the new object of an update), before the event is handled: the informer's copy of that
// pod, which the periodic check compares against, may have changed.
func (sm *statusManager) podChanged(uid string) {
	if e, ok := sm.entries[uid]; ok {
		sm.markUnsettled(e)
	}
}

func newStatusManager(kl *Kubelet) *statusManager {
	sm := &statusManager{kl: kl, syncPeriod: kl.cfg.StatusSyncPeriod, entries: map[string]*statusEntry{}, queued: map[string]bool{}}
	// The ticker is the timer Kernel.Every makes, re-armed by tick itself (as Every's wrapper
	// does, before the tick's work): one closure fewer for each tick to go through.
	sm.batch = kl.k.NewIdleTimer(sm.tick)
	sm.batch.Reset(sm.syncPeriod)
	return sm
}

// tick is the sync ticker's tick (status_manager.go Start: the select's syncTicker case runs
// syncBatch(true)): the periodic check is due, and a parked process is to run it. For an idle
// process, where Unpark would schedule its wake-up, tick schedules batchWake instead (a hold,
// as the wake-up is), which does the check on the kernel. A process parked elsewhere (at a
// stalled kubelet's gate) is unparked as before.
func (sm *statusManager) tick() {
	sm.batch.Reset(sm.syncPeriod)
	sm.batchDue = true
	p := sm.proc
	switch {
	case p == nil || sm.tickPending:
	case sm.idle && p.Parked():
		sm.tickPending = true
		sm.kl.k.Schedule(sm.kl.k.Now(), sm, 0, true)
	default:
		p.Unpark()
	}
}

// batchWake runs where the tick's wake-up of the process would have, and as the process would
// have: an idle status manager of a running kubelet does the periodic check on the kernel and
// resumes its process (sim.Proc.Wake, in this same event) only if the check queued a pod;
// otherwise the process resumes to do what it would (leave its loop when stopped, wait at a
// stalled kubelet's gate). A settled cluster's status managers thus cost one event and no
// process switch per period, with every step at the same instant and in the same order.
func (sm *statusManager) batchWake() {
	sm.tickPending = false
	p := sm.proc
	if !p.Parked() {
		return // killed since the tick
	}
	if sm.idle && !sm.stopped && !sm.kl.stalled() {
		sm.batchDue = false
		sm.tickPending = true // the pods syncBatch queues are for the process resumed below
		sm.syncBatch()
		sm.tickPending = false
		if len(sm.queue) == 0 {
			return
		}
	}
	p.Wake()
}

// Fire is batchWake as the kernel's handler (the statusManager is its own, so the event
// leads straight to it).
func (sm *statusManager) Fire(uint64) { sm.batchWake() }

func (sm *statusManager) stop() {
	sm.stopped = true
	sm.batch.Stop()
}

// seed starts a pod's entry from the status the API server has (an adopted pod): nothing is
// written until the kubelet's own status differs. The entry shares the stored pod's status
// (its slices and pointers): an entry's status is only read (mergePodStatus and
// normalizeStatus copy what they change) and replaced whole, never changed in place, so a
// settled cluster's kubelets hold no copy of their pods' statuses.
func (sm *statusManager) seed(w *podWorker) {
	e := newStatusEntry(w)
	e.status = &w.pod.Status
	e.version, e.apiVersion, e.postedRV = 1, 1, w.pod.ResourceVersion
	sm.entries[w.uid] = e
	sm.markUnsettled(e)
}

// setPodStatus records the status w just generated, w.lastStatus (SetPodStatus and
// TerminatePod): its times are fixed against the previous status, and if anything changed it
// is queued for writing.
//
// Afterwards w.lastStatus holds the entry's conditions instead of its own: they differ only
// in their lastTransitionTimes, which are set here again for each status generated from
// lastStatus (readinessChanged), so the worker's status keeps no list of its own alive, and
// generateStatus may build its conditions in the kubelet's scratch slice.
func (sm *statusManager) setPodStatus(w *podWorker, finished bool) {
	generated := w.lastStatus
	// Upstream caches a deep copy. Here the entry shares the generated status's container
	// statuses (a generated status is never changed in place: the pod worker copies what it
	// changes, as readinessChanged does) and gets conditions of its own, whose times
	// normalizeStatus sets; the deep copy was 3% of the bytes thundering-herd allocated.
	// The conditions are normalised in the kubelet's scratch slice first (where
	// generateStatus may have built them: the append then copies them onto themselves) and
	// copied out only for a status that changed: a status generated as the cached one
	// allocates nothing.
	st := *generated
	if generated.Conditions != nil {
		sm.kl.podConditionsScratch = append(sm.kl.podConditionsScratch[:0], generated.Conditions...)
		st.Conditions = sm.kl.podConditionsScratch
	}
	e, cached := sm.entries[w.uid]
	old := &w.pod.Status
	if cached {
		old = e.status
	}
	normalizeStatus(&st, old, sm.kl.k.Now())
	if cached && statusEqual(e.status, &st) && e.finished == finished {
		generated.Conditions = e.status.Conditions
		return
	}
	// At full capacity: a merge shares the list with the stored pod (mergePodStatus).
	st.Conditions = slices.Clip(slices.Clone(st.Conditions))
	if !cached {
		e = newStatusEntry(w)
		sm.entries[w.uid] = e
	}
	e.status = new(model.PodStatus)
	*e.status = st
	e.finished = e.finished || finished
	e.version++
	generated.Conditions = e.status.Conditions
	sm.markUnsettled(e)
	sm.enqueue(w.uid)
}

// requeue queues a pod for another write attempt (its deletion may now be due).
func (sm *statusManager) requeue(uid string) {
	if _, ok := sm.entries[uid]; ok {
		sm.enqueue(uid)
	}
}

// forget drops a pod that is gone from the API server.
func (sm *statusManager) forget(uid string) {
	delete(sm.entries, uid)
}

func (sm *statusManager) enqueue(uid string) {
	if sm.queued[uid] {
		return
	}
	sm.queued[uid] = true
	sm.queue = append(sm.queue, uid)
	if sm.proc != nil && !sm.tickPending {
		sm.proc.Unpark()
	}
}

// run is the status manager's process.
func (sm *statusManager) run(p *sim.Proc) {
	sm.proc = p
	for !sm.stopped {
		sm.kl.gate(p)
		if sm.batchDue {
			sm.batchDue = false
			sm.syncBatch()
		}
		if len(sm.queue) == 0 {
			sm.idle = true
			p.Park()
			sm.idle = false
			continue
		}
		// The queue moves down instead of its start moving up: a queue that empties and fills
		// again (most are one pod long) keeps its array instead of allocating at each enqueue.
		uid := sm.queue[0]
		n := copy(sm.queue, sm.queue[1:])
		sm.queue[n] = ""
		sm.queue = sm.queue[:n]
		delete(sm.queued, uid)
		sm.syncPod(p, uid)
	}
}

// syncBatch queues, in uid order, every pod whose status is not known to be written, or whose
// status on the API server (as the informer shows it) no longer matches what the kubelet wants
// (syncBatch(all=true): needsUpdate or needsReconcile). Only unsettled entries are examined
// (see statusManager); one found in order is settled, one queued stays unsettled, as its
// write may fail.
func (sm *statusManager) syncBatch() {
	if len(sm.unsettled) == 0 {
		return // a settled pod set: nothing to examine
	}
	uids := sm.unsettled
	sm.unsettled = sm.spareUnsettled[:0]
	slices.Sort(uids)
	uids = slices.Compact(uids)
	for _, uid := range uids {
		e, ok := sm.entries[uid]
		if !ok || !e.unsettled {
			continue
		}
		if sm.needsUpdate(e) || sm.needsReconcile(e) {
			sm.unsettled = append(sm.unsettled, uid)
			sm.enqueue(uid)
			continue
		}
		e.unsettled = false
	}
	clear(uids)
	sm.spareUnsettled = uids[:0]
}

func (sm *statusManager) needsUpdate(e *statusEntry) bool {
	if e.apiVersion < e.version {
		return true
	}
	if !e.finished {
		return false
	}
	pod, ok := sm.cachedPod(e)
	return ok && pod.DeletionTimestamp != nil
}

// needsReconcile reports whether the informer's copy of the pod carries a status other than
// the one the kubelet wants, after someone else wrote it.
func (sm *statusManager) needsReconcile(e *statusEntry) bool {
	pod, ok := sm.cachedPod(e)
	if !ok || pod.ResourceVersion == e.postedRV {
		return false
	}
	return !mergedStatusUnchanged(&pod.Status, e.status)
}

func (sm *statusManager) cachedPod(e *statusEntry) (*model.Pod, bool) {
	inf := sm.kl.informer
	if inf == nil {
		return nil, false
	}
	obj, ok := inf.GetByKey(e.key)
	if !ok {
		return nil, false
	}
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok || pod.UID != e.uid {
		return nil, false
	}
	return pod, true
}

// syncPod writes one pod's status (status_manager.go syncPod).
func (sm *statusManager) syncPod(p *sim.Proc, uid string) {
	kl := sm.kl
	e, ok := sm.entries[uid]
	if !ok {
		return
	}
	// The stored pod is shared: the write below sends a shallow copy with a new status, and
	// the server's answer is shared too (UpdateStatusShared), so a status write copies no pod.
	obj, err := kl.c.GetShared(ctx(p), model.KindPod, e.namespace, e.name)
	if err != nil {
		if apierrors.IsNotFound(err) {
			delete(sm.entries, uid)
		}
		return
	}
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok || pod.UID != uid {
		// Deleted and recreated under the same name: not ours any more.
		delete(sm.entries, uid)
		return
	}
	version := e.version
	if !mergedStatusUnchanged(&pod.Status, e.status) {
		write := *pod
		write.Status = mergePodStatus(&pod.Status, e.status)
		updated, err := kl.c.UpdateStatusShared(ctx(p), &write)
		if err != nil {
			if apierrors.IsConflict(err) {
				sm.enqueue(uid)
			}
			kl.emit("status-error", e.object, 0, err.Error())
			return
		}
		pod = updated.(*model.Pod)
		kl.emit("status", e.object, pod.ResourceVersion, describeStatus(&pod.Status))
	}
	if cur, ok := sm.entries[uid]; !ok || cur != e {
		return
	}
	e.apiVersion = version
	e.postedRV = pod.ResourceVersion
	sm.markUnsettled(e)
	if e.finished && pod.DeletionTimestamp != nil {
		// The options' three pointers point into one allocation.
		opts := &finalDeleteOptions{uid: uid}
		opts.preconditions.UID = &opts.uid
		err := kl.c.Delete(ctx(p), model.KindPod, e.namespace, e.name, model.DeleteOptions{
			GracePeriodSeconds: &opts.gracePeriodSeconds,
			Preconditions:      &opts.preconditions,
		})
		if err != nil && !apierrors.IsNotFound(err) {
			kl.emit("delete-error", e.object, 0, err.Error())
			return
		}
		delete(sm.entries, uid)
		kl.emit("pod-deleted", e.object, 0, "final delete, grace 0")
	}
}

// finalDeleteOptions is what the options of a pod's final delete point to: grace period 0
// and the pod's uid as precondition.
type finalDeleteOptions struct {
	gracePeriodSeconds int64
	preconditions      model.Preconditions
	uid                string
}

// describeStatus is a compact summary of a pod status for traces: phase, readiness and each
// container's state ("phase=Running ready=true app=running/r0/ready").
func describeStatus(s *model.PodStatus) string {
	var b strings.Builder
	b.Grow(32 + 48*len(s.ContainerStatuses))
	b.WriteString("phase=")
	b.WriteString(s.Phase)
	if podReady(s) {
		b.WriteString(" ready=true")
	} else {
		b.WriteString(" ready=false")
	}
	for i := range s.ContainerStatuses {
		cs := &s.ContainerStatuses[i]
		b.WriteByte(' ')
		b.WriteString(cs.Name)
		b.WriteByte('=')
		switch {
		case cs.State.Running != nil:
			b.WriteString("running")
		case cs.State.Waiting != nil:
			b.WriteString("waiting:")
			b.WriteString(cs.State.Waiting.Reason)
		case cs.State.Terminated != nil:
			b.WriteString("terminated:")
			b.WriteString(cs.State.Terminated.Reason)
			b.WriteByte('(')
			b.WriteString(strconv.FormatInt(int64(cs.State.Terminated.ExitCode), 10))
			b.WriteByte(')')
		default:
			b.WriteString("unknown")
		}
		b.WriteString("/r")
		b.WriteString(strconv.FormatInt(int64(cs.RestartCount), 10))
		if cs.Ready {
			b.WriteString("/ready")
		}
	}
	return b.String()
}
