package node

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// minimumGracePeriodInSeconds: containers always get at least this long between SIGTERM and
// SIGKILL (pkg/kubelet/kuberuntime/kuberuntime_container.go killContainer).
const minimumGracePeriodInSeconds = 2

// workerBackOffPeriodJitterFactor jitters a pod worker's retry after a failed sync
// (pkg/kubelet/pod_workers.go).
const workerBackOffPeriodJitterFactor = 0.5

// workerBackOffPeriod is the pod worker's retry after a failed sync before v1.35, whatever
// the error (pkg/kubelet/kubelet.go backOffPeriod = 10s, passed to newPodWorkers).
const workerBackOffPeriod = 10 * time.Second

// Kubelet event reasons (pkg/kubelet/events/event.go).
const (
	eventPulling   = "Pulling"
	eventPulled    = "Pulled"
	eventCreated   = "Created"
	eventStarted   = "Started"
	eventKilling   = "Killing"
	eventBackOff   = "BackOff"
	eventUnhealthy = "Unhealthy"
	// eventFailed is events.FailedToPullImage and events.FailedToCreateContainer, both
	// "Failed".
	eventFailed = "Failed"
	// eventInvalidAnnotation is the simulator's own reason for an ignored behaviour annotation.
	eventInvalidAnnotation = "InvalidSimulatorAnnotation"
)

// waitReason is one reason-cache entry (pkg/kubelet/reason_cache.go): why a container that
// should be running is not.
type waitReason struct {
	reason, message string
}

// containerView is a container as the kubelet's last generated status shows it; the probe
// workers read it, as upstream's read the status manager's cached status.
type containerView struct {
	id         uint64
	running    bool
	terminated bool
	startedAt  vtime.Time
}

// podWorker is upstream's per-pod worker (pkg/kubelet/pod_workers.go): one process per pod
// that serialises everything done to the pod: admission, SyncPod (sandbox, image pulls,
// container starts and restarts with CrashLoopBackOff), SyncTerminatingPod (SIGTERM, grace
// period, SIGKILL) and the hand-over of the final status to the status manager.
type podWorker struct {
	kl  *Kubelet
	uid string
	// key is the pod's namespace/name and objectName "Pod <key>", as traces name it; both
	// stay fixed, as a pod's name cannot change under its uid.
	key, objectName string
	// pod is the latest version the informer delivered (shared, read-only).
	pod *model.Pod
	rt  *podRuntime
	// beh is read-only: the pods without behaviour annotations (most of a large cluster's)
	// share defaultBehaviour.
	beh *behaviour

	// proc is the worker's process while it has work: it is started when the worker is woken
	// with none running, and ends when it finds nothing pending, so that an idle pod costs no
	// coroutine and stack (a settled pod's worker never starts one until something happens
	// to the pod). Starting a process schedules it at the current time exactly as unparking
	// a parked one does, so the order of events is the same as with one process per pod.
	proc    *sim.Proc
	pending bool

	adopted     bool
	admitted    bool
	rejected    bool
	terminating bool
	terminated  bool
	removed     bool

	probes  []containerProbes
	reasons []waitReason
	view    []containerView
	// lastStatus is the status the kubelet last generated (an adopted pod's: the stored
	// status it was adopted with); nil before the first. It is read-only and replaced whole,
	// but for its conditions, which setPodStatus replaces once with the status manager's.
	lastStatus *model.PodStatus

	// The two timers are held by value (sim.Kernel.InitTimer): the worker is never copied.
	plegTimer    sim.Timer
	requeueTimer sim.Timer

	// initialized is set once every init container completed (sidecars: started) in the
	// current sandbox; the regular containers start from then on (computeInitContainerActions).
	initialized bool
	// killWait is the container a sync waits for after killing it for a failed probe: SyncPod
	// kills synchronously and starts the container again in the same pass.
	killWait *containerRecord
	// killDeadline is the SIGKILL deadline of the pod's termination, shared by the containers
	// stopped in order (sidecars after the regular containers).
	killDeadline vtime.Time

	// requestsOf is the pod version requestCPU and requestMem were computed from.
	requestsOf             *model.Pod
	requestCPU, requestMem int64
}

// requests is podRequests of the worker's current pod, computed once per pod version, and
// not again for a version whose containers are the very ones it was computed from: the
// requests are a function of the containers and init containers alone, stored objects never
// change, and a status write's new version shares its spec with the version it replaces
// (every kubelet status write and most others), so admission (canAdmitPod sums every
// admitted pod's requests) rarely recomputes them.
func (w *podWorker) requests() (cpu, mem int64) {
	if w.requestsOf != w.pod {
		of := w.requestsOf
		w.requestsOf = w.pod
		if of == nil || !model.SameSlice(of.Spec.Containers, w.pod.Spec.Containers) ||
			!model.SameSlice(of.Spec.InitContainers, w.pod.Spec.InitContainers) {
			w.requestCPU, w.requestMem = podRequests(w.pod)
		}
	}
	return w.requestCPU, w.requestMem
}

// podWorkerOf1 is a worker with the per-container state of a one-container pod, most pods,
// allocated with it: one allocation instead of four.
type podWorkerOf1 struct {
	w       podWorker
	reasons [1]waitReason
	view    [1]containerView
	probes  [1]containerProbes
}

// allocPodWorker returns a zero worker whose per-container state (reasons, view, probes)
// has room for n containers.
func allocPodWorker(n int) *podWorker {
	if n == 1 {
		b := new(podWorkerOf1)
		b.w.reasons, b.w.view, b.w.probes = b.reasons[:], b.view[:], b.probes[:]
		return &b.w
	}
	return &podWorker{reasons: make([]waitReason, n), view: make([]containerView, n), probes: make([]containerProbes, n)}
}

