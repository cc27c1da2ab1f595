package node

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// podRuntime is what the container runtime holds for one pod: its sandbox and the current
// instance of each container. It is the node's state, not the kubelet's: it survives a kubelet
// restart and only a machine crash changes it behind the kubelet's back.
type podRuntime struct {
	uid          string
	key          string // namespace/name, for traces
	sandboxReady bool
	// sandboxChangedAt is when sandboxReady last changed.
	sandboxChangedAt vtime.Time
	// sandboxes counts sandboxes created for the pod (upstream's sandbox attempt).
	sandboxes int
	podIP     string
	// containers are the init containers in spec order, then the regular ones in spec order.
	containers []*containerRecord
	// nInit is how many of containers are init containers.
	nInit int
}

// containerRecord is the current instance of one container, and the termination of the one
// before it.
type containerRecord struct {
	// idx is the record's index in podRuntime.containers.
	idx   int
	name  string
	image string
	// init is true for an init container, sidecar for a restartable one (restartPolicy
	// Always, with the SidecarContainers gate on).
	init, sidecar bool

	// id identifies the instance (upstream's container ID); 0 means none was ever created.
	id uint64
	// prevID is the instance before id (0 if none).
	prevID uint64
	// changedAt is when the record last started or exited.
	changedAt    vtime.Time
	running      bool
	startedAt    vtime.Time
	finishedAt   vtime.Time
	exitCode     int32
	reason       string
	restartCount int32
	// last is the previous instance's termination. It is replaced whole, never changed in
	// place: the statuses generated from the record share it (seenAt).
	last *model.ContainerStateTerminated
	// terminated is the current instance's termination as terminatedState built it, shared
	// (read-only) by the statuses generated since; begin and exit, which change what it
	// shows, drop it.
	terminated *model.ContainerStateTerminated

	// The pending exit of a running instance: by itself (crash-after, exit-after), after
	// SIGTERM, or by SIGKILL at the grace deadline, whichever is first.
	// exitTimer is held by value (sim.Kernel.InitTimer; a record is never copied) and set up
	// by the first armExit (exitTimerSet).
	exitTimer       sim.Timer
	exitTimerSet    bool
	pendingExitCode int32
	stopping        bool       // SIGTERM was sent
	killAnnounced   bool       // the Killing event was recorded for this instance
	killAt          vtime.Time // SIGKILL deadline while stopping
}

// newPodRuntime returns the runtime state of pod, whose key (model.Key) the caller has.
func newPodRuntime(pod *model.Pod, key string, sidecars bool) *podRuntime {
	var rt *podRuntime
	if len(pod.Spec.InitContainers) == 0 && len(pod.Spec.Containers) == 1 {
		// Most pods have one container: its record and list come with the runtime, and
		// syncContainers below finds them in place.
		b := &podRuntimeOf1{rt: podRuntime{uid: pod.UID, key: key}}
		b.record.name = pod.Spec.Containers[0].Name
		b.list[0] = &b.record
		b.rt.containers = b.list[:]
		rt = &b.rt
	} else {
		rt = &podRuntime{uid: pod.UID, key: key}
	}
	rt.syncContainers(pod, sidecars)
	return rt
}

// podRuntimeOf1 is the runtime state of a pod with one container, allocated with the list
// of its records and that record: one allocation rather than three.
type podRuntimeOf1 struct {
	rt     podRuntime
	list   [1]*containerRecord
	record containerRecord
}

// syncContainers makes the records follow the pod's init and regular container lists (by
// name, in spec order). With sidecars (the SidecarContainers gate), an init container with
// restartPolicy Always is a sidecar.
func (rt *podRuntime) syncContainers(pod *model.Pod, sidecars bool) {
	n := len(pod.Spec.InitContainers)
	var out []*containerRecord
	if rt.recordsInOrder(pod, n) {
		out = rt.containers // each record is its container's already: updated in place
	} else {
		out = make([]*containerRecord, n+len(pod.Spec.Containers))
	}
	for i := range out {
		c := containerSpec(pod, n, i)
		var cr *containerRecord
		for _, old := range rt.containers {
			if old != nil && old.name == c.Name {
				cr = old
				break
			}
		}
		if cr == nil {
			cr = &containerRecord{name: c.Name}
		}
		cr.idx = i
		cr.image = c.Image
		cr.init = i < n
		cr.sidecar = cr.init && sidecars && model.IsRestartableInitContainer(c)
		out[i] = cr
	}
	rt.containers = out
	rt.nInit = n
}

// recordsInOrder reports whether the records are pod's containers (nInit init containers
// first), one each, in order. Then syncContainers can update the list in place: each record
// has its container's name at its own index, so the by-name lookup, which takes the first
// record of a name, finds the same records in the list it updates as in the list it had.
func (rt *podRuntime) recordsInOrder(pod *model.Pod, nInit int) bool {
	if len(rt.containers) != nInit+len(pod.Spec.Containers) {
		return false
	}
	for i, cr := range rt.containers {
		if cr == nil || cr.name != containerSpec(pod, nInit, i).Name {
			return false
		}
	}
	return true
}

