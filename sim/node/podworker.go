package node

import (
	"fmt"
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
	beh behaviour

	proc    *sim.Proc
	pending bool

	adopted     bool
	admitted    bool
	rejected    bool
	terminating bool
	terminated  bool
	removed     bool

	probes  []*containerProbes
	reasons []waitReason
	view    []containerView
	// lastStatus is the status the kubelet last generated; nil before the first.
	lastStatus *model.PodStatus

	plegTimer    *sim.Timer
	requeueTimer *sim.Timer

	// requestsOf is the pod version requestCPU and requestMem were computed from.
	requestsOf             *model.Pod
	requestCPU, requestMem int64
}

// requests is podRequests of the worker's current pod, computed once per pod version.
func (w *podWorker) requests() (cpu, mem int64) {
	if w.requestsOf != w.pod {
		w.requestsOf = w.pod
		w.requestCPU, w.requestMem = podRequests(w.pod)
	}
	return w.requestCPU, w.requestMem
}

func newPodWorker(kl *Kubelet, pod *model.Pod, adopt bool) *podWorker {
	key := model.Key(pod)
	w := &podWorker{kl: kl, uid: pod.UID, key: key, objectName: "Pod " + key, pod: pod}
	var errs []annotationError
	w.beh, errs = parseBehaviour(pod.Annotations)
	for _, e := range errs {
		kl.rec.Eventf(pod, model.EventTypeWarning, eventInvalidAnnotation, "%s", e.Error())
		kl.emit("invalid-annotation", w.objectName, 0, e.Error())
	}
	w.plegTimer = kl.k.NewTimer(w.wake)
	w.requeueTimer = kl.k.NewTimer(w.wake)

	rt := kl.runtime[pod.UID]
	switch {
	case rt != nil:
		rt.syncContainers(pod)
	case adopt && pod.Status.Phase == model.PodRunning:
		rt = adoptRuntime(kl, pod)
		w.adopted = true
		w.admitted = true
	default:
		rt = newPodRuntime(pod)
	}
	kl.runtime[pod.UID] = rt
	w.rt = rt
	w.reasons = make([]waitReason, len(rt.containers))
	w.view = make([]containerView, len(rt.containers))
	w.probes = make([]*containerProbes, len(rt.containers))
	for i := range pod.Spec.Containers {
		w.probes[i] = newContainerProbes(w, i, &pod.Spec.Containers[i])
	}
	if w.adopted {
		// A settled pod keeps the status it has: the status manager starts from it and the
		// worker waits for something to change.
		for i, cr := range rt.containers {
			w.view[i] = containerView{id: cr.id, running: cr.running, terminated: !cr.running && cr.id != 0, startedAt: cr.startedAt}
			w.adoptReadiness(i)
		}
		st := pod.Status
		w.lastStatus = &st
		kl.status.seed(w)
		kl.emit("adopt", w.objectName, pod.ResourceVersion, "")
		w.pending = pod.DeletionTimestamp != nil
	} else {
		w.pending = true
	}
	for _, cp := range w.probes {
		cp.start()
	}
	w.proc = kl.k.Spawn(kl.component+"/pod/"+key, w.run)
	return w
}