func newPodWorker(kl *Kubelet, pod *model.Pod, adopt bool) *podWorker {
	// One string for both: "Pod <key>", and the key the end of it.
	objectName := model.Ref(pod)
	key := objectName[len(model.KindPod)+1:]
	beh, errs := parseBehaviour(pod.Annotations)
	for _, e := range errs {
		kl.rec.Eventf(pod, model.EventTypeWarning, eventInvalidAnnotation, "%s", e.Error())
		kl.emit("invalid-annotation", objectName, 0, e.Error())
	}

	// The worker is allocated once its runtime's containers, which size its per-container
	// state, are known.
	rt := kl.runtime[pod.UID]
	adopted, initialized := false, false
	switch {
	case rt != nil:
		rt.syncContainers(pod, kl.cfg.SidecarContainers)
		initialized = rt.sandboxReady && anyRegularCreated(rt)
	case adopt && pod.Status.Phase == model.PodRunning:
		rt = adoptRuntime(kl, pod, key)
		adopted, initialized = true, true
	default:
		rt = newPodRuntime(pod, key, kl.cfg.SidecarContainers)
	}
	kl.runtime[pod.UID] = rt
	w := allocPodWorker(len(rt.containers))
	w.kl, w.uid, w.key, w.objectName, w.pod, w.rt = kl, pod.UID, key, objectName, pod, rt
	w.adopted, w.admitted, w.initialized = adopted, adopted, initialized
	if beh == defaultBehaviour {
		w.beh = &defaultBehaviour
	} else {
		own := beh // only a pod with behaviour annotations allocates its own
		w.beh = &own
	}
	wake := w.wake // one method value for both timers
	kl.k.InitTimer(&w.plegTimer, wake)
	kl.k.InitTimer(&w.requeueTimer, wake)

	for i, cr := range rt.containers {
		if cr.init && !cr.sidecar {
			// Plain init containers have no probes (the API server refuses them).
			continue
		}
		w.probes[i] = newContainerProbes(w, i, w.spec(i))
	}
	if w.adopted {
		// A settled pod keeps the status it has: the status manager starts from it and the
		// worker waits for something to change.
		for i, cr := range rt.containers {
			w.view[i] = containerView{id: cr.id, running: cr.running, terminated: !cr.running && cr.id != 0, startedAt: cr.startedAt}
			w.adoptReadiness(i)
		}
		// lastStatus is only read and replaced whole, never changed in place, so it may be
		// the shared informer object's own status, as the status manager's seed is.
		w.lastStatus = &pod.Status
		kl.status.seed(w)
		kl.emit("adopt", w.objectName, pod.ResourceVersion, "")
		w.pending = pod.DeletionTimestamp != nil
	} else {
		w.pending = true
	}
	for i := range w.probes {
		cp := &w.probes[i]
		cp.start()
	}
	if w.pending {
		w.start()
	}
	return w
}

// start starts the worker's process (see proc).
func (w *podWorker) start() {
	w.proc = w.kl.k.Spawn(w.kl.component+"/pod/"+w.key, w.run)
}

// spec returns the spec of container i (init containers first, then regular ones).
func (w *podWorker) spec(i int) *model.Container { return containerSpec(w.pod, w.rt.nInit, i) }

// statusOf finds the container's status in a pod status (init or regular).
func statusOf(st *model.PodStatus, cr *containerRecord) *model.ContainerStatus {
	list := st.ContainerStatuses
	if cr.init {
		list = st.InitContainerStatuses
	}
	for i := range list {
		if list[i].Name == cr.name {
			return &list[i]
		}
	}
	return nil
}

// anyRegularCreated reports whether a regular container was ever started: the pod was
// initialized (hasAnyRegularContainerCreated).
func anyRegularCreated(rt *podRuntime) bool {
	for _, cr := range rt.regular() {
		if cr.id != 0 {
			return true
		}
	}
	return false
}

// adoptRuntime builds runtime state from a Running pod's status, for a settled start: the
// containers the status shows running are running since their startedAt, with their restart
// counts; their scripted exits are scheduled from that start. Init containers the status does
// not show completed when the pod started, and sidecars it does not show run since then.
func adoptRuntime(kl *Kubelet, pod *model.Pod, key string) *podRuntime {
	rt := newPodRuntime(pod, key, kl.cfg.SidecarContainers)
	rt.setSandbox(true, kl.k.Now())
	rt.sandboxes = 1
	rt.podIP = pod.Status.PodIP
	if rt.podIP == "" {
		rt.podIP = kl.allocIP()
	}
	beh, _ := parseBehaviour(pod.Annotations)
	now := kl.k.Now()
	for _, cr := range rt.containers {
		if at, ok := kl.images[cr.image]; cr.image != "" && (!ok || at > now) {
			// A running container's image is on the node.
			kl.images[cr.image] = now
		}
		cs := statusOf(&pod.Status, cr)
		if cr.init && (cs == nil || (!cr.sidecar && cs.State.Running == nil)) {
			// A Running pod's init containers are done: a plain one completed, a sidecar runs.
			started := now
			if pod.Status.StartTime != nil {
				started = min(*pod.Status.StartTime, now)
			}
			cr.id = kl.newContainerID()
			cr.startedAt, cr.finishedAt, cr.reason = started, started, reasonCompleted
			if t := cs; t != nil && t.State.Terminated != nil {
				cr.startedAt, cr.finishedAt = t.State.Terminated.StartedAt, t.State.Terminated.FinishedAt
				cr.exitCode, cr.reason = t.State.Terminated.ExitCode, t.State.Terminated.Reason
			}
			if cr.sidecar {
				cr.running, cr.finishedAt, cr.reason = true, 0, ""
				kl.armExit(rt, cr, beh, now)
			}
			continue
		}
		if cs == nil || cs.State.Running == nil {
			continue
		}
		cr.id = kl.newContainerID()
		cr.running = true
		cr.startedAt = min(cs.State.Running.StartedAt, now)
		cr.restartCount = cs.RestartCount
		if cs.LastState.Terminated != nil {
			t := *cs.LastState.Terminated
			cr.last = &t
		}
		kl.armExit(rt, cr, beh, now)
	}
	return rt
}

// update takes a new version of the pod from the informer and wakes the worker when the
// kubelet has something to do about it: a deletion began or its grace period shrank. Status
// echoes of the kubelet's own writes do not sync the pod (upstream reconciles them through
// the status manager).
func (w *podWorker) update(pod *model.Pod) {
	old := w.pod
	w.pod = pod
	if pod.DeletionTimestamp != nil && (old.DeletionTimestamp == nil || graceChanged(old, pod)) {
		w.wake()
	}
	if w.terminated && pod.DeletionTimestamp != nil {
		w.kl.status.requeue(w.uid)
	}
}

func graceChanged(old, cur *model.Pod) bool {
	a, b := old.DeletionGracePeriodSeconds, cur.DeletionGracePeriodSeconds
	return (a == nil) != (b == nil) || (a != nil && *a != *b)
}

// wake asks the worker to sync.
func (w *podWorker) wake() {
	if w.removed {
		return
	}
	w.pending = true
	switch {
	case w.proc == nil || w.proc.Finished():
		w.start()
	case w.proc.Parked():
		w.proc.Unpark()
	}
}

// wakeAtRelist wakes the worker at the PLEG relist that will notice a container change.
func (w *podWorker) wakeAtRelist() {
	at := w.kl.plegTime(w.kl.k.Now())
	if when, armed := w.plegTimer.When(); armed && when <= at {
		return
	}
	w.plegTimer.ResetAt(at)
}

// run syncs the pod while there is something pending, then ends (see proc).
func (w *podWorker) run(p *sim.Proc) {
	for !w.removed && w.pending {
		w.kl.gate(p)
		w.pending = false
		w.sync(p)
	}
}

// stop ends the worker's process and timers (kubelet stop); the runtime state stays.
func (w *podWorker) stop() {
	w.removed = true
	w.plegTimer.Stop()
	w.requeueTimer.Stop()
	for i := range w.probes {
		cp := &w.probes[i]
		cp.stop()
	}
	if w.proc != nil {
		w.proc.Kill()
	}
}

