package model

import (
	"math"
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Pod helpers of upstream pkg/api/v1/pod/util.go and pkg/controller/controller_utils.go (release
// 1.33). They live with the API types, as upstream's podutil does, so that controllers, the
// API server's eviction, the kubelet, the metrics server and the verdicts read readiness one way.

// GetPodCondition returns the pod's condition of type typ, or nil (upstream
// pkg/api/v1/pod/util.go GetPodConditionFromList).
func GetPodCondition(pod *Pod, typ string) *PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == typ {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// GetPodReadyCondition returns the pod's Ready condition, or nil (upstream
// podutil.GetPodReadyCondition).
func GetPodReadyCondition(pod *Pod) *PodCondition {
	return GetPodCondition(pod, PodReady)
}

// IsPodReady reports whether the pod's Ready condition is True (upstream podutil.IsPodReady).
func IsPodReady(pod *Pod) bool {
	c := GetPodReadyCondition(pod)
	return c != nil && c.Status == ConditionTrue
}

// IsPodAvailable reports whether the pod has been Ready for more than minReadySeconds at now
// (upstream podutil.IsPodAvailable): a pod that is not Ready is never available; with
// minReadySeconds 0 a Ready pod is available at once; otherwise the Ready condition's
// lastTransitionTime plus minReadySeconds must lie strictly before now.
//
// Upstream also treats an unset (zero) lastTransitionTime as "not available". In the simulator
// time 0 is the first instant of the run, a real time that the kubelet may write, so it is
// not treated as unset.
func IsPodAvailable(pod *Pod, minReadySeconds int32, now vtime.Time) bool {
	c := GetPodReadyCondition(pod)
	if c == nil || c.Status != ConditionTrue {
		return false
	}
	return ReadySinceAvailable(c.LastTransitionTime, minReadySeconds, now)
}

// ReadySinceAvailable is IsPodAvailable for a pod that has been Ready since readySince.
func ReadySinceAvailable(readySince vtime.Time, minReadySeconds int32, now vtime.Time) bool {
	if minReadySeconds <= 0 {
		return true
	}
	return readySince.Add(time.Duration(minReadySeconds) * time.Second).Before(now)
}

// IsPodActive reports whether a pod still counts as a replica: its phase is neither Succeeded
// nor Failed and it is not being deleted (upstream controller_utils.go IsPodActive).
func IsPodActive(pod *Pod) bool {
	return pod.Status.Phase != PodSucceeded && pod.Status.Phase != PodFailed && pod.DeletionTimestamp == nil
}

// IsPodTerminal reports whether the pod's phase is Succeeded or Failed (upstream
// podutil.IsPodTerminal).
func IsPodTerminal(pod *Pod) bool {
	return pod.Status.Phase == PodSucceeded || pod.Status.Phase == PodFailed
}

// UpdatePodCondition sets condition in status, replacing the condition of its type or
// appending it, and reports whether the status changed in any field (upstream
// pkg/api/v1/pod/util.go UpdatePodCondition, release 1.33). LastTransitionTime is now, unless
// the condition's status is unchanged, when the old transition time is kept.
func UpdatePodCondition(status *PodStatus, condition PodCondition, now vtime.Time) bool {
	condition.LastTransitionTime = now
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != condition.Type {
			continue
		}
		if condition.Status == old.Status {
			condition.LastTransitionTime = old.LastTransitionTime
		}
		equal := condition.Status == old.Status && condition.Reason == old.Reason && condition.Message == old.Message &&
			condition.LastProbeTime == old.LastProbeTime && condition.LastTransitionTime == old.LastTransitionTime
		status.Conditions[i] = condition
		return !equal
	}
	status.Conditions = append(status.Conditions, condition)
	return true
}

// AggregateContainers folds a per-container value (requests, in whatever representation the
// caller keeps them) over a pod the way k8s.io/component-helpers resource
// aggregateContainerResourcesByFn does since sidecar containers (KEP-753, "Resources
// calculation for scheduling and pod admission"): the app containers add up; a restartable init
// container (sidecar) adds to that sum, since it keeps running beside them; and while the i-th
// plain init container runs, the pod needs it plus the sidecars started before it, so the pod
// needs at least the largest such step. add and larger must be elementwise sum and maximum, and
// the zero T must be the empty value. The scheduler, the kubelet's admission and the settled
// placement all read a pod's requests through it.
func AggregateContainers[T any](pod *Pod, value func(*Container) T, add func(a, b T) T, larger func(a, b T) T) T {
	var result, sidecars, initStep T
	for i := range pod.Spec.Containers {
		result = add(result, value(&pod.Spec.Containers[i]))
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		v := value(c)
		if IsRestartableInitContainer(c) {
			result = add(result, v)
			sidecars = add(sidecars, v)
			v = sidecars
		} else {
			v = add(v, sidecars)
		}
		initStep = larger(initStep, v)
	}
	return larger(result, initStep)
}

// PodCPUMemoryRequests returns the pod's CPU (millicores) and memory (bytes) requests as
// AggregateContainers sums them, saturating at math.MaxInt64 and ignoring negative values
// (validation rejects them; a settled-placement estimate must not wrap).
func PodCPUMemoryRequests(pod *Pod) (milliCPU, memoryBytes int64) {
	type cpuMem struct{ cpu, mem int64 }
	sum := AggregateContainers(pod, func(c *Container) cpuMem {
		cpu := c.Resources.Requests[ResourceCPU]
		mem := c.Resources.Requests[ResourceMemory]
		return cpuMem{max(cpu.MilliValue(), 0), max(mem.Value(), 0)}
	}, func(a, b cpuMem) cpuMem {
		return cpuMem{SaturatingAdd(a.cpu, b.cpu), SaturatingAdd(a.mem, b.mem)}
	}, func(a, b cpuMem) cpuMem {
		return cpuMem{max(a.cpu, b.cpu), max(a.mem, b.mem)}
	})
	return sum.cpu, sum.mem
}

// SaturatingAdd adds two non-negative values, stopping at math.MaxInt64 (request and capacity
// sums from user input must not wrap).
func SaturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