// containerSpec is the spec of container i in the runtime's order: the nInit init
// containers first, then the regular ones.
func containerSpec(pod *model.Pod, nInit, i int) *model.Container {
	if i < nInit {
		return &pod.Spec.InitContainers[i]
	}
	return &pod.Spec.Containers[i-nInit]
}

// regular returns the regular containers' records.
func (rt *podRuntime) regular() []*containerRecord { return rt.containers[rt.nInit:] }

func (rt *podRuntime) anyRunning() bool {
	for _, cr := range rt.containers {
		if cr.running {
			return true
		}
	}
	return false
}

// machineDied kills every running container where it stands, as a power loss does: exit code
// 255, reason Unknown, finished now. The sandbox is gone too.
func (rt *podRuntime) machineDied(kl *Kubelet, now vtime.Time) {
	for _, cr := range rt.containers {
		if cr.running {
			cr.exit(now, exitCodeUnknown, reasonUnknown)
		}
	}
	rt.setSandbox(false, now)
}

// setSandbox records the sandbox coming up or going away at now.
func (rt *podRuntime) setSandbox(ready bool, now vtime.Time) {
	if rt.sandboxReady != ready {
		rt.sandboxReady = ready
		rt.sandboxChangedAt = now
	}
}

// stopAll kills every running container now (SIGKILL) and drops the sandbox.
func (rt *podRuntime) stopAll(kl *Kubelet) {
	now := kl.k.Now()
	for _, cr := range rt.containers {
		if cr.running {
			cr.exit(now, exitCodeSIGKILL, reasonError)
		}
	}
	rt.setSandbox(false, now)
}

// begin starts a new instance now: the previous instance's termination becomes the last
// state and the restart count grows by one (a first instance has count 0).
func (cr *containerRecord) begin(id uint64, now vtime.Time) {
	if cr.id != 0 {
		if !cr.running {
			cr.last = cr.terminatedState()
		}
		cr.restartCount++
	}
	cr.terminated = nil
	cr.prevID = cr.id
	cr.id = id
	cr.running = true
	cr.changedAt = now
	cr.startedAt = now
	cr.finishedAt = 0
	cr.exitCode = 0
	cr.reason = ""
	cr.stopping = false
	cr.killAnnounced = false
	cr.killAt = 0
}

// terminatedState is the record's termination as the API shows it; nil while running or
// before the first instance.
func (cr *containerRecord) terminatedState() *model.ContainerStateTerminated {
	if cr.id == 0 || cr.running {
		return nil
	}
	if cr.terminated == nil {
		cr.terminated = &model.ContainerStateTerminated{
			ExitCode:   cr.exitCode,
			Reason:     cr.reason,
			StartedAt:  cr.startedAt,
			FinishedAt: cr.finishedAt,
		}
	}
	return cr.terminated
}

// scheduleExit arranges for the running instance to exit at at with code, unless an earlier
// exit is already scheduled.
func (cr *containerRecord) scheduleExit(at vtime.Time, code int32) {
	if when, armed := cr.exitTimer.When(); armed && when <= at {
		return
	}
	cr.pendingExitCode = code
	cr.exitTimer.ResetAt(at)
}

// exitReason is the runtime's reason for an exit code: Completed for 0, Error otherwise.
func exitReason(code int32) string {
	if code == 0 {
		return reasonCompleted
	}
	return reasonError
}

// exit ends the running instance now.
func (cr *containerRecord) exit(now vtime.Time, code int32, reason string) {
	cr.running = false
	cr.terminated = nil
	cr.changedAt = now
	cr.finishedAt = now
	cr.exitCode = code
	cr.reason = reason
	cr.stopping = false
	cr.exitTimer.Stop() // a timer never set up is not armed: Stop does nothing
}

// signalTerm sends SIGTERM now: the instance exits with code 0 after termDelay, or is killed
// with code 137 at deadline if that comes first. A second call can only bring the deadline
// forward.
func (cr *containerRecord) signalTerm(now, deadline vtime.Time, termDelay time.Duration) {
	if !cr.running {
		return
	}
	if cr.stopping {
		if deadline < cr.killAt {
			cr.killAt = deadline
			cr.scheduleExit(deadline, exitCodeSIGKILL)
		}
		return
	}
	cr.stopping = true
	cr.killAt = deadline
	if exitAt := now.Add(termDelay); exitAt < deadline {
		cr.scheduleExit(exitAt, 0)
	} else {
		cr.scheduleExit(deadline, exitCodeSIGKILL)
	}
}

func (cr *containerRecord) String() string {
	return fmt.Sprintf("%s#%d", cr.name, cr.id)
}