// remove handles the pod's removal from the API server: the worker stops and any container
// still running is killed at once. Upstream would still give such containers their grace
// period; as the pod is gone, nothing but events could show the difference.
func (w *podWorker) remove() {
	kl := w.kl
	for _, cr := range w.rt.containers {
		if cr.running {
			kl.rec.Eventf(w.pod, model.EventTypeNormal, eventKilling, "Stopping container %s", cr.name)
		}
	}
	w.rt.stopAll(kl)
	w.stop()
	for _, cr := range w.rt.containers {
		kl.backoff.Reset(w.backoffKey(cr.name))
		kl.imageBackoff.Reset(w.imageBackoffKey(cr.image))
	}
	delete(kl.runtime, w.uid)
	kl.emit("pod-removed", w.objectName, w.pod.ResourceVersion, "")
}

// backoffKey is the container's key in the CrashLoopBackOff table (kuberuntime getStableKey,
// without the spec hash).
func (w *podWorker) backoffKey(container string) string {
	return w.pod.Namespace + "_" + w.pod.Name + "_" + w.uid + "_" + container
}

// imageBackoffKey is the image's key in the image pull back-off table (image_manager.go
// EnsureImageExists: "<pod uid>_<image>").
func (w *podWorker) imageBackoffKey(image string) string { return w.uid + "_" + image }

func (w *podWorker) object() string { return w.objectName }

// sync is one round of the pod worker: admission the first time, then SyncPod or
// SyncTerminatingPod.
func (w *podWorker) sync(p *sim.Proc) {
	if w.terminated {
		return
	}
	pod := w.pod
	if !w.admitted {
		if isTerminalPhase(pod.Status.Phase) {
			// Finished before this kubelet saw it (an earlier incarnation): nothing runs.
			w.terminated = true
			st := pod.Status
			w.lastStatus = &st
			w.kl.status.setPodStatus(w, true)
			return
		}
		if !w.admit() {
			return
		}
	}
	if pod.DeletionTimestamp != nil || w.terminating {
		w.syncTerminating()
		return
	}
	w.generateStatus(w.kl.lastRelist(), false)
	w.kl.status.setPodStatus(w, false)
	if isTerminalPhase(w.lastStatus.Phase) {
		w.terminating = true
		w.syncTerminating()
		return
	}
	w.syncContainers(p)
}

// admit runs the kubelet's resource admission (lifecycle predicateAdmitHandler with the
// scheduler's noderesources fit): the pod must fit the node's allocatable pods, cpu and memory
// next to the pods already admitted and not finished. A rejected pod fails with reason
// OutOf<resource> and never runs.
func (w *podWorker) admit() bool {
	kl := w.kl
	ok, reason, message := kl.canAdmitPod(w)
	if ok {
		w.admitted = true
		return true
	}
	w.rejected = true
	w.terminated = true
	kl.rec.Eventf(w.pod, model.EventTypeWarning, reason, "%s", message)
	st := model.PodStatus{Phase: model.PodFailed, Reason: reason, Message: "Pod was rejected: " + message}
	if c := findCondition(w.pod.Status.Conditions, model.PodScheduled); c != nil {
		st.Conditions = []model.PodCondition{*c}
	}
	w.lastStatus = &st
	kl.status.setPodStatus(w, true)
	kl.emit("reject", w.object(), w.pod.ResourceVersion, reason+": "+message)
	return false
}

// syncContainers is the runtime part of SyncPod (kuberuntime_manager.go computePodActions
// and SyncPod, k/k v1.33, reduced): create the sandbox if there is none; kill a running
// container whose liveness or startup probe failed and start it again in the same pass;
// run the init containers in order (kuberuntime_container.go computeInitContainerActions:
// the next one starts when the previous one exited with 0, or, for a sidecar, once it runs
// and its startup probe passed); once they are done, start every regular container that
// never ran and restart every exited one the restart policy wants back, and keep the
// sidecars running, each restart unless it is backing off. When no regular container runs or
// will run again, the sidecars are stopped (computePodActions' KillPod with keepCount 0).
func (w *podWorker) syncContainers(p *sim.Proc) {
	kl := w.kl
	pod := w.pod
	rt := w.rt
	if !rt.sandboxReady {
		// A new sandbox for a Never pod whose containers already ran would run them again;
		// upstream creates none and lets the pod finish.
		if rt.sandboxes > 0 && pod.Spec.RestartPolicy == model.RestartPolicyNever && anyCreated(rt) {
			return
		}
		d := kl.sandboxStart.Sample(kl.runRand)
		p.Sleep(d)
		if w.aborted() {
			return
		}
		rt.setSandbox(true, kl.k.Now())
		rt.sandboxes++
		// A new sandbox starts from the initial state: init containers run again.
		w.initialized = false
		if rt.podIP == "" {
			rt.podIP = kl.allocIP()
		}
		kl.emit("sandbox", w.object(), 0, sandboxDetail(rt.podIP, d))
		w.wakeAtRelist()
	}
	sc := syncCycle{backoffUntil: vtime.Never}
	var handled []*containerRecord
	for _, cr := range rt.containers {
		if w.aborted() {
			return
		}
		if cr.running && (!cr.init || cr.sidecar) && w.restartIfProbeFailed(p, cr, &sc) {
			handled = append(handled, cr)
		}
	}
	if !w.initialized && !w.syncInit(p, &sc) {
		w.finishCycle(&sc)
		return
	}
	keep := false
	for _, cr := range rt.containers {
		if w.aborted() {
			return
		}
		switch {
		case cr.init && !cr.sidecar, slices.Contains(handled, cr):
			continue
		case cr.running:
			keep = keep || !cr.init
			continue
		case cr.id != 0 && !cr.sidecar && !shouldRestart(pod.Spec.RestartPolicy, cr.exitCode):
			continue
		}
		if !cr.init {
			keep = true
		} else if !anyRegularWanted(w) {
			// No regular container runs or will run again: sidecars are not restarted.
			continue
		}
		w.startWithBackOff(p, cr, &sc)
	}
	if !keep && rt.nInit > 0 && !w.aborted() {
		w.stopSidecars()
	}
	w.finishCycle(&sc)
}

// anyRegularWanted reports whether a regular container runs or the restart policy wants one
// back (computePodActions' keepCount or ContainersToStart).
func anyRegularWanted(w *podWorker) bool {
	for _, cr := range w.rt.regular() {
		if cr.running || cr.id == 0 || shouldRestart(w.pod.Spec.RestartPolicy, cr.exitCode) {
			return true
		}
	}
	return false
}

// syncCycle collects what one pass of syncContainers found: the earliest back-off expiry, a
// pod-worker retry after a failed image pull, and whether a waiting reason changed.
type syncCycle struct {
	backoffUntil   vtime.Time
	retryAfterPull bool
	reasonsChanged bool
}