// adoptRuntime builds runtime state from a Running pod's status, for a settled start: the
// containers the status shows running are running since their startedAt, with their restart
// counts; their scripted exits are scheduled from that start.
func adoptRuntime(kl *Kubelet, pod *model.Pod) *podRuntime {
	rt := newPodRuntime(pod)
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
		var cs *model.ContainerStatus
		for i := range pod.Status.ContainerStatuses {
			if pod.Status.ContainerStatuses[i].Name == cr.name {
				cs = &pod.Status.ContainerStatuses[i]
			}
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
	if w.proc != nil {
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

func (w *podWorker) run(p *sim.Proc) {
	for !w.removed {
		if !w.pending {
			p.Park()
			continue
		}
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
	for _, cp := range w.probes {
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
	for _, c := range w.pod.Spec.Containers {
		kl.backoff.Reset(w.backoffKey(c.Name))
	}
	delete(kl.runtime, w.uid)
	kl.emit("pod-removed", w.objectName, w.pod.ResourceVersion, "")
}

// backoffKey is the container's key in the CrashLoopBackOff table (kuberuntime getStableKey,
// without the spec hash).
func (w *podWorker) backoffKey(container string) string {
	return w.pod.Namespace + "_" + w.pod.Name + "_" + w.uid + "_" + container
}

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
			w.kl.status.setPodStatus(w, st, true)
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
	status := w.generateStatus(w.kl.lastRelist(), false)
	w.kl.status.setPodStatus(w, status, false)
	if isTerminalPhase(status.Phase) {
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
	kl.status.setPodStatus(w, st, true)
	kl.emit("reject", w.object(), w.pod.ResourceVersion, reason+": "+message)
	return false
}

// syncContainers is the runtime part of SyncPod (kuberuntime_manager.go computePodActions
// and SyncPod, reduced): create the sandbox if there is none, then start every container that
// never ran and restart every exited one the restart policy wants back, unless it is backing
// off.
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
		d := kl.cfg.SandboxStart.Sample(kl.runRand)
		p.Sleep(d)
		if w.aborted() {
			return
		}
		rt.setSandbox(true, kl.k.Now())
		rt.sandboxes++
		if rt.podIP == "" {
			rt.podIP = kl.allocIP()
		}
		kl.emit("sandbox", w.object(), 0, fmt.Sprintf("ip=%s took=%s", rt.podIP, d))
		w.wakeAtRelist()
	}
	backoffUntil := vtime.Never
	reasonsChanged := false
	for i := range pod.Spec.Containers {
		if w.aborted() {
			return
		}
		c := &pod.Spec.Containers[i]
		cr := rt.containers[i]
		switch {
		case cr.running:
			w.killIfStartupFailed(cr)
			continue
		case cr.id != 0:
			if !shouldRestart(pod.Spec.RestartPolicy, cr.exitCode) {
				continue
			}
			key := w.backoffKey(c.Name)
			now := kl.k.Now()
			if kl.backoff.IsInBackOffSince(key, cr.finishedAt, now) {
				d := kl.backoff.Get(key)
				msg := fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", d, c.Name, formatPod(pod))
				if w.reasons[i] != (waitReason{reasonCrashLoopBackOff, msg}) {
					w.reasons[i] = waitReason{reasonCrashLoopBackOff, msg}
					reasonsChanged = true
				}
				kl.rec.Eventf(pod, model.EventTypeWarning, eventBackOff, "Back-off restarting failed container %s in pod %s", c.Name, formatPod(pod))
				backoffUntil = min(backoffUntil, cr.finishedAt.Add(d))
				kl.emit("backoff", w.object(), 0, fmt.Sprintf("container=%s delay=%s until=%s", c.Name, d, cr.finishedAt.Add(d)))
				continue
			}
			kl.backoff.Next(key, cr.finishedAt, now)
		}
		w.startContainer(p, i)
	}
	if backoffUntil != vtime.Never {
		w.requeueTimer.Reset(kl.jitter(kl.backOffRetryAfter(backoffUntil), workerBackOffPeriodJitterFactor))
	}
	if reasonsChanged {
		// The waiting reason reaches the API with the status generated from the new reason
		// cache entry. Upstream shows it at the next sync; publishing it now is what
		// `kubectl get pods` shows on a real node within a second or two of the BackOff event.
		w.kl.status.setPodStatus(w, w.generateStatus(w.kl.lastRelist(), false), false)
	}
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
// (kuberuntime_container.go startContainer), with the upstream events.
func (w *podWorker) startContainer(p *sim.Proc, i int) {
	kl := w.kl
	c := &w.pod.Spec.Containers[i]
	cr := w.rt.containers[i]
	if !w.ensureImage(p, c.Image) {
		return
	}
	d := kl.cfg.ContainerStart.Sample(kl.runRand)
	p.Sleep(d)
	if w.aborted() {
		return
	}
	now := kl.k.Now()
	cr.begin(kl.newContainerID(), now)
	w.reasons[i] = waitReason{}
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventCreated, "Created container: %s", c.Name)
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventStarted, "Started container %s", c.Name)
	kl.emit("container-start", w.object(), 0, fmt.Sprintf("container=%s restarts=%d took=%s", c.Name, cr.restartCount, d))
	kl.armExit(w.rt, cr, w.beh, now)
	w.wakeAtRelist()
}

// armExit schedules the scripted exit of a running container instance, if its pod's
// behaviour has one, measured from the instance's start (not before now).
func (kl *Kubelet) armExit(rt *podRuntime, cr *containerRecord, beh behaviour, now vtime.Time) {
	if cr.exitTimer == nil {
		cr.exitTimer = kl.k.NewTimer(func() { kl.containerExitFired(rt, cr) })
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
	kl.emit("container-exit", "Pod "+rt.key, 0, fmt.Sprintf("container=%s code=%d", cr.name, code))
	w, ok := kl.workers[rt.uid]
	if !ok || w.rt != rt {
		return
	}
	if w.terminating {
		w.wake()
		return
	}
	w.wakeAtRelist()
}

// ensureImage makes sure image is on the node (image_manager.go EnsureImageExists with
// imagePullPolicy IfNotPresent): an image already present costs nothing; otherwise it is
// pulled, one pull at a time when pulls are serialised, and a pull of the same image already
// under way is waited for. It reports false if the sync was aborted meanwhile.
func (w *podWorker) ensureImage(p *sim.Proc, image string) bool {
	kl := w.kl
	now := kl.k.Now()
	if image == "" {
		return true
	}
	if at, ok := kl.images[image]; ok && at <= now {
		kl.rec.Eventf(w.pod, model.EventTypeNormal, eventPulled, "Container image %q already present on machine", image)
		return true
	}
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventPulling, "Pulling image %q", image)
	var pullDuration time.Duration
	end, inFlight := kl.images[image]
	if inFlight {
		pullDuration = end.Sub(now)
	} else {
		begin := now
		if kl.cfg.SerializeImagePulls {
			begin = max(now, kl.pullFreeAt)
		}
		pullDuration = kl.cfg.ImagePull.Sample(kl.pullRand)
		end = begin.Add(pullDuration)
		kl.images[image] = end
		if kl.cfg.SerializeImagePulls {
			kl.pullFreeAt = end
		}
	}
	p.SleepUntil(end)
	if w.aborted() {
		return false
	}
	total := kl.k.Now().Sub(now)
	kl.rec.Eventf(w.pod, model.EventTypeNormal, eventPulled, "Successfully pulled image %q in %s (%s including waiting)",
		image, pullDuration.Truncate(time.Millisecond), total.Truncate(time.Millisecond))
	kl.emit("image-pulled", w.object(), 0, fmt.Sprintf("image=%s took=%s waited=%s", image, pullDuration, total))
	return true
}

// killIfStartupFailed stops a running container whose startup probe failed, so that it is
// restarted (computePodActions: "Container %s failed startup probe, will be restarted").
func (w *podWorker) killIfStartupFailed(cr *containerRecord) {
	cp := w.probes[cr.idx]
	if cp.startup == nil || cr.stopping {
		return
	}
	if r, ok := cp.startup.st.get(cr.id); !ok || r != resultFailure {
		return
	}
	msg := fmt.Sprintf("Container %s failed startup probe", cr.name)
	if shouldRestart(w.pod.Spec.RestartPolicy, 1) {
		msg += ", will be restarted"
	}
	w.kill(cr, msg, w.specGraceSeconds())
}

// kill sends SIGTERM to a running container with a grace period of graceSeconds (at least
// minimumGracePeriodInSeconds), recording the Killing event with message.
func (w *podWorker) kill(cr *containerRecord, message string, graceSeconds int64) {
	kl := w.kl
	now := kl.k.Now()
	graceSeconds = max(graceSeconds, minimumGracePeriodInSeconds)
	deadline := now.Add(time.Duration(graceSeconds) * time.Second)
	if !cr.stopping {
		kl.rec.Eventf(w.pod, model.EventTypeNormal, eventKilling, "%s", message)
		kl.emit("container-kill", w.object(), 0, fmt.Sprintf("container=%s grace=%ds", cr.name, graceSeconds))
	}
	cr.signalTerm(now, deadline, w.beh.terminationDelay)
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
		kl.status.setPodStatus(w, w.generateStatus(w.kl.lastRelist(), false), false)
	}
	w.requeueTimer.Stop()
	grace := w.deletionGraceSeconds()
	for _, cr := range w.rt.containers {
		if cr.running {
			w.kill(cr, fmt.Sprintf("Stopping container %s", cr.name), grace)
		}
	}
	if w.rt.anyRunning() {
		return
	}
	for _, cp := range w.probes {
		cp.stop()
	}
	w.rt.setSandbox(false, kl.k.Now())
	w.plegTimer.Stop()
	// Nothing will be restarted any more: a back-off reason no longer applies.
	for i := range w.reasons {
		w.reasons[i] = waitReason{}
	}
	// The final status comes from the runtime directly, not from the last relist.
	st := w.generateStatus(kl.k.Now(), true)
	w.terminated = true
	kl.status.setPodStatus(w, st, true)
	kl.emit("pod-terminated", w.object(), 0, "phase="+st.Phase)
}

// generateStatus is generateAPIPodStatus: the pod status from the runtime state as the
// kubelet saw it at time relist (its last PLEG relist, or now where upstream asks the runtime
// directly), the reason cache and the probe results. It also refreshes the view the probe
// workers read.
func (w *podWorker) generateStatus(relist vtime.Time, podIsTerminal bool) model.PodStatus {
	pod := w.pod
	rt := w.rt
	s := model.PodStatus{ContainerStatuses: make([]model.ContainerStatus, len(pod.Spec.Containers))}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cr := rt.containers[i]
		seen := seenAt(cr, relist)
		cs := model.ContainerStatus{Name: c.Name, Image: c.Image, RestartCount: seen.restartCount}
		switch {
		case seen.id == 0:
			cs.State.Waiting = &model.ContainerStateWaiting{Reason: reasonContainerCreating}
		case seen.running:
			cs.State.Running = &model.ContainerStateRunning{StartedAt: seen.startedAt}
		default:
			cs.State.Terminated = seen.terminated
		}
		cs.LastState.Terminated = seen.last
		if r := w.reasons[i]; r.reason != "" && !seen.running {
			if cs.State.Terminated != nil {
				cs.LastState.Terminated = cs.State.Terminated
			}
			cs.State = model.ContainerState{Waiting: &model.ContainerStateWaiting{Reason: r.reason, Message: r.message}}
		}
		w.view[i] = containerView{id: seen.id, running: seen.running, terminated: !seen.running && seen.id != 0, startedAt: seen.startedAt}
		started := seen.running && w.containerStarted(i)
		cs.Started = model.Ptr(started)
		cs.Ready = started && w.containerReady(i)
		s.ContainerStatuses[i] = cs
	}
	s.Phase = getPhase(pod.Spec.RestartPolicy, s.ContainerStatuses, podIsTerminal)
	sandboxReady := rt.sandboxReady
	if rt.sandboxChangedAt > relist {
		sandboxReady = !sandboxReady
	}
	sandbox := model.PodCondition{Type: model.PodReadyToStartContainers, Status: model.ConditionFalse}
	if sandboxReady {
		sandbox.Status = model.ConditionTrue
	}
	containersReady, ready := readyConditions(s.ContainerStatuses, s.Phase)
	s.Conditions = []model.PodCondition{
		sandbox,
		{Type: model.PodInitialized, Status: model.ConditionTrue},
		ready,
		containersReady,
		{Type: model.PodScheduled, Status: model.ConditionTrue},
	}
	// The IP appears once the first sandbox is seen, and stays after the sandbox goes.
	if rt.podIP != "" && (sandboxReady || rt.sandboxes > 1 || !rt.sandboxReady) {
		s.PodIP = rt.podIP
	}
	w.lastStatus = &s
	return s
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
	s := seenContainer{id: cr.id, running: cr.running, startedAt: cr.startedAt, restartCount: cr.restartCount,
		terminated: cr.terminatedState(), last: copyTerminated(cr.last)}
	switch {
	case cr.id != 0 && cr.startedAt > relist:
		// The instance started after the relist: the previous one is what was seen.
		s = seenContainer{id: cr.prevID}
		if cr.prevID != 0 {
			s.restartCount = cr.restartCount - 1
			s.terminated = copyTerminated(cr.last)
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

func copyTerminated(t *model.ContainerStateTerminated) *model.ContainerStateTerminated {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

// containerStarted is prober_manager.go UpdatePodStatus's started: the startup probe passed,
// or there is none.
func (w *podWorker) containerStarted(i int) bool {
	cp := w.probes[i]
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
	cp := w.probes[i]
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
	cp := w.probes[i]
	if cp == nil {
		return
	}
	var cs *model.ContainerStatus
	for j := range w.pod.Status.ContainerStatuses {
		if w.pod.Status.ContainerStatuses[j].Name == w.rt.containers[i].name {
			cs = &w.pod.Status.ContainerStatuses[j]
		}
	}
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
}

// readinessChanged is SetContainerReadiness: the cached status gets the container's new
// readiness and fresh Ready conditions, and goes to the status manager.
func (w *podWorker) readinessChanged(i int) {
	if w.lastStatus == nil || w.terminated {
		return
	}
	s := *w.lastStatus
	s.ContainerStatuses = append([]model.ContainerStatus(nil), w.lastStatus.ContainerStatuses...)
	s.Conditions = append([]model.PodCondition(nil), w.lastStatus.Conditions...)
	name := w.rt.containers[i].name
	found := false
	for j := range s.ContainerStatuses {
		cs := &s.ContainerStatuses[j]
		if cs.Name != name {
			continue
		}
		found = true
		cs.Ready = w.view[i].running && cs.Started != nil && *cs.Started && w.containerReady(i)
	}
	if !found {
		return
	}
	containersReady, ready := readyConditions(s.ContainerStatuses, s.Phase)
	for j := range s.Conditions {
		switch s.Conditions[j].Type {
		case model.PodContainersReady:
			s.Conditions[j] = containersReady
		case model.PodReady:
			s.Conditions[j] = ready
		}
	}
	w.lastStatus = &s
	w.kl.status.setPodStatus(w, s, false)
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