// finishCycle arranges the pod worker's retry after a sync that failed (pod_workers.go
// completeWork) and publishes a changed waiting reason.
func (w *podWorker) finishCycle(sc *syncCycle) {
	kl := w.kl
	switch {
	case sc.backoffUntil != vtime.Never:
		w.requeueTimer.Reset(kl.jitter(kl.backOffRetryAfter(sc.backoffUntil), workerBackOffPeriodJitterFactor))
	case sc.retryAfterPull:
		// An image pull error carries no back-off expiry (#133066 propagates only the
		// crash-loop one): the worker retries after backOffPeriod, jittered.
		w.requeueTimer.Reset(kl.jitter(workerBackOffPeriod, workerBackOffPeriodJitterFactor))
	}
	if sc.reasonsChanged {
		// The waiting reason reaches the API with the status generated from the new reason
		// cache entry. Upstream shows it at the next sync; publishing it now is what
		// `kubectl get pods` shows on a real node within a second or two of the BackOff event.
		w.generateStatus(w.kl.lastRelist(), false)
		w.kl.status.setPodStatus(w, false)
	}
}

// setReason records a waiting reason for container i (the reason cache) and notes a change.
func (w *podWorker) setReason(i int, r waitReason, sc *syncCycle) {
	if w.reasons[i] != r {
		w.reasons[i] = r
		sc.reasonsChanged = true
	}
}

// syncInit runs the init containers in order (computeInitContainerActions): it starts the
// first one that has not completed in this sandbox, restarts a failed one the restart policy
// wants back (with back-off), and waits for a running one. It reports whether every init
// container is done (plain ones exited with 0, sidecars running and started), and marks the
// pod initialized then.
func (w *podWorker) syncInit(p *sim.Proc, sc *syncCycle) bool {
	rt := w.rt
	relist := w.kl.lastRelist()
	for i := 0; i < rt.nInit; i++ {
		if w.aborted() {
			return false
		}
		cr := rt.containers[i]
		ran := cr.id != 0 && cr.startedAt >= rt.sandboxChangedAt
		switch {
		case !ran:
			w.startContainer(p, cr.idx)
			return false
		case cr.changedAt > relist:
			// The kubelet acts on the runtime state its last PLEG relist saw: a start or exit
			// since then is not known yet.
			return false
		case cr.running && cr.sidecar:
			if !w.containerStartedNow(cr) {
				return false
			}
			continue
		case cr.running:
			return false
		case cr.sidecar:
			w.startWithBackOff(p, cr, sc)
			return false
		case cr.exitCode == 0:
			continue
		case w.pod.Spec.RestartPolicy == model.RestartPolicyNever:
			// The pod fails (getPhase: failed initialization under Never).
			return false
		default:
			w.startWithBackOff(p, cr, sc)
			return false
		}
	}
	w.initialized = true
	return true
}

// containerStartedNow reports whether a running container counts as started for the next
// init container: its startup probe passed, or it has none.
func (w *podWorker) containerStartedNow(cr *containerRecord) bool {
	cp := &w.probes[cr.idx]
	if cp.startup == nil {
		return true
	}
	r, ok := cp.startup.st.get(cr.id)
	return ok && r == resultSuccess
}

// startWithBackOff restarts an exited container unless it is backing off
// (kuberuntime_container.go doBackOff: the back-off is measured from the exit).
func (w *podWorker) startWithBackOff(p *sim.Proc, cr *containerRecord, sc *syncCycle) {
	if cr.id == 0 {
		w.startContainer(p, cr.idx)
		return
	}
	if w.inCrashLoopBackOff(cr, cr.finishedAt, sc) {
		return
	}
	w.startContainer(p, cr.idx)
}

// inCrashLoopBackOff is doBackOff for a container whose last exit was at finished: if the
// container's back-off has not passed it records CrashLoopBackOff (reason, BackOff event,
// retry time) and reports true; otherwise it advances the back-off.
func (w *podWorker) inCrashLoopBackOff(cr *containerRecord, finished vtime.Time, sc *syncCycle) bool {
	kl := w.kl
	pod := w.pod
	key := w.backoffKey(cr.name)
	now := kl.k.Now()
	if kl.backoff.IsInBackOffSince(key, finished, now) {
		d := kl.backoff.Get(key)
		msg := fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", d, cr.name, formatPod(pod))
		w.setReason(cr.idx, waitReason{reasonCrashLoopBackOff, msg}, sc)
		kl.rec.Eventf(pod, model.EventTypeWarning, eventBackOff, "Back-off restarting failed container %s in pod %s", cr.name, formatPod(pod))
		sc.backoffUntil = min(sc.backoffUntil, finished.Add(d))
		kl.emit("backoff", w.object(), 0, fmt.Sprintf("container=%s delay=%s until=%s", cr.name, d, finished.Add(d)))
		return true
	}
	kl.backoff.Next(key, finished, now)
	return false
}

// restartIfProbeFailed kills a running container whose liveness or startup probe failed
// (computePodActions: "Container %s failed liveness probe, will be restarted"; a sidecar's
// is computeInitContainerActions' "Init container %s failed liveness probe") and, as SyncPod
// does, waits for it to stop and starts it again in the same pass, unless the restart policy
// says Never (then the pod goes on without it). The back-off is doBackOff's: measured from
// the exit of the instance before the killed one, so a container that ran longer than its
// back-off is restarted at once, and the back-off grows by one step.
// It reports whether it killed the container.
func (w *podWorker) restartIfProbeFailed(p *sim.Proc, cr *containerRecord, sc *syncCycle) bool {
	if cr.stopping {
		return false
	}
	cp := &w.probes[cr.idx]
	what := ""
	if cp.liveness != nil {
		if r, ok := cp.liveness.st.get(cr.id); ok && r == resultFailure {
			what = "liveness"
		}
	}
	if what == "" && cp.startup != nil {
		if r, ok := cp.startup.st.get(cr.id); ok && r == resultFailure {
			what = "startup"
		}
	}
	if what == "" {
		return false
	}
	restart := cr.sidecar || w.pod.Spec.RestartPolicy != model.RestartPolicyNever
	msg := fmt.Sprintf("Container %s failed %s probe", cr.name, what)
	if cr.sidecar {
		msg = fmt.Sprintf("Init container %s failed %s probe", cr.name, what)
	} else if restart {
		msg += ", will be restarted"
	}
	var prevExit vtime.Time
	hadExit := cr.last != nil
	if hadExit {
		prevExit = cr.last.FinishedAt
	}
	w.kill(cr, msg, w.specGraceSeconds())
	if !restart {
		return true
	}
	// killContainer returns once the runtime stopped the container.
	for cr.running && !w.aborted() {
		w.killWait = cr
		p.Park()
	}
	w.killWait = nil
	if w.aborted() || (hadExit && w.inCrashLoopBackOff(cr, prevExit, sc)) {
		return true
	}
	w.startContainer(p, cr.idx)
	return true
}

// stopSidecars stops the running sidecars once no regular container runs or will run
// (computePodActions' KillPod, killPodWithSyncResult), last one first.
func (w *podWorker) stopSidecars() {
	w.killOrdered(w.specGraceSeconds())
}

// killOrdered stops every running container with a grace period of graceSeconds
// (killContainersWithSyncResult with its terminationOrdering, kuberuntime_container.go and
// kuberuntime_termination_order.go, k/k v1.33): every container gets its Killing event at
// once; the regular (and plain init) containers get SIGTERM at once; a sidecar gets it only
// when the regular containers and the sidecars after it have exited, with what is left of
// the pod's grace period (at least minimumGracePeriodInSeconds). It is called again whenever
// a container exits. It reports whether no container runs any more.
func (w *podWorker) killOrdered(graceSeconds int64) bool {
	kl := w.kl
	now := kl.k.Now()
	if d := now.Add(time.Duration(graceSeconds) * time.Second); w.killDeadline == 0 || d < w.killDeadline {
		w.killDeadline = d
	}
	waiting := false
	for _, cr := range w.rt.containers {
		if cr.running && !cr.sidecar {
			w.kill(cr, stoppingMessage(cr.name), graceSeconds)
			waiting = true
		}
	}
	for i := w.rt.nInit - 1; i >= 0; i-- {
		cr := w.rt.containers[i]
		if !cr.running || !cr.sidecar {
			continue
		}
		if waiting {
			w.announceKill(cr, stoppingMessage(cr.name))
			continue
		}
		left := int64(w.killDeadline.Sub(now) / time.Second)
		w.kill(cr, stoppingMessage(cr.name), left)
		waiting = true
	}
	return !w.rt.anyRunning()
}

// aborted reports whether the current sync should stop early: the pod is being deleted or the
// worker is going away (upstream cancels the sync's context).
func (w *podWorker) aborted() bool {
	return w.removed || w.pod.DeletionTimestamp != nil
}

func anyCreated(rt *podRuntime) bool {
	for _, cr := range rt.containers {
		if cr.id != 0 {
			return true
		}
	}
	return false
}

// shouldRestart is the restart policy's verdict on an exited container (kubecontainer
// ShouldContainerBeRestarted, for a pod that is not being deleted).
func shouldRestart(policy string, exitCode int32) bool {
	switch policy {
	case model.RestartPolicyNever:
		return false
	case model.RestartPolicyOnFailure:
		return exitCode != 0
	}
	return true
}

// startContainer pulls the image if needed, then creates and starts container i
// (kuberuntime_container.go startContainer), with the upstream events. A failed pull leaves
// the container waiting in ErrImagePull or ImagePullBackOff and the worker retrying.
func (w *podWorker) startContainer(p *sim.Proc, i int) {
	kl := w.kl
	c := w.spec(i)
	cr := w.rt.containers[i]
	if !w.ensureImage(p, i, c.Image) {
		return
	}
	d := kl.containerStart.Sample(kl.runRand)
	p.Sleep(d)
	if w.aborted() {
		return
	}
	now := kl.k.Now()
	cr.begin(kl.newContainerID(), now)
	w.reasons[i] = waitReason{}
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventCreated, "Created container: %s", c.Name)
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventStarted, "Started container %s", c.Name)
	kl.emit("container-start", w.object(), 0, containerStartDetail(c.Name, cr.restartCount, d))
	kl.armExit(w.rt, cr, *w.beh, now)
	w.wakeAtRelist()
}

// armExit schedules the scripted exit of a running container instance, if its pod's
// behaviour has one, measured from the instance's start (not before now). A plain init
// container exits after the init duration with the init exit code.
func (kl *Kubelet) armExit(rt *podRuntime, cr *containerRecord, beh behaviour, now vtime.Time) {
	if !cr.exitTimerSet {
		kl.k.InitTimer(&cr.exitTimer, func() { kl.containerExitFired(rt, cr) })
		cr.exitTimerSet = true
	}
	if cr.init && !cr.sidecar {
		cr.scheduleExit(max(cr.startedAt.Add(beh.initDuration), now), beh.initExitCode)
		return
	}
	if cr.sidecar {
		// A sidecar runs until stopped: exit-after (a workload running to completion) is the
		// app's; crash-after still applies.
		beh.exits, beh.exitDist = false, nil
	}
	if after, code, ok := beh.exitAfterStart(kl.runRand); ok {
		cr.scheduleExit(max(cr.startedAt.Add(after), now), code)
	}
}

// containerExitFired ends a container instance whose exit time came, and tells its pod
// worker, if the kubelet is running one: a terminating pod learns at once (its kill is
// synchronous upstream), any other at the next PLEG relist.
func (kl *Kubelet) containerExitFired(rt *podRuntime, cr *containerRecord) {
	if !cr.running {
		return
	}
	code := cr.pendingExitCode
	cr.exit(kl.k.Now(), code, exitReason(code))
	kl.emit("container-exit", "Pod "+rt.key, 0, containerExitDetail(cr.name, code))
	w, ok := kl.workers[rt.uid]
	if !ok || w.rt != rt {
		return
	}
	if w.killWait == cr {
		// The sync that killed it goes on (restartIfProbeFailed).
		w.proc.Unpark()
		return
	}
	if w.terminating {
		w.wake()
		return
	}
	w.wakeAtRelist()
}

// ensureImage makes sure image is on the node for container i (image_manager.go
// EnsureImageExists with imagePullPolicy IfNotPresent, k/k v1.33): an image already present
// costs nothing; otherwise, unless the pod's pulls of it are backing off, it is pulled, one
// pull at a time when pulls are serialised, and a pull of the same image already under way is
// waited for. A pull that fails (the image-pull-fail annotation) records the Failed events,
// advances the image back-off (10s doubling to 300s, keyed by pod and image) and leaves the
// container waiting in ErrImagePull; while the back-off lasts the next attempts record
// BackOff and ImagePullBackOff instead of pulling (the pod worker retries after its
// backOffPeriod). It reports false if the image is not there or the sync was aborted.
func (w *podWorker) ensureImage(p *sim.Proc, i int, image string) bool {
	kl := w.kl
	now := kl.k.Now()
	if image == "" {
		return true
	}
	if at, ok := kl.images[image]; ok && at <= now {
		kl.rec.Eventf(w.pod, model.EventTypeNormal, eventPulled, "Container image %q already present on machine", image)
		return true
	}
	key := w.imageBackoffKey(image)
	if kl.imageBackoff.IsInBackOffSinceUpdate(key, now) {
		msg := fmt.Sprintf("Back-off pulling image %q", image)
		kl.rec.Eventf(w.pod, model.EventTypeNormal, eventBackOff, "%s", msg)
		w.pullFailed(i, waitReason{reasonImagePullBackOff, msg})
		return false
	}
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventPulling, "Pulling image %q", image)
	var pullDuration time.Duration
	end, inFlight := kl.images[image]
	registryDown := now < kl.pullFailUntil
	fails := w.beh.imagePullFails || registryDown
	if inFlight && !fails {
		pullDuration = end.Sub(now)
	} else {
		begin := now
		if kl.cfg.SerializeImagePulls {
			begin = max(now, kl.pullFreeAt)
		}
		pullDuration = kl.imagePull.Sample(kl.pullRand)
		end = begin.Add(pullDuration)
		if !fails {
			kl.images[image] = end
		}
		if kl.cfg.SerializeImagePulls {
			kl.pullFreeAt = end
		}
	}
	p.SleepUntil(end)
	if w.aborted() {
		return false
	}
	total := kl.k.Now().Sub(now)
	if fails {
		// The runtime's error, as the kubelet passes it on (evalCRIPullErr).
		cause := fmt.Sprintf("simulated pull failure (%s)", AnnotationImagePullFail)
		if registryDown {
			cause = fmt.Sprintf("simulated pull failure (image-pull-failure on node %s)", kl.nodeName)
		}
		kl.rec.Eventf(w.pod, model.EventTypeWarning, eventFailed, "Failed to pull image %q: %s", image, cause)
		kl.imageBackoff.Next(key, kl.k.Now(), kl.k.Now())
		w.pullFailed(i, waitReason{reasonErrImagePull, cause})
		kl.emit("image-pull-failed", w.object(), 0, fmt.Sprintf("image=%s took=%s backoff=%s", image, pullDuration, kl.imageBackoff.Get(key)))
		return false
	}
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventPulled, "Successfully pulled image %q in %s (%s including waiting)",
		image, pullDuration.Truncate(time.Millisecond), total.Truncate(time.Millisecond))
	kl.emit("image-pulled", w.object(), 0, fmt.Sprintf("image=%s took=%s waited=%s", image, pullDuration, total))
	return true
}

// pullFailed is startContainer's error path for a failed EnsureImageExists: the Failed event
// "Error: <reason>", the reason cache entry, the status, and the worker's retry.
func (w *podWorker) pullFailed(i int, r waitReason) {
	kl := w.kl
	kl.rec.Eventf(w.pod, model.EventTypeWarning, eventFailed, "Error: %s", r.reason)
	sc := syncCycle{backoffUntil: vtime.Never, retryAfterPull: true}
	w.setReason(i, r, &sc)
	w.finishCycle(&sc)
}

// kill sends SIGTERM to a running container with a grace period of graceSeconds (at least
// minimumGracePeriodInSeconds), recording the Killing event with message. The container exits
// with 0 after its termination delay, or is killed with 137 at the deadline if it has not;
// a hung one always is.
func (w *podWorker) kill(cr *containerRecord, message string, graceSeconds int64) {
	kl := w.kl
	now := kl.k.Now()
	graceSeconds = max(graceSeconds, minimumGracePeriodInSeconds)
	deadline := now.Add(time.Duration(graceSeconds) * time.Second)
	if !cr.stopping {
		w.announceKill(cr, message)
		kl.emit("container-kill", w.object(), 0, fmt.Sprintf("container=%s grace=%ds", cr.name, graceSeconds))
	}
	termDelay := w.beh.terminationDelay
	if (!cr.init || cr.sidecar) && w.beh.hung(now.Sub(cr.startedAt)) {
		// A hung application (hang-after, a deadlocked process: the reason its liveness probe
		// fails) does not act on SIGTERM; the runtime kills it at the end of the grace period
		// (StopContainer's timeout, then SIGKILL): exit code 137, reason Error
		// (kuberuntime_container.go killContainer). Under restartPolicy Never the pod then
		// fails (pkg/kubelet/kubelet_pods.go getPhase: a container that exited non-zero).
		termDelay = deadline.Sub(now)
	}
	cr.signalTerm(now, deadline, termDelay)
}

// announceKill records the Killing event for a container instance, once.
func (w *podWorker) announceKill(cr *containerRecord, message string) {
	if !cr.killAnnounced {
		cr.killAnnounced = true
		w.kl.rec.Eventf(w.pod, model.EventTypeNormal, eventKilling, "%s", message)
	}
}

// specGraceSeconds is the pod's terminationGracePeriodSeconds (default 30).
func (w *podWorker) specGraceSeconds() int64 {
	if g := w.pod.Spec.TerminationGracePeriodSeconds; g != nil {
		return *g
	}
	return model.DefaultTerminationGracePeriodSeconds
}

// deletionGraceSeconds is the grace period of the pod's deletion: deletionGracePeriodSeconds
// when set, else the spec's.
func (w *podWorker) deletionGraceSeconds() int64 {
	if g := w.pod.DeletionGracePeriodSeconds; g != nil {
		return *g
	}
	return w.specGraceSeconds()
}

// syncTerminating is SyncTerminatingPod: post the current status, stop every running
// container with the deletion's grace period, and once none runs, stop probing, tear down the
// sandbox and hand the final status to the status manager, which posts it and, for a
// deleted pod, removes the pod from the API server.
func (w *podWorker) syncTerminating() {
	kl := w.kl
	if !w.terminating {
		w.terminating = true
		w.generateStatus(w.kl.lastRelist(), false)
		kl.status.setPodStatus(w, false)
	}
	w.requeueTimer.Stop()
	if !w.killOrdered(w.deletionGraceSeconds()) {
		return
	}
	for i := range w.probes {
		cp := &w.probes[i]
		cp.stop()
	}
	w.rt.setSandbox(false, kl.k.Now())
	w.plegTimer.Stop()
	// Nothing will be restarted any more: a back-off reason no longer applies.
	for i := range w.reasons {
		w.reasons[i] = waitReason{}
	}
	// The final status comes from the runtime directly, not from the last relist.
	w.generateStatus(kl.k.Now(), true)
	w.terminated = true
	kl.status.setPodStatus(w, true)
	kl.emit("pod-terminated", w.object(), 0, "phase="+w.lastStatus.Phase)
}

// generateStatus is generateAPIPodStatus: the pod status from the runtime state as the
// kubelet saw it at time relist (its last PLEG relist, or now where upstream asks the runtime
// directly), the reason cache and the probe results. It also refreshes the view the probe
// workers read. A pod with init containers gets their statuses in initContainerStatuses; its
// containers wait with reason PodInitializing until they start (convertToAPIContainerStatuses).
// The status becomes w.lastStatus, for setPodStatus, which every caller calls next.
func (w *podWorker) generateStatus(relist vtime.Time, podIsTerminal bool) {
	pod := w.pod
	rt := w.rt
	mem := allocGeneratedStatus(len(rt.containers), rt.nInit, len(pod.Spec.Containers))
	s := mem.status
	defaultWaiting := reasonContainerCreating
	if rt.nInit > 0 {
		defaultWaiting = reasonPodInitializing
	}
	for i, cr := range rt.containers {
		c := w.spec(i)
		seen := seenAt(cr, relist)
		cs := model.ContainerStatus{Name: c.Name, Image: c.Image, RestartCount: seen.restartCount}
		switch {
		case seen.id == 0:
			mem.waiting[i] = model.ContainerStateWaiting{Reason: defaultWaiting}
			cs.State.Waiting = &mem.waiting[i]
		case seen.running:
			mem.running[i] = model.ContainerStateRunning{StartedAt: seen.startedAt}
			cs.State.Running = &mem.running[i]
		default:
			cs.State.Terminated = seen.terminated
		}
		cs.LastState.Terminated = seen.last
		if r := w.reasons[i]; r.reason != "" && !seen.running {
			if cs.State.Terminated != nil {
				cs.LastState.Terminated = cs.State.Terminated
			}
			// The waiting state replaces whatever state cs had, so it may take its memory.
			mem.waiting[i] = model.ContainerStateWaiting{Reason: r.reason, Message: r.message}
			cs.State = model.ContainerState{Waiting: &mem.waiting[i]}
		}
		w.view[i] = containerView{id: seen.id, running: seen.running, terminated: !seen.running && seen.id != 0, startedAt: seen.startedAt}
		started := seen.running && w.containerStarted(i)
		mem.started[i] = started
		cs.Started = &mem.started[i]
		if cr.init && !cr.sidecar {
			// prober_manager.go UpdatePodStatus: a plain init container is ready once it
			// completed.
			cs.Ready = cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0
			s.InitContainerStatuses[i] = cs
			continue
		}
		cs.Ready = started && w.containerReady(i)
		if cr.init {
			s.InitContainerStatuses[i] = cs
		} else {
			s.ContainerStatuses[i-rt.nInit] = cs
		}
	}
	s.Phase = getPhase(pod.Spec.RestartPolicy, s.ContainerStatuses, podIsTerminal)
	if rt.nInit > 0 {
		s.Phase = w.phaseWithInit(s, podIsTerminal)
	}
	sandboxReady := rt.sandboxReady
	if rt.sandboxChangedAt > relist {
		sandboxReady = !sandboxReady
	}
	sandbox := model.PodCondition{Type: model.PodReadyToStartContainers, Status: model.ConditionFalse}
	if sandboxReady {
		sandbox.Status = model.ConditionTrue
	}
	containersReady, ready := readyConditions(w.readinessStatuses(s), s.Phase)
	// The conditions are built in the kubelet's scratch slice: the status manager's
	// setPodStatus, which every caller calls next, gives lastStatus conditions of its own.
	s.Conditions = append(w.kl.podConditionsScratch[:0],
		sandbox,
		w.initializedCondition(s),
		ready,
		containersReady,
		model.PodCondition{Type: model.PodScheduled, Status: model.ConditionTrue},
	)
	w.kl.podConditionsScratch = s.Conditions
	// The IP appears once the first sandbox is seen, and stays after the sandbox goes.
	if rt.podIP != "" && (sandboxReady || rt.sandboxes > 1 || !rt.sandboxReady) {
		s.PodIP = rt.podIP
	}
	w.lastStatus = s
}

// generatedStatus is the memory of a status generateStatus builds: the status, whose
// container statuses are allocated, and per container (in the runtime's order) the state and
// started flag its container status points to.
type generatedStatus struct {
	status  *model.PodStatus
	started []bool
	running []model.ContainerStateRunning
	waiting []model.ContainerStateWaiting
}

// generatedStatusOf1 is the memory of a generated status of a pod with one container and
// no init container, most pods, in one allocation rather than five.
type generatedStatusOf1 struct {
	status     model.PodStatus
	containers [1]model.ContainerStatus
	started    [1]bool
	running    [1]model.ContainerStateRunning
	waiting    [1]model.ContainerStateWaiting
}

// allocGeneratedStatus allocates the memory of a status of n runtime containers, nInit of
// them init containers, and regular containers in the spec.
func allocGeneratedStatus(n, nInit, regular int) generatedStatus {
	if n == 1 && nInit == 0 && regular == 1 {
		b := new(generatedStatusOf1)
		b.status.ContainerStatuses = b.containers[:]
		return generatedStatus{status: &b.status, started: b.started[:], running: b.running[:], waiting: b.waiting[:]}
	}
	s := &model.PodStatus{ContainerStatuses: make([]model.ContainerStatus, regular)}
	if nInit > 0 {
		s.InitContainerStatuses = make([]model.ContainerStatus, nInit)
	}
	return generatedStatus{status: s, started: make([]bool, n), running: make([]model.ContainerStateRunning, n), waiting: make([]model.ContainerStateWaiting, n)}
}

// readinessStatuses are the statuses the Ready conditions are computed from: the sidecars'
// first, then the regular containers' (GenerateContainersReadyCondition).
func (w *podWorker) readinessStatuses(s *model.PodStatus) []model.ContainerStatus {
	if w.rt.nInit == 0 {
		return s.ContainerStatuses
	}
	var out []model.ContainerStatus
	for i, cr := range w.rt.containers[:w.rt.nInit] {
		if cr.sidecar && i < len(s.InitContainerStatuses) {
			out = append(out, s.InitContainerStatuses[i])
		}
	}
	return append(out, s.ContainerStatuses...)
}

// initializedCondition is status/generate.go GeneratePodInitializedCondition (k/k v1.33):
// True without init containers, once a regular container started, or when every plain init
// container completed with 0 and every sidecar started; otherwise False with reason
// ContainersNotInitialized naming the incomplete ones.
func (w *podWorker) initializedCondition(s *model.PodStatus) model.PodCondition {
	cond := model.PodCondition{Type: model.PodInitialized, Status: model.ConditionTrue}
	if w.rt.nInit == 0 {
		return cond
	}
	var incomplete []string
	for i, cr := range w.rt.containers[:w.rt.nInit] {
		cs := &s.InitContainerStatuses[i]
		if cr.sidecar {
			if cs.Started == nil || !*cs.Started {
				incomplete = append(incomplete, cr.name)
			}
			continue
		}
		if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 {
			incomplete = append(incomplete, cr.name)
		}
	}
	if s.Phase == model.PodSucceeded {
		cond.Reason = reasonPodCompleted
		return cond
	}
	for i := range s.ContainerStatuses {
		if st := s.ContainerStatuses[i].Started; st != nil && *st {
			return cond // initialized before (HasAnyRegularContainerStarted)
		}
	}
	if len(incomplete) > 0 {
		cond.Status, cond.Reason = model.ConditionFalse, reasonContainersNotInitialized
		cond.Message = fmt.Sprintf("containers with incomplete status: %v", incomplete)
	}
	return cond
}

// phaseWithInit is kubelet_pods.go getPhase for a pod with init containers (k/k v1.33): a
// plain init container that is not done keeps the pod Pending (Failed under restartPolicy
// Never once one failed); sidecars count as running containers, except that one not started
// yet keeps a pod that was never initialized Pending, and a stopped one is ignored.
func (w *podWorker) phaseWithInit(s *model.PodStatus, podIsTerminal bool) string {
	pendingInit, failedInit := 0, 0
	sidecarRunning, sidecarPending := 0, 0
	for i, cr := range w.rt.containers[:w.rt.nInit] {
		cs := &s.InitContainerStatuses[i]
		if cr.sidecar {
			switch {
			case cs.State.Running != nil:
				sidecarRunning++
				if cs.Started == nil || !*cs.Started {
					sidecarPending++
				}
			case cs.State.Waiting != nil && cs.LastState.Terminated == nil:
				sidecarPending++
			}
			continue
		}
		switch {
		case cs.State.Terminated != nil:
			if cs.State.Terminated.ExitCode != 0 {
				failedInit++
			}
		case cs.State.Waiting != nil && cs.LastState.Terminated != nil:
			if cs.LastState.Terminated.ExitCode != 0 {
				failedInit++
			}
		default:
			pendingInit++
		}
	}
	if failedInit > 0 && w.pod.Spec.RestartPolicy == model.RestartPolicyNever {
		return model.PodFailed
	}
	initialized := false
	for i := range s.ContainerStatuses {
		if s.ContainerStatuses[i].State.Waiting == nil || s.ContainerStatuses[i].LastState.Terminated != nil {
			initialized = true
		}
	}
	if pendingInit > 0 || (sidecarPending > 0 && !initialized) {
		return model.PodPending
	}
	phase := s.Phase
	if sidecarRunning > 0 && phase != model.PodPending {
		// getPhase counts running sidecars with the running containers: the pod stays
		// Running while they run, until the kubelet stops them.
		var running int
		for i := range s.ContainerStatuses {
			if s.ContainerStatuses[i].State.Running != nil {
				running++
			}
		}
		if running == 0 {
			phase = model.PodRunning
		}
	}
	return phase
}

// seenContainer is a container as a relist at some time saw it.
type seenContainer struct {
	id           uint64
	running      bool
	startedAt    vtime.Time
	restartCount int32
	terminated   *model.ContainerStateTerminated
	last         *model.ContainerStateTerminated
}

// seenAt returns the container as the PLEG relist at relist saw it: a change after the relist
// is not visible yet, so a container started since shows its previous instance (or none) and
// one that exited since still shows running.
func seenAt(cr *containerRecord, relist vtime.Time) seenContainer {
	// cr.last is read-only (containerRecord.last): a status may share it, and the stored pods
	// written from it then share it too.
	s := seenContainer{id: cr.id, running: cr.running, startedAt: cr.startedAt, restartCount: cr.restartCount,
		terminated: cr.terminatedState(), last: cr.last}
	switch {
	case cr.id != 0 && cr.startedAt > relist:
		// The instance started after the relist: the previous one is what was seen.
		s = seenContainer{id: cr.prevID}
		if cr.prevID != 0 {
			s.restartCount = cr.restartCount - 1
			s.terminated = cr.last
			if s.terminated != nil {
				s.startedAt = s.terminated.StartedAt
			}
		}
	case !cr.running && cr.id != 0 && cr.changedAt > relist:
		// It exited after the relist: still seen running.
		s.running = true
		s.terminated = nil
	}
	return s
}

// containerStarted is prober_manager.go UpdatePodStatus's started: the startup probe passed,
// or there is none.
func (w *podWorker) containerStarted(i int) bool {
	cp := &w.probes[i]
	if cp.startup == nil {
		return true
	}
	r, ok := cp.startup.st.get(w.view[i].id)
	return ok && r == resultSuccess
}

// containerReady is UpdatePodStatus's ready for a started, running container: the readiness
// probe's result is Success, or there is no readiness probe. A container whose probe has not
// succeeded yet triggers an immediate probe run, as upstream does.
func (w *podWorker) containerReady(i int) bool {
	cp := &w.probes[i]
	if cp.readiness == nil {
		return true
	}
	if r, ok := cp.readiness.st.get(w.view[i].id); ok && r == resultSuccess {
		return true
	}
	cp.readiness.trigger()
	return false
}

// adoptReadiness carries an adopted container's readiness over: a container the status shows
// ready starts with a Success readiness result instead of the initial Failure.
func (w *podWorker) adoptReadiness(i int) {
	cp := &w.probes[i]
	cs := statusOf(&w.pod.Status, w.rt.containers[i])
	if cs == nil || w.view[i].id == 0 {
		return
	}
	if cp.startup != nil && cs.Started != nil && *cs.Started {
		cp.startup.st.follow(w.view[i].id)
		cp.startup.st.set(resultSuccess)
	}
	if cp.readiness != nil && cs.Ready {
		cp.readiness.st.follow(w.view[i].id)
		cp.readiness.st.set(resultSuccess)
	}
	if cp.liveness != nil {
		cp.liveness.st.follow(w.view[i].id)
	}
}

// readinessChanged is SetContainerReadiness: the cached status gets the container's new
// readiness and fresh Ready conditions, and goes to the status manager.
func (w *podWorker) readinessChanged(i int) {
	if w.lastStatus == nil || w.terminated {
		return
	}
	s := *w.lastStatus
	// The container statuses at full capacity, as the status manager may share them with the
	// stored pod (mergePodStatus); the conditions in the kubelet's scratch slice, as
	// setPodStatus gives lastStatus conditions of its own.
	s.ContainerStatuses = slices.Clip(slices.Clone(w.lastStatus.ContainerStatuses))
	if s.InitContainerStatuses != nil {
		s.InitContainerStatuses = slices.Clip(slices.Clone(w.lastStatus.InitContainerStatuses))
	}
	if w.lastStatus.Conditions != nil {
		s.Conditions = append(w.kl.podConditionsScratch[:0], w.lastStatus.Conditions...)
		w.kl.podConditionsScratch = s.Conditions
	}
	cs := statusOf(&s, w.rt.containers[i])
	if cs == nil {
		return
	}
	cs.Ready = w.view[i].running && cs.Started != nil && *cs.Started && w.containerReady(i)
	containersReady, ready := readyConditions(w.readinessStatuses(&s), s.Phase)
	for j := range s.Conditions {
		switch s.Conditions[j].Type {
		case model.PodContainersReady:
			s.Conditions[j] = containersReady
		case model.PodReady:
			s.Conditions[j] = ready
		}
	}
	w.lastStatus = &s
	w.kl.status.setPodStatus(w, false)
}

// backOffRetryAfter is how long a pod worker whose sync failed on a crash-loop back-off
// expiring at until waits before it retries, before the jitter (pod_workers.go completeWork).
// Since v1.35 (#133066, "Propagate backoff duration for crashloop backoff";
// Config.RetryAtBackOffExpiry) the error carries the expiry and the worker retries then,
// bounded by the resync interval; before, every failed sync retried after backOffPeriod.
func (kl *Kubelet) backOffRetryAfter(until vtime.Time) time.Duration {
	if !kl.cfg.RetryAtBackOffExpiry {
		return workerBackOffPeriod
	}
	wait := max(until.Sub(kl.k.Now()), 0)
	return min(wait, kl.cfg.SyncFrequency)
}

// The details of the pod worker's most frequent trace lines and its kill message, each
// fmt.Sprintf of the format it names, built without fmt's boxing of their arguments
// (TestTraceDetailsAreSprintf).

// sandboxDetail is fmt.Sprintf("ip=%s took=%s", ip, took).
func sandboxDetail(ip string, took time.Duration) string {
	return "ip=" + ip + " took=" + took.String()
}

// containerStartDetail is fmt.Sprintf("container=%s restarts=%d took=%s", name, restarts, took).
func containerStartDetail(name string, restarts int32, took time.Duration) string {
	return "container=" + name + " restarts=" + strconv.Itoa(int(restarts)) + " took=" + took.String()
}

// containerExitDetail is fmt.Sprintf("container=%s code=%d", name, code).
func containerExitDetail(name string, code int32) string {
	return "container=" + name + " code=" + strconv.Itoa(int(code))
}

// stoppingMessage is fmt.Sprintf("Stopping container %s", name), the Killing event's message.
func stoppingMessage(name string) string { return "Stopping container " + name }
